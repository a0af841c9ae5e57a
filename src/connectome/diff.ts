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
import { ByteSink } from '../canonical/bytes.ts';
import { assertDigestAlgorithm, createDigest, type DigestAlgorithm } from '../canonical/digest.ts';
import { bytesToHex } from '@noble/hashes/utils.js';
import { canonicalString, compareUtf16, quoteString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { checkGraph, describeValue, graphCodes, KINDS_BY_RANK, type Graph, type GraphCodes, type GraphInput } from './graph.ts';
import { mergeIdTables, SLACK, type IdTable } from './id-table.ts';
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
interface ClassEdges {
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
interface Positions {
  readonly ids: readonly string[];
  readonly classes: readonly [ClassEdges, ClassEdges, ClassEdges, ClassEdges];
  /** Each class's label list once made (a caller read it); until then there is nothing to check. */
  readonly made: readonly (readonly EdgeLabel[] | undefined)[];
  /** The union's ids as quoted bytes: one graph's own table when its nodes are the whole union. */
  readonly idTable: () => IdTable;
}

/**
 * Calls fn with each label of a class, in order: its endpoints' union positions, its kind rank and
 * its index in the class; stops when fn returns false. (The bytes' hot loop walks the tags itself.)
 */
function eachLabel(c: ClassEdges, fn: (from: number, to: number, kind: number, k: number) => boolean | void): void {
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

export interface WriteDiffOptions {
  readonly algorithm?: DigestAlgorithm;
  /**
   * About how many bytes a chunk holds; a chunk always has room for two labels. 256 KiB by default:
   * small enough to stay in the cache, and large enough that a write to a file costs little per
   * byte.
   */
  readonly chunkBytes?: number;
}

/** Receives the record's bytes in order; a chunk is only valid during the call (its buffer is reused). */
export type ByteChunkSink = (chunk: Uint8Array) => void;

/** The record's canonical bytes: its keys sorted (RFC 8785), no trailing newline. */
export function encodeDiff(record: DiffRecord, options: { algorithm?: DigestAlgorithm } = {}): Uint8Array {
  const { head, tail, positions } = framing(record, options.algorithm);
  // From positions, the exact size is known before a byte is written: one buffer, never flushed.
  return positions === undefined ? encodeFromStrings(record, head, tail) : encodeFromPositions(record, positions, head, tail, undefined);
}

/**
 * The same bytes as encodeDiff, handed to `sink` in chunks of about 256 KiB from one reused buffer,
 * so a large record goes to a file or a hash without ever being held whole (a fresh buffer the
 * size of the record costs a page fault per 4 KiB, more than writing the bytes).
 */
export function writeDiff(record: DiffRecord, sink: ByteChunkSink, options: WriteDiffOptions = {}): void {
  const { head, tail, positions } = framing(record, options.algorithm);
  if (positions === undefined) sink(encodeFromStrings(record, head, tail));
  else encodeFromPositions(record, positions, head, tail, { sink, chunkBytes: options.chunkBytes ?? CHUNK_BYTES });
}

function framing(record: DiffRecord, algorithmOption: DigestAlgorithm | undefined): { head: string; tail: string; positions: Positions | undefined } {
  const algorithm = algorithmOption ?? record.algorithm;
  assertDigestAlgorithm(algorithm);
  return {
    head: `{"algorithm":"${algorithm}","classes":{"changed_sign":[`,
    tail: `]},"coverage":${canonicalString(record.coverage)},"schema_version":${record.schema_version},"window":${canonicalString(record.window)}}`,
    positions: positionsOf(record),
  };
}

/**
 * The record's positions, if every label still holds the strings its positions name (a pointer
 * comparison per label of each list a caller has read); undefined for a record assembled by hand
 * or changed after it was made, which is then written from its strings.
 */
function positionsOf(record: DiffRecord): Positions | undefined {
  const positions = POSITIONS.get(record.classes);
  if (positions === undefined) return undefined;
  const { ids, classes, made } = positions;
  for (let c = 0; c < 4; c++) {
    const list = c === 0 ? record.classes.changed_sign : made[c];
    if (list === undefined) continue;
    if (list.length !== classes[c]!.length) return undefined;
    let holds = true;
    eachLabel(classes[c]!, (f, t, kind, k) => {
      const l = list[k]!;
      holds = l.from === ids[f] && l.to === ids[t] && l.kind === KINDS_BY_RANK[kind];
      // A changed label's signs are written from the label: they must still be signs.
      if (c === 0 && holds) holds = SIGNS.includes((l as ChangedSign).declared_sign) && SIGNS.includes((l as ChangedSign).observed_sign);
      return holds;
    });
    if (!holds) return undefined;
  }
  return positions;
}

const encoder = new TextEncoder();
const CHUNK_BYTES = 1 << 18;

/**
 * Writes the labels from their endpoint positions: every id of the union is in one table of
 * quoted bytes (a graph's own, when its nodes are the whole union), and each label is four byte
 * ranges copied into the output (copy4): its prefix, its from id, its middle, its to id. No id string is
 * read per label. A changed label's signs come from the label, the rest from the positions.
 * Without a sink the output is the exact size of the record, summed first from the positions;
 * with one, the output is a chunk flushed to the sink whenever the next label might not fit (then
 * the result is empty). The fixed pieces lie past the output in the same buffer.
 */
function encodeFromPositions(
  record: DiffRecord,
  positions: Positions,
  head: string,
  tail: string,
  streaming: { readonly sink: ByteChunkSink; readonly chunkBytes: number } | undefined,
): Uint8Array {
  const { classes } = positions;
  const table = positions.idTable();
  const { off } = table;
  const ids = table.bytes;
  const changed = record.classes.changed_sign;
  const opens = CLASS_NAMES.map((n) => encoder.encode(`],"${n}":[`));
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(tail);
  // A label is [prefix][from id][middle][to id]}. Prefix 0 and middle `kind` are a plain label's;
  // a changed label's carry its signs: prefix 1 + declared sign, middle KINDS + kind * SIGNS +
  // observed sign (signIndexes).
  const prefixes = [encoder.encode('{"from":'), ...SIGNS.map((s) => encoder.encode(`{"declared_sign":"${s}","from":`))];
  const middles = [
    ...KINDS_BY_RANK.map((k) => encoder.encode(`,"kind":"${k}","to":`)),
    ...KINDS_BY_RANK.flatMap((k) => SIGNS.map((s) => encoder.encode(`,"kind":"${k}","observed_sign":"${s}","to":`))),
  ];
  const signs = signIndexes(changed);
  const prefixOf = (c: number, k: number): number => (c === 0 ? 1 + signs[2 * k]! : 0);
  const middleOf = (c: number, k: number, kind: number): number => (c === 0 ? KINDS_BY_RANK.length + kind * SIGNS.length + signs[2 * k + 1]! : kind);

  let size: number; // of the output
  let limit: number; // flush past this (never without a sink)
  if (streaming === undefined) {
    size = headBytes.length + tailBytes.length;
    for (let c = 0; c < 4; c++) {
      const { length } = classes[c]!;
      if (c > 0) size += opens[c]!.length;
      if (length > 0) size += length - 1; // commas
      eachLabel(classes[c]!, (f, t, kind, k) => {
        size += prefixes[prefixOf(c, k)]!.length + off[f + 1]! - off[f]! + middles[middleOf(c, k, kind)]!.length + off[t + 1]! - off[t]! + 1;
      });
    }
    limit = Infinity;
  } else {
    // A chunk holds at least two of the largest labels.
    const largest = 2 * table.longest + Math.max(...prefixes.map((b) => b.length)) + Math.max(...middles.map((b) => b.length)) + 2;
    size = Math.max(streaming.chunkBytes, 2 * largest);
    limit = size - largest;
  }
  // [output][SLACK][fixed pieces][SLACK]: copy4 may read and write a few bytes past a range.
  const pieces = [...prefixes, ...middles];
  let piecesLength = 0;
  for (const piece of pieces) piecesLength += piece.length;
  const buf = new Uint8Array(size + SLACK + piecesLength + SLACK);
  const pieceAt = new Int32Array(pieces.length);
  const pieceEnd = new Int32Array(pieces.length);
  for (let p = 0, at = size + SLACK; p < pieces.length; p++) {
    buf.set(pieces[p]!, at);
    pieceAt[p] = at;
    pieceEnd[p] = at += pieces[p]!.length;
  }
  const middleBase = prefixes.length;
  const out: Chunk = { buf, end: size, sink: streaming?.sink };
  const dv = new DataView(buf.buffer);
  const idv = new DataView(ids.buffer, ids.byteOffset, ids.byteLength);

  let len = put(out, 0, headBytes);
  for (let c = 0; c < 4; c++) {
    const { edges, at, tags, tag } = classes[c]!;
    const { from, to, kind } = edges;
    if (c > 0) len = put(out, len, opens[c]!);
    for (let e = 0, k = 0; e < tags.length; e++) {
      if (tags[e] !== tag) continue;
      if (len > limit) len = flush(out, len);
      if (k > 0) buf[len++] = 0x2c;
      const f = at[from[e]!]!;
      const t = at[to[e]!]!;
      const p = prefixOf(c, k);
      len = copy4(dv, pieceAt[p]!, pieceEnd[p]!, dv, len);
      len = copy4(idv, off[f]!, off[f + 1]!, dv, len);
      const m = middleBase + middleOf(c, k, kind[e]!);
      len = copy4(dv, pieceAt[m]!, pieceEnd[m]!, dv, len);
      len = copy4(idv, off[t]!, off[t + 1]!, dv, len);
      buf[len++] = 0x7d;
      k++;
    }
  }
  len = put(out, len, tailBytes);
  if (out.sink !== undefined) {
    if (len > 0) flush(out, len);
    return buf.subarray(0, 0);
  }
  if (len !== size) throw new Error(`encodeDiff: wrote ${len} bytes of ${size}`);
  return buf.subarray(0, size);
}

/**
 * Copies bytes [from, end) of `src` to `len` in `dst`, four at a time, and returns the new end of
 * the output. It may read and write up to 3 bytes past either range: the id table and the fixed
 * pieces are followed by SLACK bytes, and so is the output region; within the output, what a copy
 * writes past `len` is written over by what follows. (A byte loop took twice as long for the diff.)
 */
function copy4(src: DataView, from: number, end: number, dst: DataView, len: number): number {
  let x = from;
  for (; x < end; x += 4, len += 4) dst.setInt32(len, src.getInt32(x, true), true);
  return len - (x - end);
}

/** Each changed label's declared and observed sign as positions in SIGNS, two per label. */
function signIndexes(changed: readonly ChangedSign[]): Uint8Array {
  const out = new Uint8Array(2 * changed.length);
  for (let k = 0; k < changed.length; k++) {
    out[2 * k] = SIGNS.indexOf(changed[k]!.declared_sign);
    out[2 * k + 1] = SIGNS.indexOf(changed[k]!.observed_sign);
  }
  return out;
}

/** The output part of encodeFromPositions' buffer: bytes [0, end), and where they go. */
interface Chunk {
  readonly buf: Uint8Array;
  readonly end: number;
  readonly sink: ByteChunkSink | undefined;
}

/** Hands the chunk's bytes to the sink; returns where writing starts over. */
function flush(out: Chunk, len: number): number {
  out.sink!(out.buf.subarray(0, len));
  return 0;
}

/** Appends a fixed piece (head, tail, a class's opening), which may be larger than a chunk. */
function put(out: Chunk, len: number, bytes: Uint8Array): number {
  if (out.sink !== undefined && len + bytes.length > out.end) {
    len = flush(out, len);
    if (bytes.length > out.end) {
      out.sink(bytes);
      return len;
    }
  }
  out.buf.set(bytes, len);
  return len + bytes.length;
}

const CLASS_NAMES = ['changed_sign', 'declared_and_observed', 'declared_never_observed', 'observed_but_undeclared'] as const;

function labelText(l: EdgeLabel, changed: boolean): string {
  if (changed) {
    const c = l as ChangedSign;
    return `{"declared_sign":"${c.declared_sign}","from":${quoteString(c.from)},"kind":"${c.kind}","observed_sign":"${c.observed_sign}","to":${quoteString(c.to)}}`;
  }
  return `{"from":${quoteString(l.from)},"kind":"${l.kind}","to":${quoteString(l.to)}}`;
}

/** Writes the labels from their strings (a record assembled by hand, or one re-sorted). */
function encodeFromStrings(record: DiffRecord, head: string, tail: string): Uint8Array {
  const { changed_sign: changed, declared_and_observed: both, declared_never_observed: dead, observed_but_undeclared: drift } = record.classes;
  // Size the buffer once, from a sample of the labels with room to spare: a fresh buffer's
  // untouched pages cost nothing, a regrowth copies all written so far. It grows if it must.
  const lists = [changed, both, dead, drift] as const;
  let labels = 0;
  let sampled = 0;
  let sampledChars = 0;
  for (const list of lists) {
    labels += list.length;
    const step = Math.max(1, Math.floor(list.length / 256));
    for (let i = 0; i < list.length; i += step, sampled++) sampledChars += list[i]!.from.length + list[i]!.to.length;
  }
  const perLabel = 48 + (sampled === 0 ? 0 : sampledChars / sampled);
  const sink = new ByteSink(Math.ceil(labels * perLabel * 1.5) + changed.length * 40 + (1 << 16));
  let chunk = head;
  for (let c = 0; c < 4; c++) {
    const list = lists[c]!;
    if (c > 0) chunk += `],"${CLASS_NAMES[c]}":[`;
    for (let i = 0; i < list.length; i++) {
      chunk += `${i ? ',' : ''}${labelText(list[i]!, c === 0)}`;
      if (chunk.length > 8192) {
        sink.write(chunk);
        chunk = '';
      }
    }
  }
  sink.write(chunk);
  sink.write(tail);
  return sink.bytes();
}

/** The raw digest the record names, over its bytes. */
export function diffDigest(record: DiffRecord): Uint8Array {
  const hash = createDigest(record.algorithm);
  writeDiff(record, (chunk) => hash.update(chunk));
  return hash.digest();
}

/** The lowercase hex digest the record names, over its bytes. */
export function diffDigestHex(record: DiffRecord): string {
  return bytesToHex(diffDigest(record));
}
