/**
 * The connectome graph: nodes and edges in the closed vocabulary, built by one constructor that
 * refuses (never corrects) anything outside it (reference: beam_mcp docs/connectome.md and
 * docs/connectome-canonical.md rules 2, 3, 6 and 8).
 *
 * `buildGraph` and `checkGraph` apply the same refusals; a built Graph holds NFC ids, nodes
 * sorted by id and edges sorted by (from, to, kind, provenance), both in code-point order, and
 * the canonical text of every node's labels. There is no sign setter: a consumer copies the
 * edges with the sign it wants and builds again.
 *
 * Past 400 lines, one concept: the build is one pass that collects every refusal, sorts, and
 * makes the integer codes (GraphCodes) the encoder and the diff read, so they stay together; the
 * edge sort (edge-order.ts) and the rendering of a refused value (describe-value.ts) stand apart.
 */
import { canonicalString, isAscii } from '../canonical/json.ts';
import { ToolgateError, type SourceAt } from '../errors.ts';
import { nodeId, kindOf, levelOf, type Identity } from './identity.ts';
import { quoteIdTable, type IdTable } from './id-table.ts';
import { compareCodePoints, hasHighUnit, isWellFormedString, nfc } from './strings.ts';
import { isPlainObject } from '../canonical/json-object.ts';
import { describeValue } from './describe-value.ts';
import { edgeOrder } from './edge-order.ts';
import {
  EDGE_KINDS,
  PROVENANCES,
  SCHEMA_VERSION,
  SIGNS,
  isLevel,
  isNodeKind,
  levelRank,
  type EdgeKind,
  type Level,
  type NodeKind,
  type ConnectomeProvenance,
  type Sign,
} from './vocabulary.ts';

/** A label value: what rule 8 of the canonical page admits. */
export type LabelValue = string | number | bigint | boolean | null | readonly LabelValue[] | { readonly [key: string]: LabelValue };
export type Labels = { readonly [key: string]: LabelValue };

export interface ConnectomeNode {
  readonly id: string;
  readonly kind: NodeKind;
  readonly level: Level;
  readonly labels: Labels;
  /** The structural identity the id was derived from, when the node was built from one. Never encoded. */
  readonly identity?: Identity;
}

/** A weight: an observed call count (integer) or another measurement. Never in the hashed bytes. */
export type Weight = number | bigint;

export interface ConnectomeEdge {
  readonly from: string;
  readonly to: string;
  readonly kind: EdgeKind;
  readonly provenance: ConnectomeProvenance;
  readonly sign: Sign;
  /** Travels in the sidecar only. */
  readonly weight?: Weight;
}

export interface GraphInput {
  readonly schemaVersion?: number;
  readonly nodes: readonly ConnectomeNode[];
  readonly edges: readonly ConnectomeEdge[];
}

export interface BuildOptions {
  /** Names the input in error locations (a file name); default `<graph>`. */
  readonly source?: string;
}

const BRAND = Symbol('toolgate.connectome.graph');

/** A built, checked connectome. Immutable: build another to change anything. */
export class Graph {
  readonly schemaVersion = SCHEMA_VERSION;
  readonly nodes: readonly ConnectomeNode[];
  readonly edges: readonly ConnectomeEdge[];
  /** Canonical text of each node's labels, parallel to `nodes`. */
  readonly labelTexts: readonly string[];
  /** The finest level any node was built at (`server` for an empty graph). */
  readonly finestLevel: Level;
  readonly [BRAND] = true;
  #index: Map<string, number> | undefined;

  /** @internal use buildGraph */
  constructor(nodes: ConnectomeNode[], edges: ConnectomeEdge[], labelTexts: string[], finestLevel: Level) {
    for (const n of nodes) Object.freeze(n);
    for (const e of edges) Object.freeze(e);
    this.nodes = Object.freeze(nodes);
    this.edges = Object.freeze(edges);
    this.labelTexts = Object.freeze(labelTexts);
    this.finestLevel = finestLevel;
    Object.freeze(this);
  }

  /** The node with this (NFC) id, if any. */
  node(id: string): ConnectomeNode | undefined {
    const i = this.indexOf(id);
    return i === undefined ? undefined : this.nodes[i];
  }

  hasNode(id: string): boolean {
    return this.indexOf(id) !== undefined;
  }

  private indexOf(id: string): number | undefined {
    return this.index().get(id);
  }

  private index(): Map<string, number> {
    // Built lazily; the class is frozen, so keep the map in a private field set once.
    if (this.#index === undefined) {
      const m = new Map<string, number>();
      this.nodes.forEach((n, i) => m.set(n.id, i));
      this.#index = m;
    }
    return this.#index;
  }
}

export function isGraph(v: unknown): v is Graph {
  return v instanceof Graph;
}

class Faults {
  readonly list: { text: string; path: string }[] = [];
  constructor(readonly source: string) {}
  add(path: string, text: string): void {
    if (this.list.length < 1000) this.list.push({ path, text });
  }
  throwIfAny(): void {
    if (this.list.length === 0) return;
    const first = this.list[0]!;
    const at: SourceAt[] = [{ file: this.source, path: first.path }];
    throw new ToolgateError('GRAPH_INVALID', first.text, {
      at,
      details: this.list.length > 1 ? this.list.map((f) => `${f.path}: ${f.text}`) : [],
    });
  }
}

const NODE_KEYS = new Set(['id', 'kind', 'level', 'labels', 'identity']);
const EDGE_KEYS = new Set(['from', 'to', 'kind', 'provenance', 'sign', 'weight']);

/** Canonical text of a node's labels, or a fault naming the node, the label and its whole value. */
function labelsTextOf(labels: unknown, id: string, at: number, faults: Faults): string | undefined {
  if (!isPlainObject(labels)) {
    const path = `nodes[${at}]`;
    faults.add(`${path}.labels`, `node ${JSON.stringify(id)}: labels must be a plain object, got ${describeValue(labels)}`);
    return undefined;
  }
  const keys = Object.keys(labels);
  if (keys.length === 0) return '{}';
  try {
    return canonicalString(labels);
  } catch (e) {
    if (!(e instanceof ToolgateError)) throw e;
    const path = `nodes[${at}]`;
    // Find the label at fault, so the refusal names it and its whole value.
    const seen = new Map<string, string>();
    for (const k of keys) {
      if (!isWellFormedString(k)) {
        faults.add(`${path}.labels`, `node ${JSON.stringify(id)}: label key ${describeValue(k)} has a lone surrogate (no UTF-8 form)`);
        return undefined;
      }
      const nk = nfc(k);
      const prev = seen.get(nk);
      if (prev !== undefined) {
        faults.add(`${path}.labels`, `node ${JSON.stringify(id)}: label keys ${JSON.stringify(prev)} and ${JSON.stringify(k)} coincide after NFC`);
        return undefined;
      }
      seen.set(nk, k);
      try {
        canonicalString(labels[k]);
      } catch (inner) {
        if (!(inner instanceof ToolgateError)) throw inner;
        faults.add(
          `${path}.labels.${k}`,
          `node ${JSON.stringify(id)}: label ${JSON.stringify(k)} has no canonical bytes (${inner.message.replace(/^\$[^:]*: /, '')}); its value: ${describeValue(labels[k])}`,
        );
        return undefined;
      }
    }
    faults.add(`${path}.labels`, `node ${JSON.stringify(id)}: labels have no canonical bytes: ${e.message}`);
    return undefined;
  }
}

function checkWeight(w: unknown): boolean {
  if (typeof w === 'bigint') return w >= 0n;
  if (typeof w === 'number') return Number.isFinite(w) && (w > 0 || w === 0);
  return false;
}

/**
 * Builds a graph, refusing unknown kinds, levels, signs and provenances, ids that are not strings
 * or collide after NFC, dangling endpoints, duplicate edge identities, labels with no canonical
 * bytes, and any schema version other than 4. Every fault is collected; the error names the first
 * and lists the rest.
 * @example buildGraph({ nodes: [serverNode], edges: [] }).nodes.length // 1
 */
export function buildGraph(input: GraphInput, options: BuildOptions = {}): Graph {
  const faults = new Faults(options.source ?? '<graph>');
  if (!isPlainObject(input) && !(typeof input === 'object' && input !== null)) {
    faults.add('', `a graph must be an object with nodes and edges, got ${describeValue(input)}`);
    faults.throwIfAny();
  }
  const version = input.schemaVersion;
  if (version !== undefined && version !== SCHEMA_VERSION) {
    faults.add('schema_version', `schema_version ${describeValue(version)} is not ours: toolgate builds version ${SCHEMA_VERSION} graphs`);
  }
  if (!Array.isArray(input.nodes)) faults.add('nodes', `nodes must be an array, got ${describeValue(input.nodes)}`);
  if (!Array.isArray(input.edges)) faults.add('edges', `edges must be an array, got ${describeValue(input.edges)}`);
  faults.throwIfAny();

  // Nodes. Paths and quoted names for messages are built only when there is a fault to report.
  const nodes: { node: ConnectomeNode; raw: string; text: string }[] = [];
  let anyHigh = false;
  const inNodes = input.nodes as readonly unknown[];
  for (let i = 0; i < inNodes.length; i++) {
    const n = inNodes[i];
    if (!isPlainObject(n)) {
      faults.add(`nodes[${i}]`, `node must be a plain object, got ${describeValue(n)}`);
      continue;
    }
    const id = n.id;
    if (typeof id !== 'string') {
      faults.add(`nodes[${i}].id`, `node id must be a string, got ${describeValue(id)}`);
      continue;
    }
    for (const k of Object.keys(n)) if (!NODE_KEYS.has(k)) faults.add(`nodes[${i}].${k}`, `node ${JSON.stringify(id)}: unknown field ${JSON.stringify(k)}`);
    let ok = true;
    const ascii = isAscii(id);
    if (!ascii && !isWellFormedString(id)) {
      faults.add(`nodes[${i}].id`, `node ${describeValue(id)}: id has a lone surrogate and no UTF-8 form`);
      ok = false;
    }
    if (!isNodeKind(n.kind)) {
      faults.add(`nodes[${i}].kind`, `node ${JSON.stringify(id)}: unknown kind ${describeValue(n.kind)}`);
      ok = false;
    }
    if (!isLevel(n.level)) {
      faults.add(`nodes[${i}].level`, `node ${JSON.stringify(id)}: unknown level ${describeValue(n.level)}`);
      ok = false;
    }
    if (n.identity !== undefined) {
      const path = `nodes[${i}]`;
      const named = JSON.stringify(id);
      try {
        const identity = n.identity as Identity;
        const derived = nodeId(identity);
        if (derived !== id) faults.add(`${path}.identity`, `node ${named}: id is not the id of its identity (${JSON.stringify(derived)})`);
        else if (kindOf(identity) !== n.kind || levelOf(identity) !== n.level) {
          faults.add(`${path}.identity`, `node ${named}: kind/level ${describeValue(n.kind)}/${describeValue(n.level)} do not match its identity (${kindOf(identity)}/${levelOf(identity)})`);
        }
      } catch (e) {
        if (!(e instanceof ToolgateError)) throw e;
        faults.add(`${path}.identity`, `node ${named}: ${e.message}`);
      }
    }
    const text = labelsTextOf(n.labels, id, i, faults);
    if (!ok || text === undefined) continue;
    const nid = ascii ? id : nfc(id);
    if (!ascii && !anyHigh && hasHighUnit(nid)) anyHigh = true;
    const node: ConnectomeNode =
      n.identity === undefined
        ? { id: nid, kind: n.kind as NodeKind, level: n.level as Level, labels: n.labels as Labels }
        : { id: nid, kind: n.kind as NodeKind, level: n.level as Level, labels: n.labels as Labels, identity: n.identity as Identity };
    nodes.push({ node, raw: id, text });
  }
  // Code-point order; JS's own string order is the same unless an id holds a unit past U+D7FF.
  const compareIds = anyHigh ? compareCodePoints : (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  let sorted = true;
  for (let i = 1; i < nodes.length && sorted; i++) if (compareIds(nodes[i - 1]!.node.id, nodes[i]!.node.id) >= 0) sorted = false;
  if (!sorted) nodes.sort((a, b) => compareIds(a.node.id, b.node.id));
  // NFC id -> position in the sorted nodes: edges carry their endpoints as these positions.
  const index = new Map<string, number>();
  let finest = 3;
  for (let i = 0; i < nodes.length; i++) {
    const cur = nodes[i]!;
    if (i > 0 && nodes[i - 1]!.node.id === cur.node.id) {
      const prev = nodes[i - 1]!;
      faults.add(
        'nodes',
        prev.raw === cur.raw
          ? `node ${JSON.stringify(cur.raw)} appears twice`
          : `node ids ${JSON.stringify(prev.raw)} and ${JSON.stringify(cur.raw)} coincide after NFC (${JSON.stringify(cur.node.id)})`,
      );
    }
    index.set(cur.node.id, i);
    const r = levelRank(cur.node.level);
    if (r < finest) finest = r;
  }

  // Edges. An endpoint found as it is in the index is an NFC id already (well-formed, and NFC is
  // idempotent), so only an endpoint not found is checked and normalised before a second look.
  const inEdges = input.edges as readonly unknown[];
  // Each admitted edge as integers; its object is made once the order is known, so edges lie in
  // memory in canonical order (what the encoder and the diff walk).
  let count = 0;
  const fromAt = new Int32Array(inEdges.length);
  // (to position, kind rank, provenance rank) in one integer: to * 8 + kind * 2 + provenance.
  const rest = new Int32Array(inEdges.length);
  const signAt = new Uint8Array(inEdges.length);
  let weights: (Weight | undefined)[] | undefined;
  for (let i = 0; i < inEdges.length; i++) {
    const e = inEdges[i];
    if (!isPlainObject(e)) {
      faults.add(`edges[${i}]`, `edge must be a plain object, got ${describeValue(e)}`);
      continue;
    }
    const { from, to } = e;
    if (typeof from !== 'string' || typeof to !== 'string') {
      faults.add(`edges[${i}]`, `edge ${describeValue(from)} -> ${describeValue(to)}: from and to must be strings`);
      continue;
    }
    let ok = true;
    for (const k in e) if (!EDGE_KEYS.has(k)) faults.add(`edges[${i}].${k}`, `${edgeNamed(from, to)}: unknown field ${JSON.stringify(k)}`);
    let fi = index.get(from);
    let ti = index.get(to);
    if (fi === undefined || ti === undefined) {
      if ((!isAscii(from) && !isWellFormedString(from)) || (!isAscii(to) && !isWellFormedString(to))) {
        faults.add(`edges[${i}]`, `edge ${describeValue(from)} -> ${describeValue(to)}: an endpoint has a lone surrogate and no UTF-8 form`);
        continue;
      }
      fi = index.get(nfc(from));
      ti = index.get(nfc(to));
    }
    const kr = EDGE_KIND_RANK.get(e.kind);
    const pr = PROVENANCE_RANK.get(e.provenance);
    if (kr === undefined) {
      faults.add(`edges[${i}].kind`, `${edgeNamed(from, to)}: unknown edge kind ${describeValue(e.kind)}`);
      ok = false;
    }
    if (pr === undefined) {
      faults.add(`edges[${i}].provenance`, `${edgeNamed(from, to)}: unknown provenance ${describeValue(e.provenance)}`);
      ok = false;
    }
    const sr = SIGN_RANK.get(e.sign);
    if (sr === undefined) {
      faults.add(`edges[${i}].sign`, `${edgeNamed(from, to)}: unknown sign ${describeValue(e.sign)}`);
      ok = false;
    }
    if (e.weight !== undefined && !checkWeight(e.weight)) {
      faults.add(`edges[${i}].weight`, `${edgeNamed(from, to)}: weight must be a non-negative number, got ${describeValue(e.weight)}`);
      ok = false;
    }
    if (fi === undefined) {
      faults.add(`edges[${i}].from`, `${edgeNamed(from, to)}: dangling endpoint, no node ${JSON.stringify(from)}`);
      ok = false;
    }
    if (ti === undefined) {
      faults.add(`edges[${i}].to`, `${edgeNamed(from, to)}: dangling endpoint, no node ${JSON.stringify(to)}`);
      ok = false;
    }
    if (!ok || fi === undefined || ti === undefined || kr === undefined || pr === undefined || sr === undefined) continue;
    fromAt[count] = fi;
    rest[count] = ti * 8 + kr * 2 + pr;
    signAt[count] = sr;
    if (e.weight !== undefined) (weights ??= [])[count] = e.weight as Weight;
    count++;
  }
  faults.throwIfAny();
  // Node positions are in code-point order, kind and provenance ranks in string order, so
  // comparing (from position, rest) is comparing (from, to, kind, provenance) as strings.
  const order = edgeOrder(fromAt, rest, count, nodes.length);
  if (order !== undefined) {
    for (let i = 1; i < count; i++) {
      const a = order[i - 1]!;
      const b = order[i]!;
      if (fromAt[a] === fromAt[b] && rest[a] === rest[b]) {
        const r = rest[b]!;
        faults.add(
          'edges',
          `edge ${JSON.stringify(nodes[fromAt[b]!]!.node.id)} -> ${JSON.stringify(nodes[r >> 3]!.node.id)} (${KINDS_BY_RANK[(r >> 1) & 3]!}, ${PROVENANCES_BY_RANK[r & 1]!}) appears twice: an edge's identity is (from, to, kind, provenance)`,
        );
      }
    }
  }
  faults.throwIfAny();
  const edges = new Array<ConnectomeEdge>(count);
  const edgeFrom = new Int32Array(count);
  const edgeTo = new Int32Array(count);
  const edgeKind = new Uint8Array(count);
  const edgeSign = new Uint8Array(count);
  const byProvenance = [0, 0];
  for (let i = 0; i < count; i++) {
    const j = order === undefined ? i : order[i]!;
    const r = rest[j]!;
    // The endpoints are the nodes' own id strings (equal to the NFC of what the edge named).
    const from = nodes[fromAt[j]!]!.node.id;
    const to = nodes[r >> 3]!.node.id;
    const kind = KINDS_BY_RANK[(r >> 1) & 3]!;
    const provenance = PROVENANCES_BY_RANK[r & 1]!;
    const sign = SIGNS[signAt[j]!]!;
    const weight = weights?.[j];
    edges[i] = weight === undefined ? { from, to, kind, provenance, sign } : { from, to, kind, provenance, sign, weight };
    edgeFrom[i] = fromAt[j]!;
    edgeTo[i] = r >> 3;
    edgeKind[i] = (r >> 1) & 3;
    edgeSign[i] = signAt[j]!;
    byProvenance[r & 1]!++;
  }
  const graph = new Graph(
    nodes.map((n) => n.node),
    edges,
    nodes.map((n) => n.text),
    (['mfa', 'module', 'boundary', 'server'] as const)[finest]!,
  );
  const provenance = byProvenance[0] === count ? PROVENANCES_BY_RANK[0]! : byProvenance[1] === count ? PROVENANCES_BY_RANK[1]! : undefined;
  const ids = nodes.map((n) => n.node.id);
  CODES.set(graph, { ids, quoted: quoteIdTable(ids), from: edgeFrom, to: edgeTo, kind: edgeKind, sign: edgeSign, provenance, anyHigh });
  return graph;
}

function edgeNamed(from: string, to: string): string {
  return `edge ${JSON.stringify(from)} -> ${JSON.stringify(to)}`;
}

// Ranks in string order: invoke < message < read < supervise; declared < observed.
/** @internal Edge kinds by rank: the order canonical edges sort by within one (from, to). */
export const KINDS_BY_RANK: readonly EdgeKind[] = [...EDGE_KINDS].sort();
const PROVENANCES_BY_RANK: readonly ConnectomeProvenance[] = [...PROVENANCES].sort();
const EDGE_KIND_RANK = new Map<unknown, number>(KINDS_BY_RANK.map((k, i) => [k, i] as const));
const PROVENANCE_RANK = new Map<unknown, number>(PROVENANCES_BY_RANK.map((k, i) => [k, i] as const));
const SIGN_RANK = new Map<unknown, number>(SIGNS.map((k, i) => [k, i] as const));

/**
 * @internal What buildGraph learnt of a graph, as arrays parallel to `nodes` and to `edges` (the
 * graph is frozen, so they stay true): what the encoder and the diff walk instead of the node
 * and edge objects.
 */
export interface GraphCodes {
  /** The node ids, in order (one array of strings, not one object per node to read them from). */
  readonly ids: readonly string[];
  /** The node ids as canonical JSON bytes, quoted once here for every diff to copy from. */
  readonly quoted: IdTable;
  /** Edge endpoints as positions in `nodes`. */
  readonly from: Int32Array;
  readonly to: Int32Array;
  /** The kind's position in KINDS_BY_RANK. */
  readonly kind: Uint8Array;
  /** The sign's position in SIGNS. */
  readonly sign: Uint8Array;
  /** The provenance every edge has, or undefined when they differ (or there are none). */
  readonly provenance: ConnectomeProvenance | undefined;
  /** Whether some node id holds a code unit past U+D7FF (where UTF-16 and code-point order part). */
  readonly anyHigh: boolean;
}
const CODES = new WeakMap<Graph, GraphCodes>();

/** @internal The graph's GraphCodes. */
export function graphCodes(graph: Graph): GraphCodes {
  const found = CODES.get(graph);
  if (found === undefined) throw new Error('graphCodes: not a graph made by buildGraph');
  return found;
}

/**
 * Applies buildGraph's refusals to a graph assembled by hand (or re-checks a built one) and
 * returns the built graph.
 */
export function checkGraph(graph: Graph | GraphInput, options: BuildOptions = {}): Graph {
  if (graph instanceof Graph) return graph;
  return buildGraph(graph, options);
}

/** A node built from its identity: the id by the one id function, kind and level from the identity. */
export function nodeFromIdentity(identity: Identity, labels: Labels = {}): ConnectomeNode {
  return { id: nodeId(identity), kind: kindOf(identity), level: levelOf(identity), labels, identity };
}

/** An edge as toolgate writes it: sign `unset`. */
export function edgeOf(from: string, to: string, kind: EdgeKind, provenance: ConnectomeProvenance = 'declared'): ConnectomeEdge {
  return { from, to, kind, provenance, sign: 'unset' };
}
