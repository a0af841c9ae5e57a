/**
 * The digests a bundle is bound to. All are SHA-256 over canonical JSON bytes (src/canonical/json.ts).
 * - tool_contract_digest: the peer's tool-contract fingerprint — canonical JSON of
 *   {server, name, description, input_schema, read_only_hint, destructive_hint, idempotent_hint,
 *   open_world_hint} (null where absent) followed by one LF; matches the peer's test vector.
 * - governance_digest: canonical bytes of the manifest as authored (key order and YAML style do not matter).
 * - catalog_digest: canonical bytes of the catalog without `crawled_at`, so re-crawling an unchanged
 *   estate changes no digest.
 */
import { canonicalBytes } from '../canonical/json.ts';
import { digestHex } from '../canonical/digest.ts';
import type { Catalog, CatalogTool } from '../catalog/types.ts';

const LF = new Uint8Array([10]);

function withLf(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out.set(bytes);
  out.set(LF, bytes.length);
  return out;
}

export function toolContract(server: string, tool: CatalogTool): Record<string, unknown> {
  const a = tool.annotations ?? {};
  const hint = (v: unknown) => (typeof v === 'boolean' ? v : null);
  return {
    server,
    name: tool.name,
    description: tool.description ?? null,
    input_schema: tool.inputSchema ?? null,
    read_only_hint: hint(a.readOnlyHint),
    destructive_hint: hint(a.destructiveHint),
    idempotent_hint: hint(a.idempotentHint),
    open_world_hint: hint(a.openWorldHint),
  };
}

export function toolContractDigest(server: string, tool: CatalogTool): string {
  return digestHex(withLf(canonicalBytes(toolContract(server, tool), { allowFloats: true })));
}

export function governanceDigest(rawManifest: unknown): string {
  return digestHex(canonicalBytes(rawManifest ?? {}, { allowFloats: true }));
}

export function catalogDigest(catalog: Catalog): string {
  const { crawled_at: _ignored, ...rest } = catalog;
  return digestHex(canonicalBytes(rest, { allowFloats: true }));
}
