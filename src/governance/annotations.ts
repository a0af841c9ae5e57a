/**
 * MCP tool annotations as self-claims: what a server says about its own
 * tool (`readOnlyHint`, `destructiveHint`, `idempotentHint`, `openWorldHint`). They are reported
 * with provenance `crawled` / `medium`, one tier below what the protocol shows (a server exposing
 * a tool), and they never create READS/WRITES/GOVERNED_BY edges: only two audits and the
 * selector's feature rows read them.
 */
import type { Estate } from './estate.ts';
import type { ReportedProvenance } from './types.ts';

export { ANNOTATION_HINTS as HINTS, type AnnotationHint as Hint } from '../catalog/types.ts';
import type { AnnotationHint as Hint } from '../catalog/types.ts';

/** Each hint as the server sent it, null where it sent none (or sent a non-boolean). */
export type AnnotationClaims = { readonly [H in Hint]: boolean | null };

export function annotationClaims(estate: Estate, toolKey: string): AnnotationClaims {
  const a = estate.tools.get(toolKey)?.contract?.annotations;
  const get = (h: Hint): boolean | null => (typeof a?.[h] === 'boolean' ? (a[h] as boolean) : null);
  return { readOnlyHint: get('readOnlyHint'), destructiveHint: get('destructiveHint'), idempotentHint: get('idempotentHint'), openWorldHint: get('openWorldHint') };
}

/** The provenance of one hint: crawled, medium confidence, citing the server's tools/list answer. */
export function hintProvenance(estate: Estate, toolKey: string, hint: Hint): ReportedProvenance {
  const tool = estate.tools.get(toolKey);
  const when = estate.catalog.crawled_at ? ` (catalog crawled ${estate.catalog.crawled_at})` : '';
  return {
    source: 'crawled',
    confidence: 'medium',
    evidence: `${tool?.server ?? '?'} tools/list: ${tool?.name ?? toolKey}.annotations.${hint}${when}`,
  };
}
