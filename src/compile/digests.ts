/**
 * The digest each tool's entry in a bundle is bound to, tool_contract_digest: the peer's tool-contract
 * fingerprint, SHA-256 over the canonical JSON (src/canonical/json.ts) of {server, name, description,
 * input_schema, read_only_hint, destructive_hint, idempotent_hint, open_world_hint} (null where
 * absent) followed by one LF; matches the peer's test vector. The digests of the whole manifest and
 * catalog are governance/input-digests.ts.
 */
import { canonicalBytes } from '../canonical/json.ts';
import { digestHex } from '../canonical/digest.ts';
import type { CatalogTool } from '../catalog/types.ts';

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
