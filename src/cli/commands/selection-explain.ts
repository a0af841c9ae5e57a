/** `toolgate selection-explain AGENT TOOL`: short human reasons for one selection decision. */
import { selectionExplain } from '../../selector/selection-explain.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit } from '../selector-args.ts';

const usage = `usage: toolgate selection-explain AGENT TOOL [estate]
The reasons behind AGENT's selection decision for TOOL under every profile.
Unknown AGENT: AGENT_NOT_FOUND on stderr, exit 1.
${ESTATE_USAGE}`;

export const selectionExplainCommand: Command = {
  name: 'selection-explain',
  summary: "why TOOL is or is not selectable for AGENT, in short human reasons",
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, ESTATE_OPTIONS, usage);
    if (positionals.length !== 2) usageError('expected AGENT and TOOL', usage);
    const result = selectionExplain(estateFromArgs(values, io), positionals[0]!, positionals[1]!);
    printJson(io, result);
    return agentExit(io, result.agent, result.agent_found);
  },
};
