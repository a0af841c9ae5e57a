/**
 * The declared connectome from toolgate's inputs: the catalog's servers, tools, resources,
 * resource templates and prompts (a tool dispatch is an `invoke` edge from the server; a read of
 * a resource, template or prompt is a `read` edge from the server), labelled with what the
 * catalog says (tool name, title, annotation self-claims), merged with an optional host graph
 * (process/module nodes, message/supervise/invoke edges, boundary declarations). Every sign is
 * `unset`: toolgate writes no other.
 */
import { hintsSent, type Catalog, type CatalogTool } from '../catalog/types.ts';
import { ToolgateError } from '../errors.ts';
import { buildGraph, checkGraph, nodeFromIdentity, type ConnectomeEdge, type ConnectomeNode, type Graph, type GraphInput, type LabelValue } from './graph.ts';
import { describeValue } from './describe-value.ts';
import { canonicalString } from '../canonical/json.ts';

type MutableLabels = { [key: string]: LabelValue };

function toolLabels(tool: CatalogTool): MutableLabels {
  const labels: MutableLabels = { name: tool.name };
  const title = tool.title ?? tool.annotations?.title;
  if (typeof title === 'string') labels.title = title;
  const claims = hintsSent(tool.annotations);
  if (Object.keys(claims).length > 0) labels.annotations = claims;
  return labels;
}

function partLabels(part: { name?: unknown; title?: unknown; mimeType?: unknown }): MutableLabels {
  const labels: MutableLabels = {};
  if (typeof part.name === 'string') labels.name = part.name;
  if (typeof part.title === 'string') labels.title = part.title;
  if (typeof part.mimeType === 'string') labels.mimeType = part.mimeType;
  return labels;
}

/**
 * The declared graph of a catalog, merged with a host graph when one is given. A host node that
 * shares an id with a catalog node must agree on kind and level; labels are taken from whichever
 * side has any, and two different non-empty label sets are refused. Host edges must be declared.
 * @example buildDeclaredConnectome({ servers: [{ name: 's', tools: [{ name: 't' }] }] }).edges.length // 1
 */
export function buildDeclaredConnectome(catalog: Catalog, hostGraph?: Graph | GraphInput): Graph {
  const nodes = new Map<string, ConnectomeNode>();
  const edges: ConnectomeEdge[] = [];
  const add = (n: ConnectomeNode): string => {
    nodes.set(n.id, n);
    return n.id;
  };
  for (const server of catalog.servers) {
    const s = server.name;
    const sid = add(nodeFromIdentity({ tag: 'server', server: s }));
    for (const tool of server.tools ?? []) {
      const tid = add(nodeFromIdentity({ tag: 'tool', server: s, name: tool.name }, toolLabels(tool)));
      edges.push({ from: sid, to: tid, kind: 'invoke', provenance: 'declared', sign: 'unset' });
    }
    for (const r of server.resources ?? []) {
      const rid = add(nodeFromIdentity({ tag: 'resource', server: s, name: r.uri }, partLabels(r)));
      edges.push({ from: sid, to: rid, kind: 'read', provenance: 'declared', sign: 'unset' });
    }
    for (const t of server.resourceTemplates ?? []) {
      const tid = add(nodeFromIdentity({ tag: 'resource_template', server: s, name: t.uriTemplate }, partLabels(t)));
      edges.push({ from: sid, to: tid, kind: 'read', provenance: 'declared', sign: 'unset' });
    }
    for (const p of server.prompts ?? []) {
      const pid = add(nodeFromIdentity({ tag: 'prompt', server: s, name: p.name }, partLabels({ title: p.title })));
      edges.push({ from: sid, to: pid, kind: 'read', provenance: 'declared', sign: 'unset' });
    }
  }
  if (hostGraph !== undefined) {
    const host = checkGraph(hostGraph, { source: '<host graph>' });
    const faults: string[] = [];
    host.nodes.forEach((hn, i) => {
      const cn = nodes.get(hn.id);
      if (!cn) {
        nodes.set(hn.id, hn);
        return;
      }
      if (cn.kind !== hn.kind || cn.level !== hn.level) {
        faults.push(`host node ${JSON.stringify(hn.id)} is ${hn.kind}/${hn.level} but the catalog's is ${cn.kind}/${cn.level}`);
        return;
      }
      const hostText = host.labelTexts[i]!;
      if (hostText === '{}') return;
      if (Object.keys(cn.labels).length === 0) nodes.set(hn.id, { ...cn, labels: hn.labels });
      else if (canonicalString(cn.labels) !== hostText) {
        faults.push(`host node ${JSON.stringify(hn.id)} carries labels ${hostText} that differ from the catalog's ${describeValue(cn.labels)}`);
      }
    });
    const own = new Set(edges.map((e) => `${e.from}\u0000${e.to}\u0000${e.kind}`));
    for (const he of host.edges) {
      if (he.provenance !== 'declared') {
        faults.push(`host edge ${JSON.stringify(he.from)} -> ${JSON.stringify(he.to)} (${he.kind}) has provenance ${he.provenance}: a host graph declares`);
        continue;
      }
      if (own.has(`${he.from}\u0000${he.to}\u0000${he.kind}`)) {
        if (he.sign !== 'unset') faults.push(`host edge ${JSON.stringify(he.from)} -> ${JSON.stringify(he.to)} (${he.kind}) repeats a catalog edge with sign ${he.sign}`);
        continue;
      }
      const { weight: _w, ...rest } = he;
      edges.push(rest);
    }
    if (faults.length > 0) {
      throw new ToolgateError('GRAPH_INVALID', faults[0]!, { at: [{ file: '<host graph>' }], details: faults.length > 1 ? faults : [] });
    }
  }
  return buildGraph({ nodes: [...nodes.values()], edges });
}
