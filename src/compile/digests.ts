/**
 * The digest each tool's entry in a bundle is bound to, tool_contract_digest: the peer's tool-contract
 * fingerprint, SHA-256 over the canonical JSON (src/canonical/json.ts) of {server, name, description,
 * input_schema, read_only_hint, destructive_hint, idempotent_hint, open_world_hint} (null where
 * absent) followed by one LF; matches the peer's test vector. The digests of the whole manifest and
 * catalog are governance/input-digests.ts.
 */
import { canonicalString } from '../canonical/json.ts';
import { textDigestHex } from '../canonical/digest.ts';
import type { CatalogTool } from '../catalog/types.ts';

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
  // Hashed as text: the UTF-8 bytes of canonical text and LF, without copying them into arrays per tool.
  return textDigestHex(`${canonicalString(toolContract(server, tool), { allowFloats: true })}\n`);
}
