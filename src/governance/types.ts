/** Result shapes of the governance queries (the JSON the CLI prints). */
import type { Provenance } from '../manifest/types.ts';

export type Verdict = 'ALLOW' | 'DENY' | 'NOT_GRANTED' | 'AGENT_NOT_FOUND' | 'TOOL_NOT_FOUND' | 'AMBIGUOUS_TOOL';
export type Classification = 'violation' | 'authorized_but_governed';
export type Profile = 'strict' | 'review' | 'explore';
export const PROFILES: readonly Profile[] = ['strict', 'review', 'explore'];

export type RejectReason = 'TOOL_NOT_FOUND' | 'AMBIGUOUS_TOOL' | 'NOT_GRANTED' | 'DENY_VIOLATION' | 'DENY_GOVERNED' | 'DRIFTED' | 'UNMAPPED';

/**
 * Provenance as reported: every field present; source and confidence default to
 * `operator_asserted` / `high` (the peer's defaults), evidence is null where the author cited none.
 * The null in the type is kept for callers that report a crawled fact without provenance.
 */
export interface ReportedProvenance {
  readonly source: Provenance['source'] | null;
  readonly confidence: Provenance['confidence'] | null;
  readonly evidence: string | null;
}

export interface GraphState {
  readonly instance_id: string;
  readonly generation: number;
}

/** One way a tool reaches a DENY policy, independent of the agent. */
export interface DenyReach {
  readonly tool_key: string;
  /** The governed resource, or null when the tool itself is governed. */
  readonly resource: string | null;
  /** READS / WRITES for a resource path; GOVERNED_BY when the tool is governed directly. */
  readonly via: 'READS' | 'WRITES' | 'GOVERNED_BY';
  readonly policy: string;
  readonly scope: string | null;
  /** The data-flow edge that put the row here (the binding itself for a direct tool binding). */
  readonly provenance: ReportedProvenance;
  /** The GOVERNED_BY binding's provenance, present only when the author cited one. */
  readonly policy_provenance?: ReportedProvenance;
}

export interface DenyEvidence extends DenyReach {
  readonly agent: string;
  readonly path: string;
  readonly classification: Classification;
  readonly exception_reason?: string;
}

export type ToolResolution =
  | { readonly status: 'found'; readonly key: string }
  | { readonly status: 'not_found' }
  | { readonly status: 'ambiguous'; readonly candidates: readonly string[] };
