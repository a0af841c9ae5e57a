/** `toolgate` entry: dispatch to a command, map errors to exit codes, never print a stack trace. */
import { isToolgateError, formatAt } from '../errors.ts';
import type { CliIo, CommandEntry } from './command.ts';
import { EXIT, exitCodeFor } from './exit-codes.ts';
import { COMMANDS } from './registry.ts';
import { didYouMean } from './suggest.ts';
import { packageVersion } from './version.ts';
import { withProgress } from './progress.ts';
import { visibleText } from './visible-text.ts';
import { recordingInputs } from './run-inputs.ts';

function defaultIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
    ...(process.stderr.isTTY ? { stderrTTY: { columns: process.stderr.columns || 80 } } : {}),
    stdin: async () => {
      if (process.stdin.isTTY) return '';
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

const isHelp = (word: string | undefined): boolean => word === '--help' || word === '-h';

function commandList(entries: readonly CommandEntry[]): string {
  const width = Math.max(...entries.map((c) => c.name.length));
  return entries.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n');
}

function helpText(): string {
  return `usage: toolgate COMMAND [options]\n       toolgate --version\n\ncommands:\n${commandList(COMMANDS)}\n\nRun 'toolgate COMMAND --help' for a command's options.\n`;
}

/** Commands named `GROUP SUB` (graph, bundle, rego, ...), keyed by their first word. */
function groupOf(word: string | undefined): CommandEntry[] {
  return COMMANDS.filter((c) => c.name.includes(' ') && c.name.split(' ')[0] === word);
}

function groupHelpText(group: string, members: readonly CommandEntry[]): string {
  return `usage: toolgate ${group} SUBCOMMAND [options]\n\nsubcommands:\n${commandList(members)}\n\nRun 'toolgate ${group} SUBCOMMAND --help' for its options.\n`;
}

/** Finds the longest command name matching the leading words of argv. */
function findCommand(argv: readonly string[]): { entry: CommandEntry; rest: string[] } | undefined {
  let best: { entry: CommandEntry; words: number } | undefined;
  for (const entry of COMMANDS) {
    const words = entry.name.split(' ');
    if (words.every((w, i) => argv[i] === w) && (!best || words.length > best.words)) best = { entry, words: words.length };
  }
  return best && { entry: best.entry, rest: argv.slice(best.words) };
}

/** The message for argv that names no command: only the words that failed to match, and the closest command. */
function unknownCommand(argv: readonly string[]): string {
  const [first = '', second] = argv;
  const members = groupOf(first);
  if (members.length > 0) {
    if (second === undefined || second.startsWith('-')) return `toolgate: ${JSON.stringify(first)} needs a subcommand\n${groupHelpText(first, members)}`;
    const typed = `${first} ${second}`;
    return `toolgate: unknown command ${JSON.stringify(typed)}${didYouMean(typed, members.map((c) => c.name))}\nRun 'toolgate ${first} --help' for its subcommands.\n`;
  }
  const firstWords = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];
  return `toolgate: unknown command ${JSON.stringify(first)}${didYouMean(first, firstWords)}\nRun 'toolgate --help' for the list of commands.\n`;
}

export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  // `toolgate help COMMAND` is `toolgate COMMAND --help`.
  if (argv[0] === 'help' && argv.length > 1) return main([...argv.slice(1), '--help'], io);
  if (argv.length === 0 || isHelp(argv[0]) || argv[0] === 'help') {
    io.stdout(helpText());
    return argv.length === 0 ? EXIT.USAGE : EXIT.OK;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout(`${packageVersion()}\n`);
    return EXIT.OK;
  }
  const found = findCommand(argv);
  if (!found) {
    const members = groupOf(argv[0]);
    if (members.length > 0 && (argv.length === 1 || isHelp(argv[1]))) {
      io.stdout(groupHelpText(argv[0]!, members));
      return argv.length === 1 ? EXIT.USAGE : EXIT.OK;
    }
    io.stderr(unknownCommand(argv));
    return EXIT.USAGE;
  }
  try {
    const command = await found.entry.load();
    if (found.rest.includes('--help') || found.rest.includes('-h')) {
      io.stdout(command.usage.endsWith('\n') ? command.usage : `${command.usage}\n`);
      return EXIT.OK;
    }
    const drawn = withProgress(io, found.entry.name);
    // Whatever a command says on stderr may quote files or servers; only the progress line (drawn through io itself) may move the cursor.
    const runIo: CliIo = { ...drawn, stderr: (t) => drawn.stderr(visibleText(t)) };
    try {
      // The inputs it reads are recorded so that no output of the run replaces one (run-inputs.ts).
      return await recordingInputs(() => command.run(found.rest, runIo));
    } finally {
      runIo.progress?.end();
    }
  } catch (e) {
    return reportError(e, io);
  }
}

export function reportError(e: unknown, io: CliIo): number {
  if (isToolgateError(e)) {
    const where = e.at.length > 0 ? ` at ${e.at.map(formatAt).join(', ')}` : '';
    io.stderr(visibleText(`toolgate: error ${e.code}${where}: ${e.message}\n`));
    for (const d of e.details) io.stderr(visibleText(`  ${d}\n`));
    return exitCodeFor(e.code);
  }
  const msg = e instanceof Error ? e.message : String(e);
  io.stderr(visibleText(`toolgate: internal error: ${msg}\n`));
  if (process.env.TOOLGATE_DEBUG && e instanceof Error && e.stack) io.stderr(`${e.stack}\n`);
  return EXIT.INTERNAL;
}
