/**
 * The preflight artifact (the peer's `contracts/preflight.schema.json`, kind `toolgraph.preflight`,
 * schema_version 1): an advisory verdict for one agent over a batch of candidates, stamped with
 * the run id and the graph state it was computed from, for a run's evidence trail.
 *
 * decision: `unresolved_identity` for an agent the manifest does not name (never a false allow,
 * and nothing listed), `advisory_warn` when any candidate is rejected, else `advisory_allow`.
 * `eligible` lists each eligible tool key once, in input order; `rejected` keeps every rejected
 * candidate in input order. Resource URIs in evidence are scrubbed of userinfo, query and fragment.
 * Additive fields: graph_state (as compile derives it), graph_instance_id and the input digests
 * (the connectome digest is that of the declared graph, as a default compile computes it).
 */
import type { Estate } from '../governance/estate.ts';
import type { GraphState, Profile } from '../governance/types.ts';
import { select, type RejectedRow } from '../selector/eligible-tools.ts';
import { featureRow, type FeatureRow } from '../selector/rank-features.ts';
import { selectorIndex } from '../selector/selector-index.ts';

export const PREFLIGHT_KIND = 'toolgraph.preflight';
export const PREFLIGHT_SCHEMA_VERSION = 1;

export type PreflightDecision = 'advisory_allow' | 'advisory_warn' | 'unresolved_identity';

export interface PreflightOptions {
  readonly profile: Profile;
  readonly runId: string;
  /** RFC 3339, from the caller's clock (SOURCE_DATE_EPOCH in cli/). */
  readonly createdAt: string;
  readonly graphState: GraphState;
  readonly digests: { readonly governance_digest: string; readonly catalog_digest: string; readonly connectome_digest?: string | null };
  /** Include the full feature rows (`--features`); otherwise `features` is empty. */
  readonly features?: boolean;
}

export interface Preflight {
  readonly schema_version: 1;
  readonly kind: typeof PREFLIGHT_KIND;
  readonly run_id: string;
  readonly created_at: string;
  readonly graph_generation: number;
  readonly graph_instance_id: string;
  readonly graph_state: GraphState;
  readonly governance_digest: string;
  readonly catalog_digest: string;
  readonly connectome_digest: string | null;
  readonly agent: string;
  readonly agent_found: boolean;
  readonly profile: Profile;
  readonly mode: 'advisory';
  readonly eligible: readonly string[];
  readonly rejected: readonly RejectedRow[];
  readonly features: readonly FeatureRow[];
  readonly decision: PreflightDecision;
}

const QUALIFIED = /^[^:]+::[^:]+$/;

/** The contract's tool_key is a qualified key or null: a drifted bare-name reference has no server. */
function qualifiedOnly(row: RejectedRow): RejectedRow {
  return row.tool_key === null || QUALIFIED.test(row.tool_key) ? row : { ...row, tool_key: null };
}

export function buildPreflight(estate: Estate, agent: string, candidates: readonly string[], options: PreflightOptions): Preflight {
  const idx = selectorIndex(estate);
  const view = idx.agent(agent);
  const eligible: string[] = [];
  const seen = new Set<string>();
  const rejected: RejectedRow[] = [];
  const features: FeatureRow[] = [];
  if (view) {
    for (const c of candidates) {
      const s = select(idx, view, c, options.profile);
      if (!s.eligible) rejected.push(qualifiedOnly(s.row));
      else if (!seen.has(s.row.tool_key)) {
        seen.add(s.row.tool_key);
        eligible.push(s.row.tool_key);
      }
      if (options.features) features.push(featureRow(idx, view, c));
    }
  }
  const decision: PreflightDecision = !view ? 'unresolved_identity' : rejected.length > 0 ? 'advisory_warn' : 'advisory_allow';
  return {
    schema_version: PREFLIGHT_SCHEMA_VERSION,
    kind: PREFLIGHT_KIND,
    run_id: options.runId,
    created_at: options.createdAt,
    graph_generation: options.graphState.generation,
    graph_instance_id: options.graphState.instance_id,
    graph_state: options.graphState,
    governance_digest: options.digests.governance_digest,
    catalog_digest: options.digests.catalog_digest,
    connectome_digest: options.digests.connectome_digest ?? null,
    agent,
    agent_found: view !== undefined,
    profile: options.profile,
    mode: 'advisory',
    eligible,
    rejected,
    features,
    decision,
  };
}
