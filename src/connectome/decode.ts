/**
 * Reading a connectome back from JSON: any key order, any spacing, schema_version 3 (a BEAM
 * host's bytes, without `resource_template`) or 4. What is read is built again through
 * `buildGraph`, so every refusal of the builder applies; the result is always a version-4 graph.
 */
import { isDigestAlgorithm, type DigestAlgorithm } from '../canonical/digest.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { JsonFloat, parseStrictJson, type StrictJsonValue } from '../canonical/strict-json.ts';
import { rootAt } from '../parse/source-names.ts';
import { ToolgateError } from '../errors.ts';
import { buildGraph, type ConnectomeEdge, type ConnectomeNode, type Graph } from './graph.ts';
import { describeValue } from './describe-value.ts';
import { NODE_KINDS_V3, READABLE_SCHEMA_VERSIONS } from './vocabulary.ts';

export interface DecodeOptions {
  /** Names the input in error locations (a file name). */
  readonly source?: string;
}

export interface DecodedGraph {
  readonly graph: Graph;
  /** The algorithm the bytes named. */
  readonly algorithm: DigestAlgorithm;
  /** The schema_version the bytes carried (3 or 4); the graph itself is version 4. */
  readonly readVersion: number;
}

const TOP = ['schema_version', 'algorithm', 'nodes', 'edges'];
const NODE = ['id', 'kind', 'labels', 'level'];
const EDGE = ['from', 'kind', 'provenance', 'sign', 'to'];

/** A JSON object of the parsed bytes: a JsonFloat (a number kept exact) is an object to JS, not to JSON. */
function isObject(v: unknown): v is Record<string, StrictJsonValue> {
  return isJsonObject(v) && !(v instanceof JsonFloat);
}

function nodeNamed(n: Record<string, StrictJsonValue>): string {
  return `node ${describeValue(n.id)}`;
}

function edgeNamed(e: Record<string, StrictJsonValue>): string {
  return `edge ${describeValue(e.from)} -> ${describeValue(e.to)}`;
}

function textOf(input: string | Uint8Array, source: string): string {
  if (typeof input === 'string') return input;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(input);
  } catch {
    throw new ToolgateError('PARSE_ERROR', `${source}: not well-formed UTF-8`, { at: [{ file: source }] });
  }
}

/** Decodes a connectome envelope and reports what the bytes named. */
export function decodeGraph(input: string | Uint8Array, options: DecodeOptions = {}): DecodedGraph {
  const source = options.source ?? '<graph>';
  const text = textOf(input, source);
  const value = parseStrictJson(text, source);
  const bad = (path: string, text: string): never => {
    throw new ToolgateError('GRAPH_INVALID', text, { at: [{ file: source, path }] });
  };
  if (!isObject(value)) throw new ToolgateError('GRAPH_INVALID', `a connectome must be a JSON object, got ${describeValue(value)}`, { at: [rootAt(source, text)] });
  const version = value.schema_version;
  if (typeof version !== 'number' || !READABLE_SCHEMA_VERSIONS.includes(version)) {
    return bad('schema_version', `schema_version ${describeValue(version)} cannot be read: toolgate reads versions ${READABLE_SCHEMA_VERSIONS.join(' and ')}`);
  }
  for (const k of Object.keys(value)) if (!TOP.includes(k)) bad(k, `unknown top-level member ${JSON.stringify(k)}`);
  for (const k of TOP) if (!(k in value)) bad(k, `missing top-level member ${JSON.stringify(k)} (required at schema_version ${version})`);
  const algorithm = value.algorithm;
  if (!isDigestAlgorithm(algorithm)) {
    throw new ToolgateError('DIGEST_ALGORITHM_UNSUPPORTED', `algorithm ${describeValue(algorithm)} is not one of sha256, sha384, sha512: the record is refused`, {
      at: [{ file: source, path: 'algorithm' }],
    });
  }
  const nodes = value.nodes;
  const edges = value.edges;
  if (!Array.isArray(nodes)) return bad('nodes', 'nodes must be an array');
  if (!Array.isArray(edges)) return bad('edges', 'edges must be an array');
  // A node's or edge's name for a message is made only when there is a fault to report: made for
  // every one, it was an eighth of reading a 100,000-node graph.
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (!isObject(n)) return bad(`nodes[${i}]`, `node must be an object, got ${describeValue(n)}`);
    for (const k in n) if (!NODE.includes(k)) bad(`nodes[${i}].${k}`, `${nodeNamed(n)}: unknown member ${JSON.stringify(k)}`);
    for (const k of NODE) if (!(k in n)) bad(`nodes[${i}].${k}`, `${nodeNamed(n)}: missing member ${JSON.stringify(k)}`);
    if (version === 3 && typeof n.kind === 'string' && n.kind === 'resource_template') {
      bad(`nodes[${i}].kind`, `${nodeNamed(n)}: kind "resource_template" is not in the version-3 vocabulary (${NODE_KINDS_V3.join(', ')})`);
    }
  }
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i];
    if (!isObject(e)) return bad(`edges[${i}]`, `edge must be an object, got ${describeValue(e)}`);
    for (const k in e) if (!EDGE.includes(k)) bad(`edges[${i}].${k}`, `${edgeNamed(e)}: unknown member ${JSON.stringify(k)} (a weight travels in the sidecar)`);
    for (const k of EDGE) if (!(k in e)) bad(`edges[${i}].${k}`, `${edgeNamed(e)}: missing member ${JSON.stringify(k)}`);
  }
  const graph = buildGraph(
    { nodes: nodes as unknown as ConnectomeNode[], edges: edges as unknown as ConnectomeEdge[] },
    { source },
  );
  return { graph, algorithm, readVersion: version };
}

/**
 * A graph from its JSON (any key order or spacing; version 3 or 4), as a version-4 graph.
 * @example graphFromJSON(text).nodes.length
 */
export function graphFromJSON(input: string | Uint8Array, options: DecodeOptions = {}): Graph {
  return decodeGraph(input, options).graph;
}
