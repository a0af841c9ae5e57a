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

/** One candidate's decision under a profile, worked out from the index's facts. */
function decide(idx: SelectorIndex, view: AgentView, candidate: string, profile: Profile): Selection {
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

/**
 * Each agent view's decisions, per profile and candidate. A view belongs to one selector index (one
 * graph state), so a decision never changes while it is kept; a repeated batch is then one lookup
 * per candidate and allocates no rows (rows are shared between answers and never mutated).
 */
const decided = new WeakMap<AgentView, Map<Profile, Map<string, Selection>>>();

function decisionsOf(view: AgentView, profile: Profile): Map<string, Selection> {
  let byProfile = decided.get(view);
  if (byProfile === undefined) {
    byProfile = new Map();
    decided.set(view, byProfile);
  }
  let memo = byProfile.get(profile);
  if (memo === undefined) {
    memo = new Map();
    byProfile.set(profile, memo);
  }
  return memo;
}

/** One candidate's decision under a profile, kept for the view's graph state. */
export function select(idx: SelectorIndex, view: AgentView, candidate: string, profile: Profile): Selection {
  const memo = decisionsOf(view, profile);
  let s = memo.get(candidate);
  if (s === undefined) {
    s = decide(idx, view, candidate, profile);
    memo.set(candidate, s);
  }
  return s;
}

/** The kept decisions of every candidate, in order; false at the first one not decided yet. */
function answerFrom(memo: Map<string, Selection>, candidates: readonly string[], eligible: EligibleRow[], rejected: RejectedRow[]): boolean {
  for (const c of candidates) {
    const s = memo.get(c);
    if (s === undefined) return false;
    if (s.eligible) eligible.push(s.row);
    else rejected.push(s.row);
  }
  return true;
}

// Apart from the answer loop: deciding calls into the estate's own functions, and code that has
// them inlined is thrown away when that estate is collected; the lookups then stay optimized across
// graph states.
function decideMissing(memo: Map<string, Selection>, idx: SelectorIndex, view: AgentView, candidates: readonly string[], profile: Profile): void {
  for (const c of candidates) if (!memo.has(c)) memo.set(c, decide(idx, view, c, profile));
}

export function eligibleTools(estate: Estate, agent: string, candidates: readonly string[], profile: Profile): EligibleToolsResult {
  const idx = selectorIndex(estate);
  const view = idx.agent(agent);
  const eligible: EligibleRow[] = [];
  const rejected: RejectedRow[] = [];
  if (view) {
    const memo = decisionsOf(view, profile);
    if (!answerFrom(memo, candidates, eligible, rejected)) {
      decideMissing(memo, idx, view, candidates, profile);
      eligible.length = 0;
      rejected.length = 0;
      answerFrom(memo, candidates, eligible, rejected);
    }
  }
  return { agent, agent_found: view !== undefined, profile, eligible, rejected };
}
