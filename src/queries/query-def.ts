/**
 * The shape of one row of the query table: what a query is called on each surface, the arguments
 * it takes, what it reads through its surface, the pure function that answers it, the schema of
 * its answer and the CLI exit policy. The CLI (cli/query-command.ts) and the MCP server
 * (serve/server.ts) are generated from rows of this shape.
 *
 * Pure: types only.
 */
import type { RegoModuleFile } from '../compile/compile.ts';
import type { InputDigests } from '../compile/graph-state.ts';
import type { Estate } from '../governance/estate.ts';
import type { GraphState } from '../governance/types.ts';

/** `file`: a path the surface resolves and reads for the query (a string on both surfaces). */
export type ArgKind = 'string' | 'boolean' | 'strings' | 'file';

export interface QueryArg {
  /** The MCP argument name (snake_case); the CLI spells an option with dashes. */
  readonly name: string;
  readonly kind: ArgKind;
  readonly description: string;
  readonly values?: readonly string[];
  /** On the CLI a positional with this metavar (a `strings` positional takes the rest), else an option. */
  readonly positional?: string;
  /** Must the caller give it: on both surfaces, or only on the CLI (MCP then has a default). */
  readonly required?: 'both' | 'cli';
  /** The CLI's default comes from this key of toolgate.yaml before the built-in default. */
  readonly configDefault?: string;
}

export type ArgValue = string | boolean | readonly string[] | undefined;
export type QueryArgs = Readonly<Record<string, ArgValue>>;

/** The graph state an artifact is stamped with, and the input digests it was derived from. */
export interface RunState {
  readonly graph_state: GraphState;
  readonly digests: InputDigests;
}

/**
 * What a surface hands a query besides its arguments. Every file a query reads and every clock
 * reading goes through here, so the answer is a pure function of these and the arguments.
 */
export interface QueryEnv {
  /** The estate (read lazily: a query with `estate: false` never asks for it). */
  readonly estate: () => Estate;
  /** The bytes of a file argument `arg` names: the surface resolves the path and refuses what it must not read. */
  readonly readFile: (arg: string, path: string) => Uint8Array;
  /** The same, or undefined when no file is there. */
  readonly readOptionalFile: (arg: string, path: string) => Uint8Array | undefined;
  /** The path a file argument names, resolved with every symlink followed (the file need not exist). */
  readonly realPath: (arg: string, path: string) => string;
  /** RFC 3339 UTC, for artifacts that carry created_at. */
  readonly createdAt: () => string;
  /** The graph state and input digests an artifact about this estate is stamped with. */
  readonly runState: (estate: Estate) => RunState | Promise<RunState>;
  /** The enforcement Rego the package ships (cli/enforcement-rego.ts reads it). */
  readonly enforcementRego: () => readonly RegoModuleFile[];
}

/** What the CLI does with a result: print it or not, its exit, and lines for stderr. */
export interface CliOutcome {
  readonly print: boolean;
  readonly exit: 'OK' | 'FAILED' | 'USAGE';
  readonly stderr?: string | readonly string[];
}

export interface QueryDef {
  /** The CLI command (`eligible-tools`). */
  readonly name: string;
  /** The MCP tool (`eligible_tools`). */
  readonly tool: string;
  readonly title: string;
  /** One line for `toolgate --help`. */
  readonly summary: string;
  /** What it answers, for the MCP tool description. */
  readonly description: string;
  /** The CLI help body after the usage line (options are described here too). */
  readonly help: string;
  readonly args: readonly QueryArg[];
  /** CLI-only boolean flags that steer the exit policy (`--fail-on-deny`). */
  readonly cliFlags?: readonly string[];
  /** False when the query reads no estate (the CLI then takes no estate options). */
  readonly estate?: false;
  /** The schema of the result, `schemas/results/<result>.schema.json`. */
  readonly result: string;
  /** Printed on the CLI as canonical JSON (an artifact) rather than indented JSON. */
  readonly printed?: 'canonical';
  /** Refuses argument combinations the types cannot express: a message, or undefined when fine. */
  readonly check?: (args: QueryArgs) => string | undefined;
  readonly run: (env: QueryEnv, args: QueryArgs) => unknown | Promise<unknown>;
  /**
   * The JSON answer of a result `run` returns in another form (diff's record, streamed on the CLI):
   * what the MCP tool answers and the result schema describes. Default: the result itself.
   */
  readonly answer?: (result: any) => unknown | Promise<unknown>;
  readonly exit: (result: any, flags: Readonly<Record<string, boolean>>) => CliOutcome;
}
