/** Printing results: JSON on stdout, nothing else there. */
import type { CliIo } from './command.ts';

export function printJson(io: CliIo, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}
