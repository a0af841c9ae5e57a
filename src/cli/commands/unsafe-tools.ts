/** `toolgate unsafe-tools AGENT [--all] [--fail-on-violation]`: the agent's DENY reaches. */
import { unsafeTools } from '../../governance/unsafe-tools.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit } from '../selector-args.ts';

const usage = `usage: toolgate unsafe-tools AGENT [estate] [--all] [--fail-on-violation]
  --all                 include rows an expected exception authorizes (authorized_but_governed)
  --fail-on-violation   exit 1 when any violation row is printed
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.
${ESTATE_USAGE}`;

export const unsafeToolsCommand: Command = {
  name: 'unsafe-tools',
  summary: "the DENY policies AGENT's grants reach (violations; --all adds authorized ones)",
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, all: { type: 'boolean' }, 'fail-on-violation': { type: 'boolean' } }, usage);
    if (positionals.length !== 1) usageError('expected AGENT', usage);
    const estate = estateFromArgs(values, io);
    const result = unsafeTools(estate, positionals[0]!, values.all ?? false);
    if (!result.agent_found) return agentExit(io, result.agent, false);
    printJson(io, result);
    return values['fail-on-violation'] && result.violations > 0 ? EXIT.FAILED : EXIT.OK;
  },
};
