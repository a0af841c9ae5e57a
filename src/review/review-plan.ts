/**
 * `policy review-plan`: the accepted review candidates evaluated for one agent under one profile
 * (the peer's `toolgraph.policy-review-plan` schema_version 1), bound to the report's digest and
 * the graph state. A work plan for a human, never a change: `decision_mode: "human_required"`,
 * every candidate `recommended_action: "review_governance_manifest"` and `automatic_change: false`.
 * Trace evidence grants, denies and excuses nothing by itself; governance is edited by a person.
 *
 * Pure: the caller reads the report, sidecar and estate and passes created_at and graph state.
 */
import type { Estate } from '../governance/estate.ts';
import type { GraphState, Profile, RejectReason } from '../governance/types.ts';
import { select } from '../selector/eligible-tools.ts';
import { selectorIndex } from '../selector/selector-index.ts';
import { listCandidates, type Annotations } from './annotations.ts';
import type { ReviewReport } from './tracegraph-report.ts';

export const REVIEW_PLAN_KIND = 'toolgraph.policy-review-plan';

export interface ReviewPlanCandidate {
  readonly candidate_id: string;
  readonly run_id: string;
  readonly pattern_id: string;
  readonly pattern_version: number;
  readonly tool_key: string;
  readonly artifact_digest: string;
  readonly current_decision: 'eligible' | 'rejected';
  readonly current_reason: RejectReason | null;
  readonly current_paths: readonly string[];
  readonly recommended_action: 'review_governance_manifest';
  readonly automatic_change: false;
}

export interface ReviewPlan {
  readonly schema_version: 1;
  readonly kind: typeof REVIEW_PLAN_KIND;
  readonly created_at: string;
  readonly source_report_digest: string;
  readonly graph_state: GraphState;
  readonly agent: string;
  readonly profile: Profile;
  readonly decision_mode: 'human_required';
  readonly automatic_change: false;
  readonly candidates: readonly ReviewPlanCandidate[];
}

export type ReviewPlanOutcome =
  | { readonly ok: true; readonly plan: ReviewPlan }
  | { readonly ok: false; readonly why: 'AGENT_NOT_FOUND' | 'NO_ACCEPTED_CANDIDATE' };

export function reviewPlan(estate: Estate, report: ReviewReport, annotations: Annotations, options: { agent: string; profile: Profile; createdAt: string; graphState: GraphState }): ReviewPlanOutcome {
  const idx = selectorIndex(estate);
  const view = idx.agent(options.agent);
  if (!view) return { ok: false, why: 'AGENT_NOT_FOUND' };
  const accepted = listCandidates(report, annotations, 'accepted').candidates;
  if (accepted.length === 0) return { ok: false, why: 'NO_ACCEPTED_CANDIDATE' };
  const candidates = accepted.map((c): ReviewPlanCandidate => {
    const s = select(idx, view, c.tool_key, options.profile);
    return {
      candidate_id: c.candidate_id,
      run_id: c.run_id,
      pattern_id: c.pattern_id,
      pattern_version: c.pattern_version,
      tool_key: c.tool_key,
      artifact_digest: c.artifact_digest,
      current_decision: s.eligible ? 'eligible' : 'rejected',
      current_reason: s.eligible ? null : s.row.reason,
      current_paths: s.eligible ? [] : [...(s.row.paths ?? [])],
      recommended_action: 'review_governance_manifest',
      automatic_change: false,
    };
  });
  return {
    ok: true,
    plan: {
      schema_version: 1,
      kind: REVIEW_PLAN_KIND,
      created_at: options.createdAt,
      source_report_digest: report.source_report_digest,
      graph_state: options.graphState,
      agent: options.agent,
      profile: options.profile,
      decision_mode: 'human_required',
      automatic_change: false,
      candidates,
    },
  };
}
