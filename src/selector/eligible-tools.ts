/**
 * `eligible-tools AGENT CANDIDATES... --profile strict|review|explore`: the hard filter. Each
 * candidate, in input order, is eligible or rejected with the reason (`profileReject`, the same
 * rules `compile` writes into the policy bundle) and, for a DENY reason, the evidence paths.
 * Profiles are named rule sets, not thresholds: strict rejects anything short of a clean, fully
 * mapped ALLOW; review lets declared exceptions and unmapped tools pass; explore rejects only
 * not-found, ambiguous, not-granted and drifted tools.
 */
import { profileReject, riskScore } from '../governance/assess.ts';
import type { Estate } from '../governance/estate.ts';
import type { Profile, RejectReason } from '../governance/types.ts';
import { selectorIndex, type AgentView, type SelectorIndex } from './selector-index.ts';

export interface EligibleRow {
  readonly candidate: string;
  readonly tool_key: string;
  readonly risk_score: number;
}

export interface RejectedRow {
  readonly candidate: string;
  readonly tool_key: string | null;
  readonly reason: RejectReason;
  /** AMBIGUOUS_TOOL only: every tool key the bare name matched. */
  readonly candidates?: readonly string[];
  /** DENY_VIOLATION / DENY_GOVERNED only: the evidence paths (URIs scrubbed). */
  readonly paths?: readonly string[];
}

export interface EligibleToolsResult {
  readonly agent: string;
  readonly agent_found: boolean;
  readonly profile: Profile;
  readonly eligible: readonly EligibleRow[];
  readonly rejected: readonly RejectedRow[];
}

export type Selection = { readonly eligible: true; readonly row: EligibleRow } | { readonly eligible: false; readonly row: RejectedRow };

/** One candidate's decision under a profile. */
export function select(idx: SelectorIndex, view: AgentView, candidate: string, profile: Profile): Selection {
  const r = idx.resolve(candidate);
  if (r.status === 'not_found') return { eligible: false, row: { candidate, tool_key: null, reason: 'TOOL_NOT_FOUND' } };
  if (r.status === 'ambiguous') return { eligible: false, row: { candidate, tool_key: null, reason: 'AMBIGUOUS_TOOL', candidates: r.candidates } };
  // Not granted is decided before any graph fact is looked at: it needs none.
  if (!view.grants.has(r.key)) return { eligible: false, row: { candidate, tool_key: r.key, reason: 'NOT_GRANTED' } };
  const a = idx.assess(view, r.key);
  const reason = profileReject(a, profile);
  if (reason === undefined) return { eligible: true, row: { candidate, tool_key: r.key, risk_score: riskScore(a) } };
  if (reason === 'DENY_VIOLATION' || reason === 'DENY_GOVERNED') {
    const rows = reason === 'DENY_VIOLATION' ? a.deny_evidence.filter((e) => e.classification === 'violation') : a.deny_evidence;
    return { eligible: false, row: { candidate, tool_key: r.key, reason, paths: [...new Set(rows.map((e) => e.path))] } };
  }
  return { eligible: false, row: { candidate, tool_key: r.key, reason } };
}

export function eligibleTools(estate: Estate, agent: string, candidates: readonly string[], profile: Profile): EligibleToolsResult {
  const idx = selectorIndex(estate);
  const view = idx.agent(agent);
  const eligible: EligibleRow[] = [];
  const rejected: RejectedRow[] = [];
  if (view) {
    for (const c of candidates) {
      const s = select(idx, view, c, profile);
      if (s.eligible) eligible.push(s.row);
      else rejected.push(s.row);
    }
  }
  return { agent, agent_found: view !== undefined, profile, eligible, rejected };
}
