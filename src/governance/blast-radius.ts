/**
 * `blast-radius RESOURCE_OR_POLICY`: which tools and agents a change to a resource or a policy
 * affects. A URI-shaped argument is tried as a resource first, then as a policy id; anything else
 * the other way round. An unknown name is `found: false`, never an empty answer.
 */
import type { Estate } from './estate.ts';
import { cmp } from './estate.ts';
import { reportProvenance } from './provenance.ts';
import { resourceKey } from './resource-uri.ts';
import type { ReportedProvenance } from './types.ts';

export interface AffectedTool {
  readonly tool_key: string;
  /** READS/WRITES of the resource, or GOVERNED_BY when the policy governs the tool directly. */
  readonly via: 'READS' | 'WRITES' | 'GOVERNED_BY';
  readonly resource: string | null;
  readonly provenance: ReportedProvenance;
}

export interface BlastRadiusResult {
  readonly target: string;
  readonly kind: 'resource' | 'policy' | null;
  readonly found: boolean;
  readonly policies: readonly { id: string; effect: string; resource: string | null }[];
  readonly resources: readonly string[];
  readonly tools: readonly AffectedTool[];
  readonly agents: readonly { agent: string; tools: readonly string[] }[];
}

const URI_SHAPED = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

export function blastRadius(estate: Estate, target: string): BlastRadiusResult {
  const key = URI_SHAPED.test(target) ? resourceKey(target) : target;
  const asResource = estate.resources.has(key);
  const asPolicy = estate.policies.has(target);
  const kind = URI_SHAPED.test(target) ? (asResource ? 'resource' : asPolicy ? 'policy' : null) : asPolicy ? 'policy' : asResource ? 'resource' : null;
  if (kind === null) return { target, kind: null, found: false, policies: [], resources: [], tools: [], agents: [] };

  const tools: AffectedTool[] = [];
  const resources = new Set<string>();
  const policies: { id: string; effect: string; resource: string | null }[] = [];
  const addResource = (uri: string) => {
    resources.add(uri);
    for (const a of estate.accessByResource.get(uri) ?? []) tools.push({ tool_key: a.tool_key, via: a.mode, resource: uri, provenance: reportProvenance(a.provenance) });
  };
  if (kind === 'resource') {
    addResource(key);
    for (const b of estate.bindingsByTarget.get(key) ?? []) policies.push({ id: b.policy, effect: estate.policies.get(b.policy)!.effect, resource: key });
  } else {
    const p = estate.policies.get(target)!;
    for (const b of estate.bindingsByPolicy.get(target) ?? []) {
      if (b.target_kind === 'resource') {
        policies.push({ id: p.id, effect: p.effect, resource: b.target_key });
        addResource(b.target_key);
      } else {
        policies.push({ id: p.id, effect: p.effect, resource: null });
        tools.push({ tool_key: b.target_key, via: 'GOVERNED_BY', resource: null, provenance: reportProvenance(b.provenance) });
      }
    }
  }
  tools.sort((a, b) => cmp(a.tool_key, b.tool_key) || cmp(a.resource ?? '', b.resource ?? '') || cmp(a.via, b.via));
  const agentTools = new Map<string, Set<string>>();
  for (const t of tools) {
    for (const g of estate.grantsByTool.get(t.tool_key) ?? []) {
      let set = agentTools.get(g.agent);
      if (!set) agentTools.set(g.agent, (set = new Set()));
      set.add(t.tool_key);
    }
  }
  const agents = [...agentTools.entries()].sort((a, b) => cmp(a[0], b[0])).map(([agent, set]) => ({ agent, tools: [...set].sort(cmp) }));
  policies.sort((a, b) => cmp(a.id, b.id) || cmp(a.resource ?? '', b.resource ?? ''));
  return { target, kind, found: true, policies, resources: [...resources].sort(cmp), tools, agents };
}
