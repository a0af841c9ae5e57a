/**
 * A CLI command generated from one row of the query table (queries/table.ts): its usage line and
 * option parsing come from the row's arguments, the estate from the usual estate options, and the
 * exit from the row's exit policy.
 */
import { COMPAT_DIALECTS, peerResult } from '../queries/compat-toolgraph.ts';
import type { QueryArg, QueryArgs, QueryDef, ArgValue } from '../queries/table.ts';
import { parseCommandArgs, usageError, type OptionSpec } from './args.ts';
import type { CliIo, Command } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate, type EstateArgs } from './estate-input.ts';
import { printJson } from './output.ts';

const optionName = (a: QueryArg) => a.name.replaceAll('_', '-');

function synopsis(q: QueryDef): string {
  const words = [`usage: toolgate ${q.name}`];
  for (const a of q.args) if (a.positional) words.push(a.kind === 'strings' ? `${a.positional}...` : a.positional);
  words.push('[estate]');
  for (const a of q.args) {
    if (a.positional) continue;
    words.push(a.kind === 'boolean' ? `[--${optionName(a)}]` : `[--${optionName(a)} ${a.values ? a.values.join('|') : a.name.toUpperCase()}]`);
  }
  for (const f of q.cliFlags ?? []) words.push(`[--${f}]`);
  return words.join(' ');
}

const COMPAT_USAGE = `  --compat toolgraph   print the result in the peer toolgraph's shape (its evidence path strings;
                       eligible-tools: eligible as tool keys)`;

export function queryUsage(q: QueryDef): string {
  return `${synopsis(q)} [--compat toolgraph]\n${q.help}\n${COMPAT_USAGE}\n${ESTATE_USAGE}`;
}

function positionalError(q: QueryDef): string {
  const ps = q.args.filter((a) => a.positional);
  if (ps.length === 0) return '';
  return `expected ${ps.map((a) => (a.kind === 'strings' ? `at least one ${a.positional}` : a.positional)).join(' and ')}`;
}

export function queryCommand(q: QueryDef): Command {
  const usage = queryUsage(q);
  const options: OptionSpec = { ...ESTATE_OPTIONS };
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
      const source = locateEstate(v as EstateArgs, io);
      const args: Record<string, ArgValue> = {};
      positionals.forEach((a, i) => (args[a.name] = a.kind === 'strings' ? given.slice(i) : given[i]));
      for (const a of q.args) {
        if (a.positional) continue;
        let value = v[optionName(a)];
        if (value === undefined && a.configDefault !== undefined) value = source.config?.[a.configDefault] as string | undefined;
        if (a.values && typeof value === 'string' && !a.values.includes(value)) usageError(`--${optionName(a)} must be one of ${a.values.join(', ')}, got ${JSON.stringify(value)}`, usage);
        args[a.name] = value;
      }
      const estate = loadEstate(source, io, { strictDrift: (v['strict-drift'] as boolean | undefined) ?? false });
      const result = await q.run(estate, args as QueryArgs);
      const flags = Object.fromEntries((q.cliFlags ?? []).map((f) => [f, v[f] === true]));
      const outcome = q.exit(result, flags);
      if (outcome.print) printJson(io, v.compat === 'toolgraph' ? peerResult(q, result, estate) : result);
      if (outcome.stderr !== undefined) io.stderr(`toolgate: ${outcome.stderr}\n`);
      return EXIT[outcome.exit];
    },
  };
}
