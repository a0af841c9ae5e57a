/**
 * Reachability over a connectome (reference: beam_mcp docs/connectome-reach.md): is `to`
 * reachable from `from`; a shortest witness path that crosses none of the gates; does a gate
 * dominate a target from the entry set (by definition: two searches); the dominators of a target
 * (Lengauer-Tarjan, simple variant with path compression). Signs are not read.
 *
 * Refusals, in this order: the options (an unknown option or one the question cannot use, a
 * wrong shape, an edge kind outside the vocabulary, an entry the graph does not hold), the edge
 * cap, the graph check, then the ids given as arguments. Enumerating all paths is always refused.
 */
import { ToolgateError } from '../errors.ts';
import { checkGraph, isGraph, type ConnectomeEdge, type Graph, type GraphInput } from './graph.ts';
import { describeValue } from './describe-value.ts';
import { nfc } from './strings.ts';
import { EDGE_KINDS, isEdgeKind, type EdgeKind } from './vocabulary.ts';

export const DEFAULT_MAX_EDGES = 1_000_000;

export interface PathOptions {
  readonly kinds?: readonly EdgeKind[];
  readonly maxHops?: number;
  readonly maxEdges?: number;
}
export interface DominanceOptions {
  readonly kinds?: readonly EdgeKind[];
  readonly entries?: readonly string[];
  readonly maxEdges?: number;
}

/** A witness: `nodes` from start to end, `edges` one graph edge per step. */
export interface WitnessPath {
  readonly nodes: readonly string[];
  readonly edges: readonly ConnectomeEdge[];
}

function refuse(text: string, path = ''): never {
  throw new ToolgateError('REACH_REFUSED', text, { at: [{ file: '<reach>', path }] });
}

interface Resolved {
  kinds: Set<EdgeKind>;
  maxHops: number;
  maxEdges: number;
  entries: string[] | undefined;
}

function rawIds(graph: Graph | GraphInput): Set<string> {
  const ids = new Set<string>();
  const nodes = (graph as GraphInput).nodes;
  if (Array.isArray(nodes)) for (const n of nodes) if (n && typeof n.id === 'string') ids.add(isGraph(graph) ? n.id : nfc(n.id));
  return ids;
}

function resolve(graph: Graph | GraphInput, options: object, allowed: readonly string[]): Resolved {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) refuse(`options must be an object, got ${describeValue(options)}`, 'options');
  const o = options as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!allowed.includes(k)) refuse(`unknown option ${JSON.stringify(k)}: this question does not use it`, k);
  const kinds = new Set<EdgeKind>(EDGE_KINDS);
  if (o.kinds !== undefined) {
    if (!Array.isArray(o.kinds) || o.kinds.length === 0) refuse(`invalid kinds ${describeValue(o.kinds)}: a non-empty list of edge kinds`, 'kinds');
    kinds.clear();
    for (const k of o.kinds) {
      if (!isEdgeKind(k)) refuse(`edge kind ${describeValue(k)} is not in the vocabulary`, 'kinds');
      kinds.add(k);
    }
  }
  let maxHops = Infinity;
  if (o.maxHops !== undefined && o.maxHops !== Infinity) {
    if (!Number.isSafeInteger(o.maxHops) || (o.maxHops as number) < 1) refuse(`invalid maxHops ${describeValue(o.maxHops)}: a positive integer or Infinity`, 'maxHops');
    maxHops = o.maxHops as number;
  }
  let maxEdges = DEFAULT_MAX_EDGES;
  if (o.maxEdges !== undefined) {
    if (!Number.isSafeInteger(o.maxEdges) || (o.maxEdges as number) < 0) refuse(`invalid maxEdges ${describeValue(o.maxEdges)}`, 'maxEdges');
    maxEdges = o.maxEdges as number;
  }
  let entries: string[] | undefined;
  if (o.entries !== undefined) {
    if (!Array.isArray(o.entries) || o.entries.length === 0 || !o.entries.every((x) => typeof x === 'string')) {
      refuse(`invalid entries ${describeValue(o.entries)}: a non-empty list of node ids`, 'entries');
    }
    const ids = rawIds(graph);
    entries = (o.entries as string[]).map(nfc);
    for (const id of entries) if (!ids.has(id)) refuse(`unknown node ${JSON.stringify(id)} in entries`, 'entries');
  }
  // The cap, before the graph check.
  const edges = (graph as GraphInput).edges;
  if (Array.isArray(edges) && edges.length > maxEdges) refuse(`the graph has ${edges.length} edges, over the cap of ${maxEdges}`, 'maxEdges');
  return { kinds, maxHops, maxEdges, entries };
}

function admit(graph: Graph | GraphInput): Graph {
  try {
    return checkGraph(graph);
  } catch (e) {
    if (!(e instanceof ToolgateError)) throw e;
    throw new ToolgateError('REACH_REFUSED', `invalid graph: ${e.message}`, { at: e.at, details: e.details, cause: e });
  }
}

/** Adjacency over node indices, edges filtered to the admitted kinds, in the graph's edge order. */
class Index {
  readonly ids: Map<string, number>;
  readonly out: number[][];
  readonly outEdge: number[][];
  constructor(
    readonly g: Graph,
    kinds: Set<EdgeKind>,
  ) {
    this.ids = new Map(g.nodes.map((n, i) => [n.id, i]));
    this.out = g.nodes.map(() => []);
    this.outEdge = g.nodes.map(() => []);
    g.edges.forEach((e, ei) => {
      if (!kinds.has(e.kind)) return;
      const f = this.ids.get(e.from)!;
      const t = this.ids.get(e.to)!;
      const list = this.out[f]!;
      // Edges are sorted by (from, to, ...): a repeated neighbour is the next kind of the same pair.
      if (list.length > 0 && list[list.length - 1] === t) return;
      list.push(t);
      this.outEdge[f]!.push(ei);
    });
  }
  id(id: string, role: string): number {
    const i = this.ids.get(nfc(id));
    if (i === undefined) refuse(`unknown node ${JSON.stringify(id)} (${role})`, role);
    return i;
  }
}

/** BFS from `sources`, skipping `blocked`; returns parent pointers (-1 root, -2 unseen) and hop counts. */
function bfs(ix: Index, sources: number[], blocked: Set<number>, maxHops: number): { parent: Int32Array; parentEdge: Int32Array; dist: Int32Array } {
  const n = ix.g.nodes.length;
  const parent = new Int32Array(n).fill(-2);
  const parentEdge = new Int32Array(n).fill(-1);
  const dist = new Int32Array(n).fill(-1);
  const queue: number[] = [];
  for (const s of sources) {
    if (blocked.has(s) || parent[s] !== -2) continue;
    parent[s] = -1;
    dist[s] = 0;
    queue.push(s);
  }
  for (let qi = 0; qi < queue.length; qi++) {
    const v = queue[qi]!;
    if (dist[v]! >= maxHops) continue;
    const outs = ix.out[v]!;
    const es = ix.outEdge[v]!;
    for (let k = 0; k < outs.length; k++) {
      const w = outs[k]!;
      if (parent[w] !== -2 || blocked.has(w)) continue;
      parent[w] = v;
      parentEdge[w] = es[k]!;
      dist[w] = dist[v]! + 1;
      queue.push(w);
    }
  }
  return { parent, parentEdge, dist };
}

/**
 * Is there a path from `from` to `to`? A node reaches itself (the empty path).
 * @example reachable(g, 'srv/server', 'srv/tool/x') // true
 */
export function reachable(graph: Graph | GraphInput, from: string, to: string, options: PathOptions = {}): boolean {
  const o = resolve(graph, options, ['kinds', 'maxHops', 'maxEdges']);
  const ix = new Index(admit(graph), o.kinds);
  const f = ix.id(from, 'from');
  const t = ix.id(to, 'to');
  return bfs(ix, [f], new Set(), o.maxHops).parent[t] !== -2;
}

/** A shortest path from `from` to `to` crossing none of the gates, or false. */
export function reachableWithout(graph: Graph | GraphInput, from: string, to: string, gates: readonly string[], options: PathOptions = {}): WitnessPath | false {
  const o = resolve(graph, options, ['kinds', 'maxHops', 'maxEdges']);
  if (!Array.isArray(gates) || !gates.every((g) => typeof g === 'string')) refuse(`invalid gates ${describeValue(gates)}: a list of node ids`, 'gates');
  const g = admit(graph);
  const ix = new Index(g, o.kinds);
  const f = ix.id(from, 'from');
  const t = ix.id(to, 'to');
  const blocked = new Set(gates.map((x) => ix.id(x, 'gate')));
  if (blocked.has(f) || blocked.has(t)) return false;
  const { parent, parentEdge } = bfs(ix, [f], blocked, o.maxHops);
  if (parent[t] === -2) return false;
  const nodes: string[] = [];
  const edges: ConnectomeEdge[] = [];
  for (let v = t; v !== -1; v = parent[v]!) {
    nodes.push(g.nodes[v]!.id);
    if (parent[v] !== -1) edges.push(g.edges[parentEdge[v]!]!);
  }
  return { nodes: nodes.reverse(), edges: edges.reverse() };
}

function entrySet(ix: Index, o: Resolved): number[] {
  if (o.entries) return o.entries.map((e) => ix.id(e, 'entries'));
  const servers: number[] = [];
  ix.g.nodes.forEach((n, i) => {
    if (n.kind === 'server') servers.push(i);
  });
  if (servers.length === 0) refuse('the graph has no server node and no entries were given: the entry set is empty', 'entries');
  return servers;
}

/** Does every path from the entry set to `target` pass `gate`? (The definition: two searches.) */
export function dominates(graph: Graph | GraphInput, gate: string, target: string, options: DominanceOptions = {}): boolean {
  const o = resolve(graph, options, ['kinds', 'entries', 'maxEdges']);
  const ix = new Index(admit(graph), o.kinds);
  const entries = entrySet(ix, o);
  const gi = ix.id(gate, 'gate');
  const ti = ix.id(target, 'target');
  if (bfs(ix, entries, new Set(), Infinity).parent[ti] === -2) refuse(`target ${JSON.stringify(target)} is unreachable from the entry set: dominance is undefined there`, 'target');
  if (gi === ti) return true;
  return bfs(ix, entries, new Set([gi]), Infinity).parent[ti] === -2;
}

/** The nodes every path from the entry set to `target` crosses (its dominators, itself excluded). */
export function mandatoryPass(graph: Graph | GraphInput, target: string, options: DominanceOptions = {}): Set<string> {
  const o = resolve(graph, options, ['kinds', 'entries', 'maxEdges']);
  const g = admit(graph);
  const ix = new Index(g, o.kinds);
  const entries = entrySet(ix, o);
  const ti = ix.id(target, 'target');
  const idom = lengauerTarjan(ix, entries);
  const root = g.nodes.length;
  if (idom[ti] === -2) refuse(`target ${JSON.stringify(target)} is unreachable from the entry set: dominance is undefined there`, 'target');
  const out = new Set<string>();
  for (let v = idom[ti]!; v !== root; v = idom[v]!) out.add(g.nodes[v]!.id);
  return out;
}

/** Enumerating paths is exponential in the graph; it is refused, always. */
export function allPaths(): never {
  return refuse('all_paths is refused: the number of paths is exponential in the graph, and no cap makes enumerating them a question worth answering', 'all_paths');
}

/** Immediate dominators from a virtual root (index n) with an edge to each entry; -2 = unreachable. */
function lengauerTarjan(ix: Index, entries: number[]): Int32Array {
  const n = ix.g.nodes.length;
  const root = n;
  const N = n + 1;
  const succ = (v: number): number[] => (v === root ? entries : ix.out[v]!);
  const semi = new Int32Array(N).fill(-1);
  const vertex: number[] = [];
  const parent = new Int32Array(N).fill(-1);
  const pred: number[][] = Array.from({ length: N }, () => []);
  // Iterative DFS numbering.
  const stack: [number, number][] = [[root, 0]];
  semi[root] = 0;
  vertex.push(root);
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const [v, k] = top;
    const s = succ(v);
    if (k >= s.length) {
      stack.pop();
      continue;
    }
    top[1] = k + 1;
    const w = s[k]!;
    pred[w]!.push(v);
    if (semi[w] === -1) {
      semi[w] = vertex.length;
      vertex.push(w);
      parent[w] = v;
      stack.push([w, 0]);
    }
  }
  const ancestor = new Int32Array(N).fill(-1);
  const label = new Int32Array(N);
  for (let i = 0; i < N; i++) label[i] = i;
  const idom = new Int32Array(N).fill(-2);
  const bucket: number[][] = Array.from({ length: N }, () => []);
  const compress = (v: number): void => {
    const path: number[] = [];
    let u = v;
    while (ancestor[ancestor[u]!]! !== -1) {
      path.push(u);
      u = ancestor[u]!;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const x = path[i]!;
      const a = ancestor[x]!;
      if (semi[label[a]!]! < semi[label[x]!]!) label[x] = label[a]!;
      ancestor[x] = ancestor[a]!;
    }
  };
  const evalNode = (v: number): number => {
    if (ancestor[v] === -1) return v;
    compress(v);
    return label[v]!;
  };
  for (let i = vertex.length - 1; i >= 1; i--) {
    const w = vertex[i]!;
    for (const v of pred[w]!) {
      if (semi[v] === -1) continue;
      const u = evalNode(v);
      if (semi[u]! < semi[w]!) semi[w] = semi[u]!;
    }
    bucket[vertex[semi[w]!]!]!.push(w);
    const p = parent[w]!;
    ancestor[w] = p;
    for (const v of bucket[p]!) {
      const u = evalNode(v);
      idom[v] = semi[u]! < semi[v]! ? u : p;
    }
    bucket[p] = [];
  }
  for (let i = 1; i < vertex.length; i++) {
    const w = vertex[i]!;
    if (idom[w] !== vertex[semi[w]!]) idom[w] = idom[idom[w]!]!;
  }
  idom[root] = root;
  return idom;
}
