/** `toolgate rank-features AGENT CANDIDATES...`: per-candidate selector facts and the rule-based risk score. */
import { rankFeatures } from '../../selector/rank-features.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { printJson } from '../output.ts';
import { agentExit } from '../selector-args.ts';

const usage = `usage: toolgate rank-features AGENT CANDIDATE... [estate]
One row per candidate, in input order. An unknown or ambiguous candidate is a row, not an error.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.
${ESTATE_USAGE}`;

export const rankFeaturesCommand: Command = {
  name: 'rank-features',
  summary: 'per-candidate selector facts for AGENT (verdict, DENY paths, drift, mapping, claims, risk_score)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, ESTATE_OPTIONS, usage);
    if (positionals.length < 2) usageError('expected AGENT and at least one CANDIDATE', usage);
    const [agent, ...candidates] = positionals as [string, ...string[]];
    const result = rankFeatures(estateFromArgs(values, io), agent, candidates);
    if (result.agent_found) printJson(io, result);
    return agentExit(io, agent, result.agent_found);
  },
};
