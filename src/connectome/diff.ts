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
import { assertDigestAlgorithm, digestHex, digestOf, type DigestAlgorithm } from '../canonical/digest.ts';
import { canonicalString, compareUtf16, quoteString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { checkGraph, describeValue, edgeEndpoints, type Graph, type GraphInput } from './graph.ts';
import { compareCodePoints, hasHighUnit } from './strings.ts';
import { EDGE_KINDS, type EdgeKind, type Sign } from './vocabulary.ts';

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

export interface Coverage {
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
  readonly coverage: Coverage;
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
  const other = side === 'declared' ? 'observed' : 'declared';
  for (const e of g.edges) {
    if (e.provenance !== side) refuse(`${side}: edge ${JSON.stringify(e.from)} -> ${JSON.stringify(e.to)} (${e.kind}) has provenance ${other}`, `${side}.edges`);
  }
  return g;
}

// Edge kinds in string order, the order canonical edges are sorted by within one (from, to).
const KINDS_SORTED: readonly EdgeKind[] = [...EDGE_KINDS].sort();
const KIND_RANK = new Map<string, number>(KINDS_SORTED.map((k, i) => [k, i] as const));

/** 1 where a node's id holds a code unit past U+D7FF (where UTF-16 and code-point order can part). */
function highUnits(nodes: Graph['nodes']): Uint8Array {
  const out = new Uint8Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) if (hasHighUnit(nodes[i]!.id)) out[i] = 1;
  return out;
}

function compareLabels(a: EdgeLabel, b: EdgeLabel): number {
  return compareUtf16(a.from, b.from) || compareUtf16(a.to, b.to) || compareUtf16(a.kind, b.kind);
}

/** A growable pair of endpoint-position lists (union node positions), one entry per label. */
class LabelEnds {
  from: Int32Array;
  to: Int32Array;
  /** The kind's rank in KINDS_SORTED. */
  kind: Uint8Array;
  length = 0;
  constructor(capacity: number) {
    this.from = new Int32Array(Math.max(16, capacity));
    this.to = new Int32Array(Math.max(16, capacity));
    this.kind = new Uint8Array(Math.max(16, capacity));
  }
  add(f: number, t: number, kind: number): void {
    if (this.length === this.from.length) {
      const from = new Int32Array(this.length * 2);
      const to = new Int32Array(this.length * 2);
      const kinds = new Uint8Array(this.length * 2);
      from.set(this.from);
      to.set(this.to);
      kinds.set(this.kind);
      this.from = from;
      this.to = to;
      this.kind = kinds;
    }
    this.from[this.length] = f;
    this.to[this.length] = t;
    this.kind[this.length++] = kind;
  }
}

/**
 * What diffConnectomes knows of its record's labels and encodeDiff uses to write them without
 * reading an id string per label: the union of both graphs' node ids, in code-point order, and
 * each class's labels as endpoint positions in it. Keyed by the (frozen) classes object, so a
 * record assembled by hand, or one whose classes were replaced, is written from its strings.
 */
interface Positions {
  readonly ids: readonly string[];
  readonly ends: readonly [LabelEnds, LabelEnds, LabelEnds, LabelEnds];
  /** Each class's label list once made (a caller read it); until then there is nothing to check. */
  readonly made: readonly (readonly EdgeLabel[] | undefined)[];
}

/** A class's labels, made from their positions. */
function labelsOf(ids: readonly string[], e: LabelEnds): EdgeLabel[] {
  const out: EdgeLabel[] = new Array<EdgeLabel>(e.length);
  for (let k = 0; k < e.length; k++) out[k] = { from: ids[e.from[k]!]!, kind: KINDS_SORTED[e.kind[k]!]!, to: ids[e.to[k]!]! };
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
  const dn = d.nodes;
  const on = o.nodes;
  const dHigh = highUnits(dn);
  const oHigh = highUnits(on);
  const dAt = new Int32Array(dn.length);
  const oAt = new Int32Array(on.length);
  const dInO = new Uint8Array(dn.length);
  const oInD = new Uint8Array(on.length);
  const ids: string[] = [];
  let nodesInBoth = 0;
  let i = 0;
  let j = 0;
  let u = 0;
  while (i < dn.length && j < on.length) {
    const a = dn[i]!.id;
    const b = on[j]!.id;
    if (a === b) {
      dInO[i] = 1;
      oInD[j] = 1;
      nodesInBoth++;
      ids.push(a);
      dAt[i++] = u;
      oAt[j++] = u++;
    } else if (dHigh[i] === 1 && oHigh[j] === 1 ? compareCodePoints(a, b) < 0 : a < b) {
      ids.push(a);
      dAt[i++] = u++;
    } else {
      ids.push(b);
      oAt[j++] = u++;
    }
  }
  while (i < dn.length) {
    ids.push(dn[i]!.id);
    dAt[i++] = u++;
  }
  while (j < on.length) {
    ids.push(on[j]!.id);
    oAt[j++] = u++;
  }

  const de = d.edges;
  const oe = o.edges;
  const dEnds = edgeEndpoints(d);
  const oEnds = edgeEndpoints(o);
  const changed: ChangedSign[] = [];
  let declaredEndpointCovered = 0;
  let observedEndpointDeclared = 0;
  let declaredSignOnly = 0;
  let observedSignOnly = 0;
  let high = false;
  for (let k = 0; k < de.length; k++) {
    const f = dEnds.from[k]!;
    const t = dEnds.to[k]!;
    if (dInO[f] === 1 && dInO[t] === 1) declaredEndpointCovered++;
    if (dHigh[f] === 1 || dHigh[t] === 1) high = true;
  }
  for (let k = 0; k < oe.length; k++) {
    const f = oEnds.from[k]!;
    const t = oEnds.to[k]!;
    if (oInD[f] === 1 && oInD[t] === 1) observedEndpointDeclared++;
    if (oHigh[f] === 1 || oHigh[t] === 1) high = true;
  }
  // Each label's endpoints as union positions, per class, in the record's order (for encodeDiff).
  const ends = [new LabelEnds(Math.min(de.length, oe.length)), new LabelEnds(Math.min(de.length, oe.length)), new LabelEnds(de.length), new LabelEnds(oe.length)] as const;
  const [changedEnds, bothEnds, deadEnds, driftEnds] = ends;
  i = 0;
  j = 0;
  while (i < de.length || j < oe.length) {
    let c: number;
    if (i === de.length) c = 1;
    else if (j === oe.length) c = -1;
    else {
      c =
        dAt[dEnds.from[i]!]! - oAt[oEnds.from[j]!]! ||
        dAt[dEnds.to[i]!]! - oAt[oEnds.to[j]!]! ||
        KIND_RANK.get(de[i]!.kind)! - KIND_RANK.get(oe[j]!.kind)!;
    }
    if (c < 0) {
      deadEnds.add(dAt[dEnds.from[i]!]!, dAt[dEnds.to[i]!]!, KIND_RANK.get(de[i++]!.kind)!);
    } else if (c > 0) {
      driftEnds.add(oAt[oEnds.from[j]!]!, oAt[oEnds.to[j]!]!, KIND_RANK.get(oe[j++]!.kind)!);
    } else {
      const f = dAt[dEnds.from[i]!]!;
      const t = dAt[dEnds.to[i]!]!;
      const e = de[i++]!;
      const os = oe[j++]!.sign;
      const ds = e.sign;
      if (ds !== 'unset' && os !== 'unset' && ds !== os) {
        changedEnds.add(f, t, KIND_RANK.get(e.kind)!);
        changed.push({ declared_sign: ds, from: e.from, kind: e.kind, observed_sign: os, to: e.to });
      } else {
        bothEnds.add(f, t, KIND_RANK.get(e.kind)!);
        if (ds !== 'unset' && os === 'unset') declaredSignOnly++;
        if (os !== 'unset' && ds === 'unset') observedSignOnly++;
      }
    }
  }
  let classes: DiffRecord['classes'];
  if (high) {
    // Canonical edge order is code-point order; the record's is UTF-16. They differ only past
    // U+D7FF; the re-sort parts the labels from their positions, so encodeDiff reads the strings.
    const lists = [changed, labelsOf(ids, bothEnds), labelsOf(ids, deadEnds), labelsOf(ids, driftEnds)] as const;
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
    POSITIONS.set(classes, { ids, ends, made });
  }
  return {
    algorithm,
    classes,
    coverage: {
      declared_and_observed: changed.length + bothEnds.length,
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

/** The record's canonical bytes: its keys sorted (RFC 8785), no trailing newline. */
export function encodeDiff(record: DiffRecord, options: { algorithm?: DigestAlgorithm } = {}): Uint8Array {
  const algorithm = options.algorithm ?? record.algorithm;
  assertDigestAlgorithm(algorithm);
  const head = `{"algorithm":"${algorithm}","classes":{"changed_sign":[`;
  const tail = `]},"coverage":${canonicalString(record.coverage)},"schema_version":${record.schema_version},"window":${canonicalString(record.window)}}`;
  const positions = POSITIONS.get(record.classes);
  return positions === undefined ? encodeFromStrings(record, head, tail) : encodeFromPositions(record, positions, head, tail);
}

const encoder = new TextEncoder();
/**
 * Writes the labels from their endpoint positions: every id is quoted and encoded once, into
 * one byte buffer with offsets by position, and each label copies two byte ranges out of it
 * instead of reading (and quoting) two id strings that lie all over the heap. A first pass sums
 * the exact size from the positions alone; the writing pass checks every label still holds the
 * strings its positions name (a pointer comparison) and, if one does not (the record was changed
 * after it was made), the record is written from its strings instead.
 */
function encodeFromPositions(record: DiffRecord, positions: Positions, head: string, tail: string): Uint8Array {
  const { ids, ends, made } = positions;
  const changed = record.classes.changed_sign;
  const quoted = new ByteSink(ids.length * 32 + 64);
  const off = new Int32Array(ids.length + 1);
  for (let k = 0; k < ids.length; k++) {
    quoted.write(quoteString(ids[k]!));
    off[k + 1] = quoted.length;
  }
  const q = quoted.bytes();
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(tail);
  const kindBytes = KINDS_SORTED.map((k) => encoder.encode(`,"kind":"${k}","to":`));
  const fromKey = encoder.encode('{"from":');
  let size = headBytes.length + tailBytes.length;
  for (let c = 0; c < 4; c++) {
    const { from, to, kind, length } = ends[c]!;
    const list = c === 0 ? changed : made[c];
    if (list !== undefined && length !== list.length) return encodeFromStrings(record, head, tail);
    if (c > 0) size += CLASS_NAMES[c]!.length + 6;
    if (length > 0) size += length - 1; // commas
    for (let k = 0; k < length; k++) {
      const f = from[k]!;
      const t = to[k]!;
      size += off[f + 1]! - off[f]! + off[t + 1]! - off[t]! + fromKey.length + kindBytes[kind[k]!]!.length + 1;
    }
  }
  // The changed labels (a few) carry their signs: written from their text, counted here.
  const changedText: Uint8Array[] = [];
  for (let k = 0; k < changed.length; k++) {
    const b = encoder.encode(labelText(changed[k]!, true));
    changedText.push(b);
    const f = ends[0].from[k]!;
    const t = ends[0].to[k]!;
    size += b.length - (off[f + 1]! - off[f]! + off[t + 1]! - off[t]! + fromKey.length + kindBytes[ends[0].kind[k]!]!.length + 1);
  }
  // The quoted ids and the fixed pieces lie in the same buffer, past the record's bytes, so each
  // piece is one copyWithin (a native memmove, no view object made per piece).
  const pieces = [fromKey, ...kindBytes];
  let extra = q.length;
  for (const p of pieces) extra += p.length;
  const buf = new Uint8Array(size + extra);
  buf.set(q, size);
  const at: number[] = [];
  let p = size + q.length;
  for (const piece of pieces) {
    buf.set(piece, p);
    at.push(p);
    p += piece.length;
  }
  buf.set(headBytes, 0);
  let len = headBytes.length;
  for (let k = 0; k < changedText.length; k++) {
    if (k > 0) buf[len++] = 0x2c;
    buf.set(changedText[k]!, len);
    len += changedText[k]!.length;
  }
  const fromAt = at[0]!;
  const fromEnd = fromAt + fromKey.length;
  const midAt = Int32Array.from(at.slice(1));
  const midLen = Int32Array.from(kindBytes.map((b) => b.length));
  for (let c = 1; c < 4; c++) {
    const list = made[c];
    const { from, to, kind, length } = ends[c]!;
    const open = encoder.encode(`],"${CLASS_NAMES[c]}":[`);
    buf.set(open, len);
    len += open.length;
    for (let k = 0; k < length; k++) {
      const f = from[k]!;
      const t = to[k]!;
      const m = kind[k]!;
      if (list !== undefined) {
        const l = list[k]!;
        if (l.from !== ids[f] || l.to !== ids[t] || l.kind !== KINDS_SORTED[m]) return encodeFromStrings(record, head, tail);
      }
      if (k > 0) buf[len++] = 0x2c;
      buf.copyWithin(len, fromAt, fromEnd);
      len += fromEnd - fromAt;
      const fs = size + off[f]!;
      const fe = size + off[f + 1]!;
      buf.copyWithin(len, fs, fe);
      len += fe - fs;
      const ms = midAt[m]!;
      buf.copyWithin(len, ms, ms + midLen[m]!);
      len += midLen[m]!;
      const ts = size + off[t]!;
      const te = size + off[t + 1]!;
      buf.copyWithin(len, ts, te);
      len += te - ts;
      buf[len++] = 0x7d;
    }
  }
  buf.set(tailBytes, len);
  len += tailBytes.length;
  if (len !== size) throw new Error(`encodeDiff: wrote ${len} bytes of ${size}`);
  return buf.subarray(0, size);
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
  return digestOf(encodeDiff(record), record.algorithm);
}

/** The lowercase hex digest the record names, over its bytes. */
export function diffDigestHex(record: DiffRecord): string {
  return digestHex(encodeDiff(record), record.algorithm);
}
