/** `toolgate eligible-tools AGENT CANDIDATES... --profile P`: the selector's hard filter. */
import { eligibleTools } from '../../selector/eligible-tools.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit, profileOption } from '../selector-args.ts';

const usage = `usage: toolgate eligible-tools AGENT CANDIDATE... [--profile strict|review|explore] [estate]
Splits the candidates (input order kept) into eligible and rejected with the reason and, for a
DENY reason, the evidence paths. --profile defaults to strict. Advisory: exit 0 whatever is rejected.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.
${ESTATE_USAGE}`;

export const eligibleToolsCommand: Command = {
  name: 'eligible-tools',
  summary: 'filter candidate tools for AGENT under a profile, with reject reasons and evidence',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, profile: { type: 'string' } }, usage);
    if (positionals.length < 2) usageError('expected AGENT and at least one CANDIDATE', usage);
    const profile = profileOption(values.profile, usage);
    const [agent, ...candidates] = positionals as [string, ...string[]];
    const result = eligibleTools(estateFromArgs(values, io), agent, candidates, profile);
    if (result.agent_found) printJson(io, result);
    return agentExit(io, agent, result.agent_found);
  },
};
