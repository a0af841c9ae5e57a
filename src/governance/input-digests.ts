/**
 * The digests of an estate's two inputs, named by the bundle, the audit report and a run's state.
 * Both are SHA-256 over canonical JSON bytes (src/canonical/json.ts), hashed as the text is written.
 * - governance_digest: canonical bytes of the manifest as authored (key order and YAML style do not matter).
 * - catalog_digest: canonical bytes of the catalog without `crawled_at`, so re-crawling an unchanged
 *   estate changes no digest.
 */
import { canonicalTextDigestHex } from '../canonical/json.ts';
import type { Catalog } from '../catalog/types.ts';

export function governanceDigest(rawManifest: unknown): string {
  return canonicalTextDigestHex(rawManifest ?? {}, { allowFloats: true });
}

export function catalogDigest(catalog: Catalog): string {
  const { crawled_at: _ignored, ...rest } = catalog;
  return canonicalTextDigestHex(rest, { allowFloats: true });
}
