/**
 * One decision for every (agent, granted tool) pair under a profile: the sparse core that the
 * policy bundle, the OPA data document and the toolgraph-v1 export are all written from.
 */
import type { Estate } from './estate.ts';
import { denyRowPath, denyRows, profileReject, riskScore } from './assess.ts';
import type { Profile, RejectReason } from './types.ts';

export interface ToolDecision {
  readonly tool_key: string;
  readonly decision: 'eligible' | 'rejected';
  readonly reason?: RejectReason;
  readonly risk_score: number;
  /** Evidence paths, present for DENY-path rejections only. */
  readonly paths?: readonly string[];
}

export interface AgentDecisions {
  readonly agent: string;
  readonly decisions: readonly ToolDecision[];
}

export function decide(estate: Estate, agent: string, toolKey: string, profile: Profile): ToolDecision {
  const a = denyRows(estate, agent, toolKey);
  const reason = profileReject(a, profile);
  const risk = riskScore(a);
  if (!reason) return { tool_key: toolKey, decision: 'eligible', risk_score: risk };
  // DENY_VIOLATION cites the rows no exception classifies (violations), DENY_GOVERNED every row.
  const cited = reason === 'DENY_VIOLATION' ? a.deny_evidence.filter((_, i) => a.exceptions[i] === undefined) : reason === 'DENY_GOVERNED' ? a.deny_evidence : [];
  const paths = [...new Set(cited.map((reach) => denyRowPath(agent, reach)))];
  return { tool_key: toolKey, decision: 'rejected', reason, risk_score: risk, ...(paths.length > 0 ? { paths } : {}) };
}
