/**
 * The product-neutral policy bundle (`toolgate.policy-bundle`, schema_version 1;
 * schemas/policy-bundle.schema.json). Sparse by design: each exposed tool once, and per agent one
 * decision per granted tool; every other (agent, tool) pair is the bundle's stated default,
 * rejected NOT_GRANTED. So the bundle grows with grants, not with agents x tools.
 */
import type { Estate } from '../governance/estate.ts';
import { cmp } from '../governance/estate.ts';
import type { GraphState, Profile } from '../governance/types.ts';
import type { CanonicalText } from '../canonical/json.ts';
import type { CatalogTool } from '../catalog/types.ts';
import { toolContractDigest } from './digests.ts';

export const POLICY_BUNDLE_KIND = 'toolgate.policy-bundle';

export interface BundleHeader {
  readonly created_at: string;
  readonly profile: Profile;
  readonly graph_state: GraphState;
  readonly governance_digest: string;
  readonly catalog_digest: string;
  readonly connectome_digest: string | null;
}

export interface ExposedTool {
  readonly tool_key: string;
  readonly server: string;
  readonly name: string;
  readonly tool_contract_digest: string;
}

/** The tools a server exposes, sorted by key; `digestOf` lets a recompile reuse digests it already has. */
export function exposedTools(estate: Estate, digestOf: (server: string, tool: CatalogTool) => string = toolContractDigest): ExposedTool[] {
  const out: ExposedTool[] = [];
  for (const t of estate.tools.values()) {
    if (!t.exposed || !t.contract || t.server === null) continue;
    out.push({ tool_key: t.key, server: t.server, name: t.name, tool_contract_digest: digestOf(t.server, t.contract) });
  }
  return out.sort((a, b) => cmp(a.tool_key, b.tool_key));
}

/** One exposed tool's entry in the bundle's `tools` list. */
export function bundleToolEntry(t: ExposedTool): Record<string, unknown> {
  return { tool_key: t.tool_key, server: t.server, name: t.name, tool_contract_digest: t.tool_contract_digest };
}

/**
 * The bundle, with its two large members given as canonical text: `tools` (the entries of
 * `bundleToolEntry` in tool-key order) and `agents` (src/compile/decisions-json.ts), so a
 * recompile can splice in the parts it did not recompute.
 */
export function compilePolicyBundle(header: BundleHeader, tools: CanonicalText, agents: CanonicalText): Record<string, unknown> {
  return {
    kind: POLICY_BUNDLE_KIND,
    schema_version: 1,
    created_at: header.created_at,
    profile: header.profile,
    graph_state: header.graph_state,
    governance_digest: header.governance_digest,
    catalog_digest: header.catalog_digest,
    connectome_digest: header.connectome_digest,
    default: { decision: 'rejected', reason: 'NOT_GRANTED' },
    tools,
    agents,
  };
}
