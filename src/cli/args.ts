/** Argument parsing on top of node:util parseArgs, turning its errors into USAGE errors. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgateError } from '../errors.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends OptionSpec>(args: string[], options: O, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new ToolgateError('USAGE', `${(e as Error).message}\n${usage}`);
  }
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
