/** `toolgate unmapped-tools [--all]`: granted tools (with --all, every known tool) with no READS/WRITES edge yet. */
import { unmappedTools } from '../../audit/unmapped-tools.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';

const summary = 'granted tools with no READS/WRITES edge yet';
const usage = `usage: toolgate unmapped-tools [--all] [estate]
${summary}.
  --all   every tool the catalog exposes or the manifest names, granted or not
Advisory: exit 0 whatever it finds; 1 when an input is refused, 2 on bad usage.
${ESTATE_USAGE}`;

export const unmappedToolsCommand: Command = {
  name: 'unmapped-tools',
  summary,
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, all: { type: 'boolean' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    printJson(io, unmappedTools(estateFromArgs(values, io), values.all ?? false));
    return EXIT.OK;
  },
};
