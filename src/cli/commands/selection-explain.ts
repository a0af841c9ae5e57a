/** `toolgate selection-explain AGENT TOOL`: short human reasons for one selection decision. */
import { selectionExplain } from '../../selector/selection-explain.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit, profileOption } from '../selector-args.ts';

const usage = `usage: toolgate selection-explain AGENT TOOL [--profile strict|review|explore] [estate]
The reasons behind AGENT's selection decision for TOOL under every profile (decisions), and with
--profile that profile's decision (profile, decision) as the last reason.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.
${ESTATE_USAGE}`;

export const selectionExplainCommand: Command = {
  name: 'selection-explain',
  summary: "why TOOL is or is not selectable for AGENT, in short human reasons",
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, profile: { type: 'string' } }, usage);
    if (positionals.length !== 2) usageError('expected AGENT and TOOL', usage);
    const profile = values.profile === undefined ? undefined : profileOption(values.profile, usage);
    const result = selectionExplain(estateFromArgs(values, io), positionals[0]!, positionals[1]!, profile);
    if (result.agent_found) printJson(io, result);
    return agentExit(io, result.agent, result.agent_found);
  },
};
