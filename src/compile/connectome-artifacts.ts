/**
 * The connectome part of a compile: the declared graph of the catalog (plus an optional host
 * graph), its canonical bytes and digest envelope, DOT and GraphML renderings, and its edges with
 * their signs for the OPA data document. toolgate writes only `unset` signs; a consumer's sign
 * policy may fill them before this step (see src/signs/).
 */
import { digestEnvelope, envelopeBytes, signedEnvelope, type SignatureMetadata, type Signer } from '../canonical/envelope.ts';
import type { DigestAlgorithm } from '../canonical/digest.ts';
import type { Catalog } from '../catalog/types.ts';
import { buildDeclaredConnectome, encodeGraph, toDot, toGraphMLBytes, type Graph, type GraphInput } from '../connectome/index.ts';
import type { DataEdge } from './data-document.ts';

export interface ConnectomeArtifacts {
  readonly graph: Graph;
  /** The catalog's declared graph alone: no host graph, no signs filled, no signature. */
  readonly declaredOnly: boolean;
  readonly digest: string;
  readonly edges: readonly DataEdge[];
  readonly files: readonly { name: string; bytes: Uint8Array }[];
}

export interface ConnectomeOptions {
  readonly hostGraph?: Graph | GraphInput;
  readonly algorithm?: DigestAlgorithm;
  readonly signature?: SignatureMetadata;
  readonly signer?: Signer;
  /** A graph whose signs a consumer already filled; defaults to the declared graph (all `unset`). */
  readonly signedGraph?: Graph;
}

const encoder = new TextEncoder();

export async function connectomeArtifacts(catalog: Catalog, options: ConnectomeOptions = {}): Promise<ConnectomeArtifacts> {
  const graph = options.signedGraph ?? buildDeclaredConnectome(catalog, options.hostGraph);
  const algorithm = options.algorithm ?? 'sha256';
  const bytes = encodeGraph(graph, { algorithm });
  const meta = options.signature ?? {};
  const envelope = options.signer ? await signedEnvelope(bytes, algorithm, options.signer, meta) : digestEnvelope(bytes, algorithm, meta);
  const edges: DataEdge[] = graph.edges.map((e) => ({ from: e.from, to: e.to, kind: e.kind, provenance: e.provenance, sign: e.sign }));
  return {
    graph,
    declaredOnly: options.signedGraph === undefined && options.hostGraph === undefined && options.signer === undefined,
    digest: envelope.digest,
    edges,
    files: [
      { name: 'connectome.json', bytes },
      { name: 'connectome.digest.json', bytes: envelopeBytes(envelope) },
      { name: 'connectome.dot', bytes: encoder.encode(toDot(graph)) },
      { name: 'connectome.graphml', bytes: toGraphMLBytes(graph) },
    ],
  };
}

/** The encoded files of a declared connectome kept from an earlier compile of a catalog with the same digest. */
export interface KeptConnectomeFiles {
  /** connectome.json, as encoded with `algorithm`. */
  readonly json: Uint8Array;
  readonly dot: Uint8Array;
  readonly graphml: Uint8Array;
  /** Its edges, as the data document carries them. */
  readonly edges: readonly DataEdge[];
}

/**
 * The declared connectome's artifacts from files an earlier compile of the same catalog wrote,
 * without building the graph again (about a second at the bench's scale 1): the envelope is made
 * afresh for `meta`; the graph itself is built only if something asks for it.
 */
export function keptConnectomeArtifacts(catalog: Catalog, kept: KeptConnectomeFiles, algorithm: DigestAlgorithm = 'sha256', meta: SignatureMetadata = {}): ConnectomeArtifacts {
  const envelope = digestEnvelope(kept.json, algorithm, meta);
  let graph: Graph | undefined;
  return {
    get graph() {
      return (graph ??= buildDeclaredConnectome(catalog));
    },
    declaredOnly: true,
    digest: envelope.digest,
    edges: kept.edges,
    files: [
      { name: 'connectome.json', bytes: kept.json },
      { name: 'connectome.digest.json', bytes: envelopeBytes(envelope) },
      { name: 'connectome.dot', bytes: kept.dot },
      { name: 'connectome.graphml', bytes: kept.graphml },
    ],
  };
}
