/**
 * One decision for every (agent, granted tool) pair under a profile: the sparse core that the
 * policy bundle, the OPA data document and the toolgraph-v1 export are all written from.
 */
import type { Estate } from './estate.ts';
import { assess, profileReject, riskScore } from './assess.ts';
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
  const a = assess(estate, agent, toolKey);
  const reason = profileReject(a, profile);
  const risk = riskScore(a);
  if (!reason) return { tool_key: toolKey, decision: 'eligible', risk_score: risk };
  const denyPath = reason === 'DENY_VIOLATION' || reason === 'DENY_GOVERNED';
  const paths = denyPath ? [...new Set((reason === 'DENY_VIOLATION' ? a.deny_evidence.filter((e) => e.classification === 'violation') : a.deny_evidence).map((e) => e.path))] : [];
  return { tool_key: toolKey, decision: 'rejected', reason, risk_score: risk, ...(paths.length > 0 ? { paths } : {}) };
}
