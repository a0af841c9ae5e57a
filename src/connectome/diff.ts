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
const KIND_RANK = new Map<string, number>([...EDGE_KINDS].sort().map((k, i) => [k, i] as const));

/** 1 where a node's id holds a code unit past U+D7FF (where UTF-16 and code-point order can part). */
function highUnits(nodes: Graph['nodes']): Uint8Array {
  const out = new Uint8Array(nodes.length);
  for (let i = 0; i < nodes.length; i++) if (hasHighUnit(nodes[i]!.id)) out[i] = 1;
  return out;
}

function compareLabels(a: EdgeLabel, b: EdgeLabel): number {
  return compareUtf16(a.from, b.from) || compareUtf16(a.to, b.to) || compareUtf16(a.kind, b.kind);
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
  const dn = d.nodes;
  const on = o.nodes;
  const dHigh = highUnits(dn);
  const oHigh = highUnits(on);
  const dAt = new Int32Array(dn.length);
  const oAt = new Int32Array(on.length);
  const dInO = new Uint8Array(dn.length);
  const oInD = new Uint8Array(on.length);
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
      dAt[i++] = u;
      oAt[j++] = u++;
    } else if (dHigh[i] === 1 && oHigh[j] === 1 ? compareCodePoints(a, b) < 0 : a < b) {
      dAt[i++] = u++;
    } else {
      oAt[j++] = u++;
    }
  }
  while (i < dn.length) dAt[i++] = u++;
  while (j < on.length) oAt[j++] = u++;

  const de = d.edges;
  const oe = o.edges;
  const dEnds = edgeEndpoints(d);
  const oEnds = edgeEndpoints(o);
  const changed: ChangedSign[] = [];
  const both: EdgeLabel[] = [];
  const dead: EdgeLabel[] = [];
  const drift: EdgeLabel[] = [];
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
      const e = de[i++]!;
      dead.push({ from: e.from, kind: e.kind, to: e.to });
    } else if (c > 0) {
      const e = oe[j++]!;
      drift.push({ from: e.from, kind: e.kind, to: e.to });
    } else {
      const e = de[i++]!;
      const os = oe[j++]!.sign;
      const ds = e.sign;
      if (ds !== 'unset' && os !== 'unset' && ds !== os) {
        changed.push({ declared_sign: ds, from: e.from, kind: e.kind, observed_sign: os, to: e.to });
      } else {
        both.push({ from: e.from, kind: e.kind, to: e.to });
        if (ds !== 'unset' && os === 'unset') declaredSignOnly++;
        if (os !== 'unset' && ds === 'unset') observedSignOnly++;
      }
    }
  }
  // Canonical edge order is code-point order; the record's is UTF-16. They differ only past U+D7FF.
  if (high) for (const list of [changed, both, dead, drift] as EdgeLabel[][]) list.sort(compareLabels);
  return {
    algorithm,
    classes: { changed_sign: changed, declared_and_observed: both, declared_never_observed: dead, observed_but_undeclared: drift },
    coverage: {
      declared_and_observed: changed.length + both.length,
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
  let chunk = `{"algorithm":"${algorithm}","classes":{"changed_sign":[`;
  for (let i = 0; i < changed.length; i++) {
    const c = changed[i]!;
    chunk += `${i ? ',' : ''}{"declared_sign":"${c.declared_sign}","from":${quoteString(c.from)},"kind":"${c.kind}","observed_sign":"${c.observed_sign}","to":${quoteString(c.to)}}`;
    if (chunk.length > 8192) {
      sink.write(chunk);
      chunk = '';
    }
  }
  for (const [name, list] of [['declared_and_observed', both], ['declared_never_observed', dead], ['observed_but_undeclared', drift]] as const) {
    chunk += `],"${name}":[`;
    for (let i = 0; i < list.length; i++) {
      const l = list[i]!;
      chunk += `${i ? ',' : ''}{"from":${quoteString(l.from)},"kind":"${l.kind}","to":${quoteString(l.to)}}`;
      if (chunk.length > 8192) {
        sink.write(chunk);
        chunk = '';
      }
    }
  }
  chunk += `]},"coverage":${canonicalString(record.coverage)},"schema_version":${record.schema_version},"window":`;
  sink.write(chunk);
  sink.write(canonicalString(record.window));
  sink.write('}');
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
