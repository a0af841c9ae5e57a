/**
 * Declared against observed (reference: beam_mcp docs/connectome-diff.md): every edge label
 * (from, to, kind), after NFC, lands in exactly one of four classes; ten coverage counts; the
 * consumer's window carried verbatim; the algorithm the record is hashed with. A record, never a
 * verdict. Refusals come in the page's order: the options, the declared graph, the observed
 * graph, the window; the first found is the one reported.
 *
 * The work is linear: one hash index per side, and the classes come out already sorted because
 * both graphs' edges are in canonical order (a re-sort happens only when an id holds a code unit
 * where UTF-16 order and code-point order part).
 */
import { ByteSink } from '../canonical/bytes.ts';
import { assertDigestAlgorithm, digestHex, digestOf, type DigestAlgorithm } from '../canonical/digest.ts';
import { canonicalString, compareUtf16, quoteString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { checkGraph, describeValue, type Graph, type GraphInput } from './graph.ts';
import { hasHighUnit } from './strings.ts';
import type { EdgeKind, Sign } from './vocabulary.ts';

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

const key = (from: string, to: string, kind: string): string => `${from}\u0000${to}\u0000${kind}`;

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

  const oIndex = new Map<string, Sign>();
  for (const e of o.edges) oIndex.set(key(e.from, e.to, e.kind), e.sign);
  const dIds = new Set<string>();
  for (const n of d.nodes) dIds.add(n.id);
  const oIds = new Set<string>();
  let nodesInBoth = 0;
  for (const n of o.nodes) {
    oIds.add(n.id);
    if (dIds.has(n.id)) nodesInBoth++;
  }

  const changed: ChangedSign[] = [];
  const both: EdgeLabel[] = [];
  const dead: EdgeLabel[] = [];
  const drift: EdgeLabel[] = [];
  const dKeys = new Set<string>();
  let declaredEndpointCovered = 0;
  let declaredSignOnly = 0;
  let observedSignOnly = 0;
  let high = false;
  for (const e of d.edges) {
    const k = key(e.from, e.to, e.kind);
    dKeys.add(k);
    if (!high && (hasHighUnit(e.from) || hasHighUnit(e.to))) high = true;
    if (oIds.has(e.from) && oIds.has(e.to)) declaredEndpointCovered++;
    const os = oIndex.get(k);
    if (os === undefined) {
      dead.push({ from: e.from, kind: e.kind, to: e.to });
      continue;
    }
    const ds = e.sign;
    if (ds !== 'unset' && os !== 'unset' && ds !== os) {
      changed.push({ declared_sign: ds, from: e.from, kind: e.kind, observed_sign: os, to: e.to });
    } else {
      both.push({ from: e.from, kind: e.kind, to: e.to });
      if (ds !== 'unset' && os === 'unset') declaredSignOnly++;
      if (os !== 'unset' && ds === 'unset') observedSignOnly++;
    }
  }
  let observedEndpointDeclared = 0;
  for (const e of o.edges) {
    if (!high && (hasHighUnit(e.from) || hasHighUnit(e.to))) high = true;
    if (dIds.has(e.from) && dIds.has(e.to)) observedEndpointDeclared++;
    if (!dKeys.has(key(e.from, e.to, e.kind))) drift.push({ from: e.from, kind: e.kind, to: e.to });
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
  const sink = new ByteSink();
  let chunk = `{"algorithm":"${algorithm}","classes":{"changed_sign":[`;
  const flush = (): void => {
    if (chunk.length > 8192) {
      sink.write(chunk);
      chunk = '';
    }
  };
  record.classes.changed_sign.forEach((c, i) => {
    chunk += `${i ? ',' : ''}{"declared_sign":"${c.declared_sign}","from":${quoteString(c.from)},"kind":"${c.kind}","observed_sign":"${c.observed_sign}","to":${quoteString(c.to)}}`;
    flush();
  });
  for (const name of ['declared_and_observed', 'declared_never_observed', 'observed_but_undeclared'] as const) {
    chunk += `],"${name}":[`;
    record.classes[name].forEach((l, i) => {
      chunk += `${i ? ',' : ''}{"from":${quoteString(l.from)},"kind":"${l.kind}","to":${quoteString(l.to)}}`;
      flush();
    });
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
