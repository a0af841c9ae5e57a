/**
 * `rank-features AGENT CANDIDATES...`: per candidate, in input order, the facts a consumer's
 * ranker may use: resolution, grant, verdict, DENY classification with evidence paths, drift,
 * mapping, evidence coverage, the four annotation self-claims and the rule-based risk score (the
 * peer's fixed table, `riskScore`). Deterministic, no relevance scoring. Ambiguous bare names are
 * reported with their candidates and never resolved; an unknown tool is a row, not an error.
 * Resource URIs are scrubbed of userinfo, query and fragment.
 */
import { riskScore, type Assessment } from '../governance/assess.ts';
import type { AnnotationClaims } from '../governance/annotations.ts';
import type { Estate } from '../governance/estate.ts';
import { isBacked, scrubUri } from '../governance/provenance.ts';
import type { Classification, ReportedProvenance, Verdict } from '../governance/types.ts';
import { selectorIndex, type AgentView, type SelectorIndex } from './selector-index.ts';

export interface DenyFeature {
  readonly policy: string;
  readonly resource: string | null;
  readonly via: 'READS' | 'WRITES' | 'GOVERNED_BY';
  readonly classification: Classification;
  readonly path: string;
  readonly exception_reason?: string;
}

export interface FeatureRow {
  readonly candidate: string;
  readonly found: boolean;
  readonly ambiguous: boolean;
  readonly tool_key: string | null;
  /** Every tool key an ambiguous bare name matched. */
  readonly candidates?: readonly string[];
  readonly granted: boolean;
  readonly verdict: Exclude<Verdict, 'AGENT_NOT_FOUND'>;
  readonly deny: readonly DenyFeature[];
  readonly violations: number;
  readonly authorized_but_governed: number;
  readonly drifted: boolean | null;
  readonly mapped: boolean | null;
  readonly unbacked: boolean | null;
  /** Authored edges the decision rests on (grant, data access, bindings on the path) and how many cite evidence. */
  readonly evidence_coverage: { readonly edges: number; readonly backed: number } | null;
  readonly annotations: (AnnotationClaims & { readonly provenance: ReportedProvenance }) | null;
  /** The peer's rule table; null for a candidate that did not resolve to one tool. */
  readonly risk_score: number | null;
}

export interface RankFeaturesResult {
  readonly agent: string;
  readonly agent_found: boolean;
  readonly rows: readonly FeatureRow[];
}

function unresolvedRow(candidate: string, verdict: 'TOOL_NOT_FOUND' | 'AMBIGUOUS_TOOL', candidates?: readonly string[]): FeatureRow {
  return {
    candidate,
    found: false,
    ambiguous: verdict === 'AMBIGUOUS_TOOL',
    tool_key: null,
    ...(candidates ? { candidates } : {}),
    granted: false,
    verdict,
    deny: [],
    violations: 0,
    authorized_but_governed: 0,
    drifted: null,
    mapped: null,
    unbacked: null,
    evidence_coverage: null,
    annotations: null,
    risk_score: null,
  };
}

/** One candidate's feature row for an agent the index knows. */
export function featureRow(idx: SelectorIndex, view: AgentView, candidate: string): FeatureRow {
  const r = idx.resolve(candidate);
  if (r.status === 'not_found') return unresolvedRow(candidate, 'TOOL_NOT_FOUND');
  if (r.status === 'ambiguous') return unresolvedRow(candidate, 'AMBIGUOUS_TOOL', r.candidates);
  const facts = idx.tool(r.key);
  const claims = idx.claims(r.key);
  const a: Assessment = idx.assess(view, r.key);
  const grant = view.grants.get(r.key);
  const deny = a.deny_evidence.map((e) => ({
    policy: e.policy,
    resource: e.resource === null ? null : scrubUri(e.resource),
    via: e.via,
    classification: e.classification,
    path: e.path,
    ...(e.exception_reason !== undefined ? { exception_reason: e.exception_reason } : {}),
  }));
  const grantEdge = grant ? 1 : 0;
  const grantBacked = grant && isBacked(grant.provenance) ? 1 : 0;
  return {
    candidate,
    found: true,
    ambiguous: false,
    tool_key: r.key,
    granted: a.granted,
    verdict: !a.granted ? 'NOT_GRANTED' : deny.length > 0 ? 'DENY' : 'ALLOW',
    deny,
    violations: a.violations,
    authorized_but_governed: deny.length - a.violations,
    drifted: !a.exposed,
    mapped: a.mapped,
    unbacked: a.unbacked,
    evidence_coverage: { edges: facts.edges + grantEdge, backed: facts.backed + grantBacked },
    annotations: { ...claims.claims, provenance: claims.claimsProvenance },
    risk_score: riskScore(a),
  };
}

export function rankFeatures(estate: Estate, agent: string, candidates: readonly string[]): RankFeaturesResult {
  const idx = selectorIndex(estate);
  const view = idx.agent(agent);
  if (!view) return { agent, agent_found: false, rows: [] };
  return { agent, agent_found: true, rows: candidates.map((c) => featureRow(idx, view, c)) };
}
