/** Provenance as queries report it, and scrubbing of URIs that appear in evidence paths. */
import type { Provenance } from '../manifest/types.ts';
import type { ReportedProvenance } from './types.ts';

/**
 * Provenance as reported for an authored edge. An omitted `source` is `operator_asserted` and an
 * omitted `confidence` is `high`, the peer's defaults (an edge the operator wrote down is the
 * operator's assertion); an omitted `evidence` stays null, which is what makes an edge unbacked.
 */
export function reportProvenance(p: Provenance | undefined): ReportedProvenance {
  return { source: p?.source ?? 'operator_asserted', confidence: p?.confidence ?? 'high', evidence: p?.evidence ?? null };
}

/** An authored edge is backed when it cites evidence. */
export function isBacked(p: Provenance | undefined): boolean {
  return typeof p?.evidence === 'string' && p.evidence.trim() !== '';
}

/** Drops userinfo, query and fragment from a URI-shaped string, so evidence never leaks credentials. */
export function scrubUri(s: string): string {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(\/\/)?(.*)$/.exec(s);
  if (!m) return s;
  let rest = m[3]!;
  if (m[2]) {
    const slash = rest.search(/[/?#]/);
    const authority = slash === -1 ? rest : rest.slice(0, slash);
    const at = authority.lastIndexOf('@');
    if (at !== -1) rest = authority.slice(at + 1) + (slash === -1 ? '' : rest.slice(slash));
  }
  const cut = rest.search(/[?#]/);
  if (cut !== -1) rest = rest.slice(0, cut);
  return `${m[1]}${m[2] ?? ''}${rest}`;
}
