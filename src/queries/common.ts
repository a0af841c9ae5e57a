/** What several rows of the query table share: the agent and profile arguments and the common exit policies. */
import { PROFILES, type Profile } from '../governance/types.ts';
import type { CliOutcome, QueryArg, QueryArgs } from './query-def.ts';

export const ADVISORY_HELP = 'Advisory: exit 0 whatever it finds; 1 when an input is refused, 2 on bad usage.';

export const advisory = (): CliOutcome => ({ print: true, exit: 'OK' });

/** Selection must stop on a typo'd agent: nothing on stdout, AGENT_NOT_FOUND on stderr, exit 1. */
export const agentFound = (r: { agent_found: boolean; agent: string }): CliOutcome =>
  r.agent_found ? { print: true, exit: 'OK' } : { print: false, exit: 'FAILED', stderr: `AGENT_NOT_FOUND: ${r.agent}` };

export const AGENT: QueryArg = { name: 'agent', kind: 'string', description: 'agent id', positional: 'AGENT', required: 'both' };
export const CANDIDATES: QueryArg = { name: 'candidates', kind: 'strings', description: 'candidate tools, qualified server::tool or bare names; answered in input order', positional: 'CANDIDATE', required: 'both' };

export const profileArg = (description: string, configDefault?: string): QueryArg => ({ name: 'profile', kind: 'string', description, values: PROFILES, ...(configDefault ? { configDefault } : {}) });
export const profileOf = (args: QueryArgs): Profile => ((args.profile as string | undefined) ?? 'strict') as Profile;

