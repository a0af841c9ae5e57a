/**
 * Levels and collapse (reference: beam_mcp docs/connectome.md, "Level"). Collapsing maps every
 * node finer than the target level onto the node that contains it at that level and keeps the
 * rest; it is a view, a new graph, and the graph as built (with its finest level) is untouched.
 *
 * Containment comes from the identity a node was built from (an mfa is in its module; every part
 * is in its server) or from an explicit `groups` map (node id -> containing node id), which is
 * how module-to-boundary membership is declared. A node with no container is refused, never
 * guessed; so is an edge merge that would have to choose between two different signs.
 */
import { ToolgateError } from '../errors.ts';
import { buildGraph, checkGraph, nodeFromIdentity, type ConnectomeEdge, type ConnectomeNode, type Graph, type GraphInput } from './graph.ts';
import { levelOf, type Identity } from './identity.ts';
import { nfc } from './strings.ts';
import { isLevel, levelRank, type Level } from './vocabulary.ts';

export interface CollapseOptions {
  /** Node id -> the id of the node containing it one or more levels up. Consulted before identities. */
  readonly groups?: ReadonlyMap<string, string> | { readonly [id: string]: string };
}

/** The container the identity alone names: an mfa's module; anything's server, when collapsing to `server`. */
function parentIdentity(identity: Identity, target: Level): Identity | undefined {
  if (identity.tag === 'mfa') return { tag: 'module', server: identity.server, module: identity.module };
  if (target === 'server') return { tag: 'server', server: identity.server };
  return undefined;
}

function refuse(text: string, path: string): never {
  throw new ToolgateError('GRAPH_INVALID', text, { at: [{ file: '<graph>', path }] });
}

/**
 * The view of `graph` at `level`.
 * @example collapse(g, 'server').finestLevel // 'server'
 */
export function collapse(graph: Graph | GraphInput, level: Level, options: CollapseOptions = {}): Graph {
  if (!isLevel(level)) refuse(`unknown level ${JSON.stringify(level)}`, 'level');
  const g = checkGraph(graph);
  const target = levelRank(level);
  const groups = new Map<string, string>();
  const given = options.groups;
  if (given instanceof Map) for (const [k, v] of given) groups.set(nfc(k), nfc(v));
  else if (given) for (const k of Object.keys(given)) groups.set(nfc(k), nfc((given as Record<string, string>)[k]!));

  const nodes = new Map<string, ConnectomeNode>();
  for (const n of g.nodes) if (levelRank(n.level) >= target) nodes.set(n.id, n);
  const mapped = new Map<string, string>();
  const grouped = new Set<string>();
  const containerOf = (n: ConnectomeNode): string => {
    let cur = n;
    for (let step = 0; levelRank(cur.level) < target; step++) {
      if (step > 8) refuse(`node ${JSON.stringify(n.id)}: containment does not reach level ${level}`, `nodes.${n.id}`);
      const explicit = groups.get(cur.id);
      if (explicit !== undefined) grouped.add(cur.id);
      let next: ConnectomeNode | undefined;
      if (explicit !== undefined) {
        next = g.node(explicit) ?? nodes.get(explicit);
        if (!next) refuse(`node ${JSON.stringify(cur.id)}: its group ${JSON.stringify(explicit)} is not a node of the graph`, `groups.${cur.id}`);
      } else if (cur.identity && parentIdentity(cur.identity, level)) {
        const pid = parentIdentity(cur.identity, level)!;
        const built = nodeFromIdentity(pid);
        next = g.node(built.id) ?? nodes.get(built.id) ?? built;
        if (levelOf(pid) !== next.level) refuse(`node ${JSON.stringify(built.id)} is not at the level its identity implies`, `nodes.${built.id}`);
      } else {
        refuse(`node ${JSON.stringify(cur.id)} (level ${cur.level}) has no container at level ${level}: give it a group`, `nodes.${cur.id}`);
      }
      if (levelRank(next.level) <= levelRank(cur.level)) {
        refuse(`node ${JSON.stringify(cur.id)}: its container ${JSON.stringify(next.id)} is not at a coarser level (${next.level})`, `groups.${cur.id}`);
      }
      cur = next;
    }
    if (!nodes.has(cur.id)) nodes.set(cur.id, cur);
    return cur.id;
  };
  for (const n of g.nodes) mapped.set(n.id, levelRank(n.level) >= target ? n.id : containerOf(n));
  // A group for a node that is neither in the graph nor a container on the way is a typo or a stale
  // file; applying the rest would hide it.
  for (const id of groups.keys()) if (!g.node(id) && !grouped.has(id)) refuse(`group for ${JSON.stringify(id)}: not a node of the graph`, `groups.${id}`);

  const edges = new Map<string, ConnectomeEdge>();
  for (const e of g.edges) {
    const from = mapped.get(e.from)!;
    const to = mapped.get(e.to)!;
    const key = `${from}\u0000${to}\u0000${e.kind}\u0000${e.provenance}`;
    const prev = edges.get(key);
    if (!prev) {
      edges.set(key, from === e.from && to === e.to ? e : { ...e, from, to });
      continue;
    }
    if (prev.sign !== e.sign) {
      refuse(
        `collapsing to ${level} merges edges into ${JSON.stringify(from)} -> ${JSON.stringify(to)} (${e.kind}, ${e.provenance}) carrying different signs (${prev.sign}, ${e.sign}); a view never chooses a sign`,
        `edges.${e.from}->${e.to}`,
      );
    }
    if (e.weight !== undefined || prev.weight !== undefined) {
      const a = prev.weight ?? 0;
      const b = e.weight ?? 0;
      const weight = typeof a === 'bigint' || typeof b === 'bigint' ? BigInt(a) + BigInt(b) : a + b;
      edges.set(key, { ...prev, weight });
    }
  }
  return buildGraph({ nodes: [...nodes.values()], edges: [...edges.values()] });
}
