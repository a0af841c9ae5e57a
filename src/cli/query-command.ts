/**
 * A CLI command generated from one row of the query table (queries/table.ts): its usage line and
 * option parsing come from the row's arguments, the estate from the usual estate options, files
 * from the working directory, and the exit from the row's exit policy. A command may add options
 * that only say where the same answer goes (`--out FILE`, `--format html`): a CliOutput, declared
 * in its file under commands/.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { jsonFileBytes } from '../compile/json-file.ts';
import type { Estate } from '../governance/estate.ts';
import { COMPAT_DIALECTS, peerResult } from '../queries/compat-toolgraph.ts';
import type { ArgValue, QueryArg, QueryArgs, QueryDef, QueryEnv, RunState } from '../queries/table.ts';
import { parseCommandArgs, usageError, type OptionSpec } from './args.ts';
import { createdAtFromEnv } from './clock.ts';
import type { CliIo, Command } from './command.ts';
import { enforcementRego } from './enforcement-rego.ts';
import { EXIT } from './exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate, type EstateArgs, type EstateSource } from './estate-input.ts';
import { readBytesFile } from './fs-io.ts';
import { printJson } from './output.ts';
import { realPathOf } from './review-store.ts';

type Values = Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>;

/** What a command's own output options see once the query has answered. */
export interface CliOutputContext {
  readonly result: unknown;
  readonly io: CliIo;
  readonly values: Values;
  readonly usage: string;
  /** The estate the answer came from (loaded on first ask, once). */
  readonly estate: () => Estate;
  readonly source: () => EstateSource;
}

/** CLI-only options of a query command: where its answer goes, never what it is. */
export interface CliOutput {
  /** Synopsis words after the generated ones (`[--out FILE]`). */
  readonly synopsis: string;
  /** Help lines for those options. */
  readonly help: string;
  readonly options: OptionSpec;
  /** Refuses option combinations before anything is read (usageError). */
  readonly check?: (values: Values, io: CliIo, usage: string) => void;
  /** The graph state artifacts are stamped with (default: derived afresh from the estate). */
  readonly runState?: (estate: Estate, io: CliIo, values: Values) => RunState;
  /** Sends the answer where the options say; false leaves it to the default print. */
  readonly write?: (ctx: CliOutputContext) => boolean | Promise<boolean>;
}

const optionName = (a: QueryArg) => a.name.replaceAll('_', '-');
const metavar = (a: QueryArg) => (a.values ? a.values.join('|') : a.kind === 'file' ? 'FILE' : a.name.toUpperCase());

function synopsis(q: QueryDef, extra: CliOutput | undefined): string {
  const words = [`usage: toolgate ${q.name}`];
  for (const a of q.args) if (a.positional) words.push(a.kind === 'strings' ? `${a.positional}...` : a.positional);
  for (const a of q.args) {
    if (a.positional) continue;
    const word = a.kind === 'boolean' ? `--${optionName(a)}` : `--${optionName(a)} ${metavar(a)}`;
    words.push(a.required ? word : `[${word}]`);
  }
  for (const f of q.cliFlags ?? []) words.push(`[--${f}]`);
  if (extra) words.push(extra.synopsis);
  if (q.estate !== false) words.push('[estate]');
  return words.join(' ');
}

const COMPAT_USAGE = `  --compat toolgraph   print the result in the peer toolgraph's shape: its fields, rows and row order,
                       its evidence path strings (schemas/results/compat-toolgraph.schema.json);
                       a query the peer lacks prints as without it`;

export function queryUsage(q: QueryDef, extra?: CliOutput): string {
  const lines = [`${synopsis(q, extra)} [--compat toolgraph]`, q.help];
  if (extra) lines.push(extra.help);
  lines.push(COMPAT_USAGE);
  if (q.estate !== false) lines.push(ESTATE_USAGE);
  return lines.join('\n');
}

function positionalError(q: QueryDef): string {
  const ps = q.args.filter((a) => a.positional);
  if (ps.length === 0) return '';
  return `expected ${ps.map((a) => (a.kind === 'strings' ? `at least one ${a.positional}` : a.positional)).join(' and ')}`;
}

/** The surface a CLI query reads through: files against the working directory, the process clock. */
function cliEnv(io: CliIo, estate: () => Estate, state: (e: Estate) => RunState | Promise<RunState>): QueryEnv {
  const path = (p: string) => resolve(io.cwd, p);
  return {
    estate,
    readFile: (_arg, p) => readBytesFile(path(p)),
    readOptionalFile: (_arg, p) => (existsSync(path(p)) ? readBytesFile(path(p)) : undefined),
    realPath: (_arg, p) => realPathOf(path(p)),
    createdAt: () => createdAtFromEnv(io.env),
    runState: state,
    enforcementRego,
  };
}

export function queryCommand(q: QueryDef, extra?: CliOutput): Command {
  const usage = queryUsage(q, extra);
  const options: OptionSpec = { ...(q.estate === false ? {} : ESTATE_OPTIONS), ...(extra?.options ?? {}) };
  for (const a of q.args) if (!a.positional) options[optionName(a)] = { type: a.kind === 'boolean' ? 'boolean' : 'string' };
  for (const f of q.cliFlags ?? []) options[f] = { type: 'boolean' };
  options.compat = { type: 'string' };
  const positionals = q.args.filter((a) => a.positional);
  const rest = positionals.at(-1)?.kind === 'strings';
  return {
    name: q.name,
    summary: q.summary,
    usage,
    async run(argv: string[], io: CliIo): Promise<number> {
      const { values, positionals: given } = parseCommandArgs(argv, options, usage);
      const fixed = rest ? positionals.length - 1 : positionals.length;
      if (positionals.length === 0 && given.length > 0) usageError(`unexpected argument ${JSON.stringify(given[0])}`, usage);
      if (rest ? given.length < positionals.length : given.length !== fixed) usageError(positionalError(q), usage);
      const v = values as Record<string, string | boolean | undefined>;
      if (v.compat !== undefined && !(COMPAT_DIALECTS as readonly string[]).includes(v.compat as string)) usageError(`--compat must be one of ${COMPAT_DIALECTS.join(', ')}, got ${JSON.stringify(v.compat)}`, usage);
      let source: EstateSource | undefined;
      const locate = (): EstateSource => (source ??= locateEstate(v as EstateArgs, io));
      const args: Record<string, ArgValue> = {};
      positionals.forEach((a, i) => (args[a.name] = a.kind === 'strings' ? given.slice(i) : given[i]));
      for (const a of q.args) {
        if (a.positional) continue;
        let value = v[optionName(a)];
        if (value === undefined && a.configDefault !== undefined) value = locate().config?.[a.configDefault] as string | undefined;
        if (value === undefined && a.required) usageError(`--${optionName(a)} ${metavar(a)} is required`, usage);
        if (a.values && typeof value === 'string' && !a.values.includes(value)) usageError(`--${optionName(a)} must be one of ${a.values.join(', ')}, got ${JSON.stringify(value)}`, usage);
        args[a.name] = value;
      }
      const fault = q.check?.(args as QueryArgs);
      if (fault !== undefined) usageError(fault, usage);
      extra?.check?.(values, io, usage);
      let estate: Estate | undefined;
      const theEstate = (): Estate => (estate ??= loadEstate(locate(), io, { strictDrift: (v['strict-drift'] as boolean | undefined) ?? false }));
      // Only the run artifacts ask for a graph state: the other commands do not load its module.
      const state = async (e: Estate): Promise<RunState> => (extra?.runState ? extra.runState(e, io, values) : (await import('./run-state.ts')).runState(e, io, {}));
      const result = await q.run(cliEnv(io, theEstate, state), args as QueryArgs);
      const flags = Object.fromEntries((q.cliFlags ?? []).map((f) => [f, v[f] === true]));
      const outcome = q.exit(result, flags);
      const print = async () => {
        const answer = q.answer ? await q.answer(result) : result;
        const shaped = v.compat === 'toolgraph' ? peerResult(q, answer, estate) : answer;
        if (q.printed === 'canonical') io.stdout(new TextDecoder().decode(jsonFileBytes(shaped)));
        else printJson(io, shaped);
      };
      if (outcome.print) {
        const written = extra?.write ? await extra.write({ result, io, values, usage, estate: theEstate, source: locate }) : false;
        if (!written) await print();
      }
      for (const line of typeof outcome.stderr === 'string' ? [outcome.stderr] : (outcome.stderr ?? [])) io.stderr(`toolgate: ${line}\n`);
      return EXIT[outcome.exit];
    },
  };
}
