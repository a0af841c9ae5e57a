/** The shape every audit command shares: estate in, the audit's JSON on stdout, exit 0 (advisory). */
import type { Estate } from '../governance/estate.ts';
import { parseCommandArgs, usageError } from './args.ts';
import type { CliIo, Command } from './command.ts';
import { EXIT } from './exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from './estate-input.ts';
import { printJson } from './output.ts';

export function auditCommand(name: string, summary: string, audit: (estate: Estate) => unknown): Command {
  const usage = `usage: toolgate ${name} [estate]
${summary}. Advisory: exit 0 whatever it finds; 1 when an input is refused, 2 on bad usage.
${ESTATE_USAGE}`;
  return {
    name,
    summary,
    usage,
    async run(args: string[], io: CliIo): Promise<number> {
      const { values, positionals } = parseCommandArgs(args, ESTATE_OPTIONS, usage);
      if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
      printJson(io, audit(estateFromArgs(values, io)));
      return EXIT.OK;
    },
  };
}
