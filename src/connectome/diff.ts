/**
 * Declared against observed (reference: beam_mcp docs/connectome-diff.md): every edge label
 * (from, to, kind), after NFC, lands in exactly one of four classes; ten coverage counts; the
 * consumer's window carried verbatim; the algorithm the record is hashed with. A record, never a
 * verdict. Refusals come in the page's order: the options, the declared graph, the observed
 * graph, the window; the first found is the one reported.
 *
 * The work is linear: one merge of the two sorted node lists gives every id an integer position,
 * then one merge of the two edge lists (both in canonical order) sorts every label into its class,
 * already in order (a re-sort happens only when an id holds a code unit where UTF-16 order and
 * code-point order part).
 */
import { assertDigestAlgorithm, type DigestAlgorithm } from '../canonical/digest.ts';
import { canonicalString, compareUtf16 } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { checkGraph, graphCodes, KINDS_BY_RANK, type Graph, type GraphCodes, type GraphInput } from './graph.ts';
import { describeValue } from './describe-value.ts';
import { mergeIdTables, type IdTable } from './id-table.ts';
import { compareCodePoints, hasHighUnit } from './strings.ts';
import { SIGNS, type EdgeKind, type Sign } from './vocabulary.ts';

/** The diff record's own schema version (its axis, not the graph's). */
export const DIFF_SCHEMA_VERSION = 3 as const;

export interface EdgeLabel {
  readonly from: string;
  readonly kind: EdgeKind;
  readonly to: string;
}
export interface ChangedSign extends EdgeLabel {
  readonly declared_sign: Sign;
  readonly observed_sign: Sign;
}

export interface DiffCoverage {
  readonly declared_and_observed: number;
  readonly declared_edges: number;
  readonly declared_endpoint_covered: number;
  readonly declared_nodes: number;
  readonly declared_sign_only: number;
  readonly nodes_in_both: number;
  readonly observed_edges: number;
  readonly observed_endpoint_declared: number;
  readonly observed_nodes: number;
  readonly observed_sign_only: number;
}

export interface DiffRecord {
  readonly algorithm: DigestAlgorithm;
  readonly classes: {
    readonly changed_sign: readonly ChangedSign[];
    readonly declared_and_observed: readonly EdgeLabel[];
    readonly declared_never_observed: readonly EdgeLabel[];
    readonly observed_but_undeclared: readonly EdgeLabel[];
  };
  readonly coverage: DiffCoverage;
  readonly schema_version: typeof DIFF_SCHEMA_VERSION;
  /** The consumer's window, verbatim; its canonical text is in `windowText`. */
  readonly window: unknown;
}

export interface DiffOptions {
  /** Required: the consumer's window (any map in the label grammar). */
  readonly window?: unknown;
  readonly algorithm?: DigestAlgorithm;
}

const OPTION_KEYS = new Set(['window', 'algorithm']);

function refuse(text: string, path: string, cause?: unknown): never {
  throw new ToolgateError('DIFF_REFUSED', text, { at: [{ file: '<diff>', path }], cause });
}

function admitted(side: 'declared' | 'observed', graph: Graph | GraphInput): Graph {
  let g: Graph;
  try {
    g = checkGraph(graph, { source: `<${side} graph>` });
  } catch (e) {
    if (!(e instanceof ToolgateError)) throw e;
    refuse(`${side}: ${e.message}`, side, e);
  }
  // The build knows whether every edge has one provenance: the edges are read only if not.
  if (graphCodes(g).provenance === side) return g;
  const other = side === 'declared' ? 'observed' : 'declared';
  for (const e of g.edges) {
    if (e.provenance !== side) refuse(`${side}: edge ${JSON.stringify(e.from)} -> ${JSON.stringify(e.to)} (${e.kind}) has provenance ${other}`, `${side}.edges`);
  }
  return g;
}

const UNSET = SIGNS.indexOf('unset');

/** 1 where a node's id holds a code unit past U+D7FF (where UTF-16 and code-point order can part). */
function highUnits(g: Graph): Uint8Array | undefined {
  if (!graphCodes(g).anyHigh) return undefined; // the common case: nothing to allocate
  const out = new Uint8Array(g.nodes.length);
  for (let i = 0; i < g.nodes.length; i++) if (hasHighUnit(g.nodes[i]!.id)) out[i] = 1;
  return out;
}

/** How many of a graph's edges have both endpoints marked 1. */
function edgesWithin(codes: GraphCodes, marked: Uint8Array): number {
  const { from, to } = codes;
  let n = 0;
  for (let k = 0; k < from.length; k++) if (marked[from[k]!] === 1 && marked[to[k]!] === 1) n++;
  return n;
}

/** Whether some edge of a graph has an endpoint marked 1. */
function someEndpointIn(codes: GraphCodes, marked: Uint8Array): boolean {
  const { from, to } = codes;
  for (let k = 0; k < from.length; k++) if (marked[from[k]!] === 1 || marked[to[k]!] === 1) return true;
  return false;
}

/** The union's ids in order, from each graph's ids and their positions in the union. */
function unionIds(a: readonly string[], aAt: Int32Array, b: readonly string[], bAt: Int32Array, size: number): string[] {
  const ids = new Array<string>(size);
  for (let k = 0; k < a.length; k++) ids[aAt[k]!] = a[k]!;
  for (let k = 0; k < b.length; k++) ids[bAt[k]!] = b[k]!;
  return ids;
}

function compareLabels(a: EdgeLabel, b: EdgeLabel): number {
  return compareUtf16(a.from, b.from) || compareUtf16(a.to, b.to) || compareUtf16(a.kind, b.kind);
}

// Each declared edge's class, and whether an observed edge is undeclared (its class then).
const CHANGED = 0;
const BOTH = 1;
const DEAD = 2;
const DRIFT = 3;
const MATCHED = 4;

/**
 * One class's labels, in the record's order: the edges of one graph (both lists are in canonical
 * order, and so is every subsequence of them) whose tag is the class's.
 */
export interface ClassEdges {
  /** The graph's edges as node positions and kind ranks. */
  readonly edges: GraphCodes;
  /** The graph's node positions as union positions. */
  readonly at: Int32Array;
  /** One tag per edge of the graph. */
  readonly tags: Uint8Array;
  readonly tag: number;
  readonly length: number;
}

/**
 * What diffConnectomes knows of its record's labels and encodeDiff uses to write them without
 * reading an id string per label: the union of both graphs' node ids, in code-point order, and
 * each class as the edges of one graph that carry its tag (one byte an edge, not a list of
 * labels). Keyed by the (frozen) classes object, so a record assembled by hand, or one whose
 * classes were replaced, is written from its strings.
 */
export interface Positions {
  readonly ids: readonly string[];
  readonly classes: readonly [ClassEdges, ClassEdges, ClassEdges, ClassEdges];
  /** Each class's label list once made (a caller read it); until then there is nothing to check. */
  readonly made: readonly (readonly EdgeLabel[] | undefined)[];
  /** The union's ids as quoted bytes: one graph's own table when its nodes are the whole union. */
  readonly idTable: () => IdTable;
}

/**
 * Calls fn with each label of a class, in order: its endpoints' union positions, its kind rank and
 * its index in the class; stops when fn returns false.
 */
export function eachLabel(c: ClassEdges, fn: (from: number, to: number, kind: number, k: number) => boolean | void): void {
  const { edges, at, tags, tag } = c;
  for (let e = 0, k = 0; k < c.length; e++) {
    if (tags[e] === tag && fn(at[edges.from[e]!]!, at[edges.to[e]!]!, edges.kind[e]!, k++) === false) return;
  }
}

/** A class's labels, made from their positions. */
function labelsOf(ids: readonly string[], c: ClassEdges): EdgeLabel[] {
  const out: EdgeLabel[] = new Array<EdgeLabel>(c.length);
  eachLabel(c, (f, t, kind, k) => {
    out[k] = { from: ids[f]!, kind: KINDS_BY_RANK[kind]!, to: ids[t]! };
  });
  return out;
}
const POSITIONS = new WeakMap<object, Positions>();

/** The positions diffConnectomes kept for a record's classes object, if it made it. */
export function positionsKept(classes: DiffRecord['classes']): Positions | undefined {
  return POSITIONS.get(classes);
}

/**
 * The diff record of a declared and an observed graph over the consumer's window.
 * @example diffConnectomes(declared, observed, { window: { started_at: '…', ended_at: '…' } }).coverage.declared_edges
 */
export function diffConnectomes(declared: Graph | GraphInput, observed: Graph | GraphInput, options: DiffOptions): DiffRecord {
  // 1. options
  if (typeof options !== 'object' || options === null || Array.isArray(options)) refuse(`options must be an object with a window, got ${describeValue(options)}`, 'options');
  const unknown = Object.keys(options).filter((k) => !OPTION_KEYS.has(k));
  if (unknown.length > 0) refuse(`unknown option(s) ${unknown.map((k) => JSON.stringify(k)).join(', ')}`, 'options');
  const algorithm = options.algorithm ?? 'sha256';
  assertDigestAlgorithm(algorithm);
  if (!('window' in options) || options.window === undefined) refuse('a diff without a window is refused: pass the window the observation covers', 'window');
  // 2. declared, 3. observed
  const d = admitted('declared', declared);
  const o = admitted('observed', observed);
  // 4. window
  const window = options.window;
  if (typeof window !== 'object' || window === null || Array.isArray(window)) refuse(`the window must be a map, got ${describeValue(window)}`, 'window');
  try {
    canonicalString(window);
  } catch (e) {
    if (!(e instanceof ToolgateError)) throw e;
    refuse(`the window has no canonical bytes (${e.message}); its value: ${describeValue(window)}`, 'window', e);
  }

  // Both node lists are in code-point order: one merge gives every id a position in their
  // union, so an edge label becomes three integers and both edge lists (already in canonical
  // order) are walked once, side by side.
  // Ids, endpoints, kinds and signs as the build coded them: the merges read no node or edge
  // object but a changed edge's.
  const dc = graphCodes(d);
  const oc = graphCodes(o);
  const dn = dc.ids;
  const on = oc.ids;
  const dHigh = highUnits(d);
  const oHigh = highUnits(o);
  const dAt = new Int32Array(dn.length);
  const oAt = new Int32Array(on.length);
  const dInO = new Uint8Array(dn.length);
  const oInD = new Uint8Array(on.length);
  let nodesInBoth = 0;
  let i = 0;
  let j = 0;
  let u = 0;
  while (i < dn.length && j < on.length) {
    const a = dn[i]!;
    const b = on[j]!;
    if (a === b) {
      dInO[i] = 1;
      oInD[j] = 1;
      nodesInBoth++;
      dAt[i++] = u;
      oAt[j++] = u++;
    } else if (dHigh !== undefined && oHigh !== undefined && dHigh[i] === 1 && oHigh[j] === 1 ? compareCodePoints(a, b) < 0 : a < b) {
      dAt[i++] = u++;
    } else {
      oAt[j++] = u++;
    }
  }
  while (i < dn.length) dAt[i++] = u++;
  while (j < on.length) oAt[j++] = u++;
  // A graph whose nodes are the whole union (the other's are among them: the usual case for the
  // declared graph) has union positions equal to its own, and its ids are the union's.
  const dSame = u === dn.length;
  const oSame = u === on.length;
  const ids = dSame ? dn : oSame ? on : unionIds(dn, dAt, on, oAt, u);

  const de = d.edges;
  const oe = o.edges;
  const changed: ChangedSign[] = [];
  // Every endpoint of one graph is a node of the other when the other's nodes are the whole union.
  const declaredEndpointCovered = oSame ? de.length : edgesWithin(dc, dInO);
  const observedEndpointDeclared = dSame ? oe.length : edgesWithin(oc, oInD);
  const high = (dHigh !== undefined && someEndpointIn(dc, dHigh)) || (oHigh !== undefined && someEndpointIn(oc, oHigh));
  let declaredSignOnly = 0;
  let observedSignOnly = 0;
  // One merge of the edge lists tags every edge with its class.
  const dTags = new Uint8Array(de.length);
  const oTags = new Uint8Array(oe.length);
  const count = [0, 0, 0, 0];
  i = 0;
  j = 0;
  while (i < de.length || j < oe.length) {
    let c: number;
    if (i === de.length) c = 1;
    else if (j === oe.length) c = -1;
    else {
      c = dAt[dc.from[i]!]! - oAt[oc.from[j]!]! || dAt[dc.to[i]!]! - oAt[oc.to[j]!]! || dc.kind[i]! - oc.kind[j]!;
    }
    if (c < 0) {
      dTags[i++] = DEAD;
      count[DEAD]!++;
    } else if (c > 0) {
      oTags[j++] = DRIFT;
      count[DRIFT]!++;
    } else {
      const ds = dc.sign[i]!;
      const os = oc.sign[j]!;
      oTags[j] = MATCHED;
      if (ds !== UNSET && os !== UNSET && ds !== os) {
        dTags[i] = CHANGED;
        count[CHANGED]!++;
        const e = de[i]!;
        changed.push({ declared_sign: e.sign, from: e.from, kind: e.kind, observed_sign: oe[j]!.sign, to: e.to });
      } else {
        dTags[i] = BOTH;
        count[BOTH]!++;
        if (ds !== UNSET && os === UNSET) declaredSignOnly++;
        if (os !== UNSET && ds === UNSET) observedSignOnly++;
      }
      i++;
      j++;
    }
  }
  const byClass = (edges: GraphCodes, at: Int32Array, tags: Uint8Array, tag: number): ClassEdges => ({ edges, at, tags, tag, length: count[tag]! });
  const ends = [
    byClass(dc, dAt, dTags, CHANGED),
    byClass(dc, dAt, dTags, BOTH),
    byClass(dc, dAt, dTags, DEAD),
    byClass(oc, oAt, oTags, DRIFT),
  ] as const;
  let classes: DiffRecord['classes'];
  if (high) {
    // Canonical edge order is code-point order; the record's is UTF-16. They differ only past
    // U+D7FF; the re-sort parts the labels from their positions, so encodeDiff reads the strings.
    const lists = [changed, labelsOf(ids, ends[1]), labelsOf(ids, ends[2]), labelsOf(ids, ends[3])] as const;
    for (const list of lists) list.sort(compareLabels);
    classes = { changed_sign: lists[0], declared_and_observed: lists[1], declared_never_observed: lists[2], observed_but_undeclared: lists[3] };
  } else {
    // The three label lists are made only when read (encodeDiff writes from the positions).
    const made: (readonly EdgeLabel[] | undefined)[] = [changed, undefined, undefined, undefined];
    const lazy = (c: 1 | 2 | 3) => ({ enumerable: true, get: () => (made[c] ??= Object.freeze(labelsOf(ids, ends[c]))) });
    classes = Object.freeze(
      Object.defineProperties({ changed_sign: Object.freeze(changed) } as DiffRecord['classes'], {
        declared_and_observed: lazy(1),
        declared_never_observed: lazy(2),
        observed_but_undeclared: lazy(3),
      }),
    );
    const idTable = (): IdTable => (dSame ? dc.quoted : oSame ? oc.quoted : mergeIdTables(dc.quoted, dAt, oc.quoted, oAt, u));
    POSITIONS.set(classes, { ids, classes: ends, made, idTable });
  }
  return {
    algorithm,
    classes,
    coverage: {
      declared_and_observed: count[CHANGED]! + count[BOTH]!,
      declared_edges: d.edges.length,
      declared_endpoint_covered: declaredEndpointCovered,
      declared_nodes: d.nodes.length,
      declared_sign_only: declaredSignOnly,
      nodes_in_both: nodesInBoth,
      observed_edges: o.edges.length,
      observed_endpoint_declared: observedEndpointDeclared,
      observed_nodes: o.nodes.length,
      observed_sign_only: observedSignOnly,
    },
    schema_version: DIFF_SCHEMA_VERSION,
    window,
  };
}
