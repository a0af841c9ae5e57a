/** The shape every CLI command has. Commands live one per file in `commands/` and are listed in `registry.ts`. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Standard input as text (read lazily; empty when there is none). */
  readonly stdin: () => Promise<string>;
  /** Present only when stderr is a terminal: progress is drawn there and nowhere else. */
  readonly stderrTTY?: { readonly columns: number };
  /** Set by the CLI on a terminal (progress.ts); a long command reports its phases here. */
  readonly progress?: ProgressReporter;
}

export interface ProgressReporter {
  /** The current phase, with a count when there is one (`servers`, 3, 7). */
  report(phase: string, done?: number, total?: number): void;
  end(): void;
}

export interface Command {
  /** Space-separated words after `toolgate`, e.g. `compile` or `graph build`. */
  readonly name: string;
  /** One line for `toolgate --help`. */
  readonly summary: string;
  /** Full usage text for `toolgate NAME --help`. */
  readonly usage: string;
  /** Runs the command and returns its exit code. Throw ToolgateError for refusals. */
  run(args: string[], io: CliIo): Promise<number>;
}

/** A command as `registry.ts` lists it: enough for `toolgate --help` without loading the command's module. */
export interface CommandEntry {
  readonly name: string;
  readonly summary: string;
  /** Imports the command's module; only the command that runs is loaded. */
  load(): Promise<Command>;
}
