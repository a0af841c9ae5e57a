/** `toolgate blast-radius RESOURCE_OR_POLICY`: the tools and agents a change would affect. */
import { blastRadius } from '../../governance/blast-radius.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';

const usage = `usage: toolgate blast-radius RESOURCE_OR_POLICY [estate]
An unknown name prints found: false (exit 0).
${ESTATE_USAGE}`;

export const blastRadiusCommand: Command = {
  name: 'blast-radius',
  summary: 'which tools and agents a change to a resource or policy affects',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, ESTATE_OPTIONS, usage);
    if (positionals.length !== 1) usageError('expected RESOURCE_OR_POLICY', usage);
    printJson(io, blastRadius(estateFromArgs(values, io), positionals[0]!));
    return EXIT.OK;
  },
};
