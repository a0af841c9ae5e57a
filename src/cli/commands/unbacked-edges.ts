/** `toolgate unbacked-edges [--include-grants]`: authored edges that cite no evidence. */
import { unbackedEdges } from '../../audit/unbacked-edges.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';

const usage = `usage: toolgate unbacked-edges [estate] [--include-grants]
READS/WRITES and GOVERNED_BY edges that cite no evidence; --include-grants adds CAN_CALL grants.
Advisory: exit 0 whatever it finds; 1 when an input is refused, 2 on bad usage.
${ESTATE_USAGE}`;

export const unbackedEdgesCommand: Command = {
  name: 'unbacked-edges',
  summary: 'authored edges with no evidence (--include-grants adds CAN_CALL)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, 'include-grants': { type: 'boolean' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    printJson(io, unbackedEdges(estateFromArgs(values, io), values['include-grants'] ?? false));
    return EXIT.OK;
  },
};
