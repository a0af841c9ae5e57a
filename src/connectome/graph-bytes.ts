/**
 * Canonical bytes of a connectome (reference: beam_mcp docs/connectome-canonical.md rules 1-9),
 * at schema_version 4 (or 3, beam_mcp's, when asked): `{"schema_version":4,"algorithm":A,"nodes":[...],"edges":[...]}` in that
 * fixed order, nodes by id and edges by (from, to, kind, provenance) in code-point order, each
 * node `{"id","kind","labels","level"}`, each edge `{"from","kind","provenance","sign","to"}`,
 * no weight; labels by RFC 8785 rules through `canonical/json.ts`. The digest is the one the
 * bytes name, over exactly the bytes.
 */
import { ByteSink } from '../canonical/bytes.ts';
import { assertDigestAlgorithm, digestHex, digestOf, type DigestAlgorithm } from '../canonical/digest.ts';
import { quoteString } from '../canonical/json.ts';
import { checkGraph, graphCodes, type Graph, type GraphInput } from './graph.ts';
import { SCHEMA_VERSION, NODE_KINDS_V3, WRITABLE_SCHEMA_VERSIONS, type SchemaVersion } from './vocabulary.ts';
import { ToolgateError } from '../errors.ts';

export interface EncodeOptions {
  /** The digest the bytes name and are hashed with. Default `sha256`; any other name is refused before a byte is written. */
  readonly algorithm?: DigestAlgorithm;
  /** The schema_version written: 4 (default), or 3 for a graph version 3's vocabulary can carry. */
  readonly schemaVersion?: SchemaVersion;
}

/**
 * The version to write, checked against the graph before a byte is written: version 3 has no
 * `resource_template` kind, so such a graph has no version-3 bytes.
 */
export function schemaVersionFor(graph: Graph, options: { readonly schemaVersion?: SchemaVersion }): SchemaVersion {
  const v = options.schemaVersion ?? SCHEMA_VERSION;
  if (!(WRITABLE_SCHEMA_VERSIONS as readonly number[]).includes(v)) {
    throw new ToolgateError('GRAPH_INVALID', `schema_version ${String(v)} cannot be written: toolgate writes versions ${WRITABLE_SCHEMA_VERSIONS.join(' and ')}`, { at: [{ file: '<graph>' }] });
  }
  if (v === 3) {
    const n = graph.nodes.find((x) => !NODE_KINDS_V3.includes(x.kind));
    if (n) {
      throw new ToolgateError('GRAPH_INVALID', `node ${JSON.stringify(n.id)}: kind ${JSON.stringify(n.kind)} is not in the schema_version 3 vocabulary; the graph has no version-3 bytes`, {
        at: [{ file: '<graph>', path: n.id }],
      });
    }
  }
  return v;
}

function resolveAlgorithm(options: EncodeOptions): DigestAlgorithm {
  const algorithm = options.algorithm ?? 'sha256';
  assertDigestAlgorithm(algorithm);
  return algorithm;
}

/**
 * The canonical bytes of a graph (a hand-assembled graph is checked first).
 * @example new TextDecoder().decode(encodeGraph(g)).startsWith('{"schema_version":4,"algorithm":"sha256"') // true
 */
export function encodeGraph(graph: Graph | GraphInput, options: EncodeOptions = {}): Uint8Array {
  const algorithm = resolveAlgorithm(options);
  const g = checkGraph(graph);
  const version = schemaVersionFor(g, options);
  const nodes = g.nodes;
  const texts = g.labelTexts;
  const edges = g.edges;
  const ends = graphCodes(g);
  const sink = new ByteSink(Math.max(1 << 16, nodes.length * 96 + edges.length * 128));
  sink.write(`{"schema_version":${version},"algorithm":"${algorithm}","nodes":[`);
  // Quoted ids, by node position, are reused by every edge that names them.
  const quoted: string[] = new Array<string>(nodes.length);
  let chunk = '';
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    const q = quoteString(n.id);
    quoted[i] = q;
    chunk += `${i === 0 ? '' : ','}{"id":${q},"kind":"${n.kind}","labels":${texts[i]!},"level":"${n.level}"}`;
    if (chunk.length > 8192) {
      sink.write(chunk);
      chunk = '';
    }
  }
  chunk += '],"edges":[';
  const from = ends.from;
  const to = ends.to;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    chunk += `${i === 0 ? '' : ','}{"from":${quoted[from[i]!]!},"kind":"${e.kind}","provenance":"${e.provenance}","sign":"${e.sign}","to":${quoted[to[i]!]!}}`;
    if (chunk.length > 8192) {
      sink.write(chunk);
      chunk = '';
    }
  }
  chunk += ']}';
  sink.write(chunk);
  return sink.bytes();
}

/** The canonical text (for tests and small graphs; prefer `encodeGraph` for large ones). */
export function encodeGraphText(graph: Graph | GraphInput, options: EncodeOptions = {}): string {
  return new TextDecoder().decode(encodeGraph(graph, options));
}

/** The raw digest the bytes name, over the canonical bytes. */
export function graphDigest(graph: Graph | GraphInput, options: EncodeOptions = {}): Uint8Array {
  const algorithm = resolveAlgorithm(options);
  return digestOf(encodeGraph(graph, { ...options, algorithm }), algorithm);
}

/** The lowercase hex digest of the canonical bytes. */
export function graphDigestHex(graph: Graph | GraphInput, options: EncodeOptions = {}): string {
  const algorithm = resolveAlgorithm(options);
  return digestHex(encodeGraph(graph, { algorithm }), algorithm);
}
