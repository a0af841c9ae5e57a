/** Argument parsing on top of node:util parseArgs, turning its errors into USAGE errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgateError } from '../errors.ts';
import { didYouMean } from './suggest.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** What `parseCommandArgs` returns: parseArgs' typed values and positionals for these options. */
export type ParsedCommandArgs<O extends OptionSpec> = ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>;

export function parseCommandArgs<O extends OptionSpec>(args: string[], options: O, usage: string): ParsedCommandArgs<O> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    const unknown = (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOption(args, options) : undefined;
    if (unknown !== undefined) {
      const known = Object.keys(options).map((name) => `--${name}`);
      throw new ToolgateError('USAGE', `unknown option ${unknown}${didYouMean(unknown, known)}\n${usage}`);
    }
    throw new ToolgateError('USAGE', `${(e as Error).message}\n${usage}`);
  }
}

/** The first option the user typed that `options` does not declare, as typed (`--fial-on-deny`, `-x`). */
function unknownOption(args: string[], options: OptionSpec): string | undefined {
  const shorts = new Set(Object.values(options).flatMap((o) => (o.short === undefined ? [] : [o.short])));
  const { tokens } = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const declared = t.rawName.startsWith('--') ? Object.hasOwn(options, t.name) : shorts.has(t.name);
    if (!declared) return t.rawName;
  }
  return undefined;
}

export function usageError(message: string, usage: string): never {
  throw new ToolgateError('USAGE', `${message}\n${usage}`);
}

/** Parses a non-negative integer option value, refusing anything else. */
export function intOption(value: string | undefined, name: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) usageError(`--${name} expects a non-negative integer, got ${JSON.stringify(value)}`, usage);
  return Number(value);
}
