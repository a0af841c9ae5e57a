/**
 * One decision for every (agent, granted tool) pair under a profile: the sparse core that the
 * policy bundle, the OPA data document and the toolgraph-v1 export are all written from.
 */
import type { Estate } from './estate.ts';
import { denyRowPath, denyRows, profileReject, riskScore, type DenyRows } from './assess.ts';
import { exceptionsCanApply } from './exceptions.ts';
import type { DenyReach, Profile, RejectReason } from './types.ts';

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

/** A decision but for the agent's name: the rows its evidence paths cite, and the decision without them. */
interface Verdict {
  readonly decision: ToolDecision;
  readonly cited: readonly DenyReach[];
}

const NOTHING_CITED: readonly DenyReach[] = [];

function verdictOf(a: DenyRows, toolKey: string, profile: Profile): Verdict {
  const reason = profileReject(a, profile);
  const risk = riskScore(a);
  if (!reason) return { decision: { tool_key: toolKey, decision: 'eligible', risk_score: risk }, cited: NOTHING_CITED };
  // DENY_VIOLATION cites the rows no exception classifies (violations), DENY_GOVERNED every row.
  const cited = reason === 'DENY_VIOLATION' ? a.deny_evidence.filter((_, i) => a.exceptions[i] === undefined) : reason === 'DENY_GOVERNED' ? a.deny_evidence : [];
  return { decision: { tool_key: toolKey, decision: 'rejected', reason, risk_score: risk }, cited };
}

function withPaths({ decision, cited }: Verdict, agent: string): ToolDecision {
  if (cited.length === 0) return decision;
  return { ...decision, paths: [...new Set(cited.map((reach) => denyRowPath(agent, reach)))] };
}

// A granted tool's verdict is the same for every agent no expected exception can apply to (the
// agent is only named in the paths), so it is worked out once per tool and profile.
const sharedVerdicts = new WeakMap<Estate, Map<Profile, Map<string, Verdict>>>();

function sharedVerdict(estate: Estate, agent: string, toolKey: string, profile: Profile): Verdict {
  let byProfile = sharedVerdicts.get(estate);
  if (byProfile === undefined) sharedVerdicts.set(estate, (byProfile = new Map()));
  let byTool = byProfile.get(profile);
  if (byTool === undefined) byProfile.set(profile, (byTool = new Map()));
  let v = byTool.get(toolKey);
  if (v === undefined) byTool.set(toolKey, (v = verdictOf(denyRows(estate, agent, toolKey), toolKey, profile)));
  return v;
}

export function decide(estate: Estate, agent: string, toolKey: string, profile: Profile): ToolDecision {
  const shared = estate.grantsByAgent.get(agent)?.has(toolKey) === true && !exceptionsCanApply(estate, agent);
  return withPaths(shared ? sharedVerdict(estate, agent, toolKey, profile) : verdictOf(denyRows(estate, agent, toolKey), toolKey, profile), agent);
}
