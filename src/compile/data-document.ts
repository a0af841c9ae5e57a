/**
 * The OPA data document, everything under the root `toolgate` (`data.toolgate` in OPA):
 * per agent, per granted tool, the decision and reason; tools with contract digests and annotation
 * self-claims; policies; digests and graph_state; and, when a connectome is compiled, its edges
 * with their signs. Sparse: a pair that is not granted is absent, and the Rego answers NOT_GRANTED.
 *
 * `signs_by_tool` indexes the signs the enforcement Rego reads: for each exposed tool that an
 * invoke edge signed `deny` or `hold` ends at, `{deny, hold}`. authz.rego looks a call's tool up
 * there (one lookup per decision) instead of scanning every edge; tools with neither sign are absent.
 *
 * `identity`, `tools_by_name`, `contracts`, `resources`, `prompts` and `prompts_by_name` are what the
 * gateway entrypoints read (gateway-data.ts, docs/gateways.md).
 *
 * The members that grow with the estate (`agents`, `tools`, `contracts`, `connectome`) come in as
 * canonical text built from per-agent and per-tool pieces (`toolDocument`, `toolContracts`), so a
 * recompile re-encodes only the pieces a change touched (src/compile/incremental/).
 */
import { hintsSent } from '../catalog/types.ts';
import type { Estate } from '../governance/estate.ts';
import { cmp } from '../governance/estate.ts';
import { nodeId } from '../connectome/index.ts';
import type { CanonicalText } from '../canonical/json.ts';
import type { BundleHeader, ExposedTool } from './policy-bundle.ts';
import { identityDocument, toolsByName } from './gateway-data.ts';

export const DATA_ROOT = 'toolgate';

/** A connectome edge as the data document carries it (filled by the connectome compile step). */
export interface DataEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: string;
  readonly provenance: string;
  readonly sign: string;
}

/** The enforcing signs on invoke edges, per qualified tool key (see the module comment). */
export function signsByTool(tools: readonly ExposedTool[], edges: readonly DataEdge[]): Record<string, { deny: boolean; hold: boolean }> {
  // Keyed by names from the inputs: no prototype, so an id "__proto__" is an ordinary key.
  const out: Record<string, { deny: boolean; hold: boolean }> = Object.create(null) as Record<string, { deny: boolean; hold: boolean }>;
  if (!edges.some((e) => e.sign === 'deny' || e.sign === 'hold')) return out;
  const keyOfNode = new Map<string, string>();
  for (const t of tools) keyOfNode.set(nodeId({ tag: 'tool', server: t.server, name: t.name }), t.tool_key);
  for (const e of edges) {
    if (e.kind !== 'invoke' || (e.sign !== 'deny' && e.sign !== 'hold')) continue;
    const key = keyOfNode.get(e.to);
    if (key === undefined) continue;
    const entry = (out[key] ??= { deny: false, hold: false });
    entry[e.sign] = true;
  }
  return out;
}

/** One exposed tool's entry under `tools`: where it lives, its contract digest, the hints it sends. */
export function toolDocument(estate: Estate, t: ExposedTool): Record<string, unknown> {
  const claims = hintsSent(estate.tools.get(t.tool_key)?.contract?.annotations);
  return { server: t.server, name: t.name, tool_contract_digest: t.tool_contract_digest, annotations: claims };
}

/** The large members, already canonical text (see the module comment). */
export interface DataDocumentParts {
  /** `{agent: {"tools": {...}}}` (src/compile/decisions-json.ts). */
  readonly agents: CanonicalText;
  /** `{tool_key: toolDocument(...)}`. */
  readonly tools: CanonicalText;
  /** `{tool_key: fields}` as `toolContracts` gives them. */
  readonly contracts: CanonicalText;
  /** The connectome's edge list. */
  readonly edges: CanonicalText;
  /** The members derived from tools, edges, resources and prompts (`derivedMembers`), as values or as their canonical text. */
  readonly derived: DerivedMembers<unknown>;
}

/** The members computed from the tool list and edges (`signs_by_tool`, `tools_by_name`) and from the catalog's resources and prompts with their governance (the rest). */
export interface DerivedMembers<V> {
  readonly signs_by_tool: V;
  readonly tools_by_name: V;
  readonly resources: V;
  readonly resource_templates: V;
  readonly prompts: V;
  readonly prompts_by_name: V;
}

/** The members read off the tool list and the edges. */
export function toolDerivedMembers(tools: readonly ExposedTool[], edges: readonly DataEdge[]): Pick<DerivedMembers<unknown>, 'signs_by_tool' | 'tools_by_name'> {
  return { signs_by_tool: signsByTool(tools, edges), tools_by_name: toolsByName(tools) };
}

export function compileDataDocument(estate: Estate, header: BundleHeader, parts: DataDocumentParts): Record<string, unknown> {
  const policies: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const p of [...estate.policies.values()].sort((a, b) => cmp(a.id, b.id))) {
    policies[p.id] = { effect: p.effect, scope: p.scope ?? null, description: p.description ?? null };
  }
  return {
    [DATA_ROOT]: {
      profile: header.profile,
      graph_state: header.graph_state,
      digests: { governance: header.governance_digest, catalog: header.catalog_digest, connectome: header.connectome_digest },
      default: { allow: false, reason: 'NOT_GRANTED' },
      agents: parts.agents,
      tools: parts.tools,
      policies,
      connectome: { edges: parts.edges },
      identity: identityDocument(estate),
      contracts: parts.contracts,
      ...parts.derived,
    },
  };
}
