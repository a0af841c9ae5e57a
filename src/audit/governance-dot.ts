/**
 * The governance graph as DOT for the HTML report: Agent -CAN_CALL-> Tool -READS|WRITES->
 * Resource -GOVERNED_BY-> Policy (and Tool -GOVERNED_BY-> Policy). Edges on a DENY path are
 * coloured: red for a violation, orange where an expected exception authorizes it; each such edge
 * carries the SVG class `deny_path` plus `violation` or `authorized`. DENY policies are drawn red,
 * ALLOW policies green. It draws the whole estate: callers check governancePictureNodes against
 * MAX_PICTURE_NODES first (Graphviz takes minutes on thousands of edges and the result is unreadable).
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { scrubUri } from '../governance/provenance.ts';
import { attrs, q } from './dot.ts';
import type { AuditReport } from './report.ts';

type Kind = 'agent' | 'tool' | 'resource' | 'policy';
type EdgeKind = 'CAN_CALL' | 'READS' | 'WRITES' | 'GOVERNED_BY';

const NODE_STYLE: Record<Kind, Record<string, string>> = {
  agent: { shape: 'box', style: 'filled,rounded', fillcolor: '#dbe9ff', color: '#3b6fb6' },
  tool: { shape: 'ellipse', style: 'filled', fillcolor: '#f4f4f4', color: '#777777' },
  resource: { shape: 'note', style: 'filled', fillcolor: '#fff8dc', color: '#a08a3c' },
  policy: { shape: 'octagon', style: 'filled', fillcolor: '#e6f4e6', color: '#2e7d32' },
};

const RANK = { plain: 0, authorized: 1, violation: 2 } as const;

export interface GovernancePicture {
  readonly dot: string;
  readonly nodes: number;
  readonly denyEdges: number;
}

/** How many nodes the whole governance picture would have, at most (agents, granted and accessing tools, resources, policies). */
export function governancePictureNodes(estate: Estate): number {
  return estate.manifest.agents.length + estate.grantsByTool.size + estate.accessByTool.size + estate.resources.size + estate.policies.size;
}

export function governanceDot(estate: Estate, report: AuditReport): GovernancePicture {
  const id = (k: Kind, name: string) => `${k}:${name}`;
  const nodes = new Map<string, { kind: Kind; label: string }>();
  const edges = new Map<string, { from: string; to: string; kind: EdgeKind; cls?: 'violation' | 'authorized' }>();
  const node = (k: Kind, name: string) => {
    const i = id(k, name);
    if (!nodes.has(i)) nodes.set(i, { kind: k, label: k === 'resource' ? scrubUri(name) : name });
    return i;
  };
  const edge = (from: string, to: string, kind: EdgeKind, cls?: 'violation' | 'authorized') => {
    const k = `${from}\u0000${to}\u0000${kind}`;
    // violation outranks authorized, which outranks a plain edge
    const prev = edges.get(k)?.cls;
    const next = RANK[cls ?? 'plain'] > RANK[prev ?? 'plain'] ? cls : prev;
    edges.set(k, { from, to, kind, ...(next ? { cls: next } : {}) });
  };

  for (const a of estate.manifest.agents) node('agent', a.id);
  for (const p of estate.manifest.policies) node('policy', p.id);
  for (const grants of estate.grantsByAgent.values()) for (const g of grants.values()) edge(node('agent', g.agent), node('tool', g.tool_key), 'CAN_CALL');
  for (const list of estate.accessByTool.values()) for (const x of list) edge(node('tool', x.tool_key), node('resource', x.resource), x.mode);
  for (const list of estate.bindingsByPolicy.values()) {
    for (const b of list) edge(node(b.target_kind === 'tool' ? 'tool' : 'resource', b.target_key), node('policy', b.policy), 'GOVERNED_BY');
  }
  let denyEdges = 0;
  for (const ex of report.exposure) {
    for (const p of ex.deny_paths) {
      const cls = p.classification === 'violation' ? 'violation' : 'authorized';
      const t = node('tool', p.tool_key);
      edge(node('agent', ex.agent), t, 'CAN_CALL', cls);
      if (p.resource === null) edge(t, node('policy', p.policy), 'GOVERNED_BY', cls);
      else {
        // the report's resource is scrubbed; find the authored URI it came from for the node id
        const raw = (estate.accessByTool.get(p.tool_key) ?? []).find((x) => scrubUri(x.resource) === p.resource && (estate.bindingsByTarget.get(x.resource) ?? []).some((b) => b.policy === p.policy));
        const r = node('resource', raw?.resource ?? p.resource);
        edge(t, r, raw?.mode ?? 'READS', cls);
        edge(r, node('policy', p.policy), 'GOVERNED_BY', cls);
      }
    }
  }
  const lines = ['digraph governance {', '  graph [rankdir=LR, bgcolor="white", fontname="Helvetica", nodesep=0.25, ranksep=0.9];', '  node [fontname="Helvetica", fontsize=11];', '  edge [fontname="Helvetica", fontsize=9];'];
  for (const [i, n] of [...nodes.entries()].sort((a, b) => cmp(a[0], b[0]))) {
    const style = { ...NODE_STYLE[n.kind] };
    if (n.kind === 'policy' && estate.policies.get(n.label)?.effect === 'DENY') Object.assign(style, { fillcolor: '#fde2e2', color: '#c62828' });
    const label = n.kind === 'policy' ? `${n.label}\n${estate.policies.get(n.label)?.effect ?? ''}` : n.label;
    lines.push(`  ${q(i)}${attrs({ ...style, label, class: `node_${n.kind}` })};`);
  }
  for (const e of [...edges.values()].sort((a, b) => cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.kind, b.kind))) {
    if (e.cls) denyEdges++;
    const color = e.cls === 'violation' ? '#d32f2f' : e.cls === 'authorized' ? '#ef8f00' : '#9e9e9e';
    lines.push(`  ${q(e.from)} -> ${q(e.to)}${attrs({ label: e.kind, color, fontcolor: color, penwidth: e.cls ? 2.4 : 1, class: e.cls ? `deny_path ${e.cls}` : 'plain' })};`);
  }
  lines.push('}', '');
  return { dot: lines.join('\n'), nodes: nodes.size, denyEdges };
}
