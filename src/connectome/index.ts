/**
 * The connectome library: identities and ids, graph build and check, levels and collapse,
 * canonical bytes and digests, the weights sidecar, DOT and GraphML, observations, the
 * declared-vs-observed diff and reachability. See README.md in this folder.
 */
export { SCHEMA_VERSION, READABLE_SCHEMA_VERSIONS, NODE_KINDS, EDGE_KINDS, SIGNS, PROVENANCES, LEVELS, BOUNDARY_SOURCES, levelRank } from './vocabulary.ts';
export type { NodeKind, EdgeKind, Sign, ConnectomeProvenance, Level, BoundarySource } from './vocabulary.ts';
export { nodeId, escapeComponent, inspectModule, kindOf, levelOf } from './identity.ts';
export type { Identity, NamedIdentity, ModuleAtom } from './identity.ts';
export { Graph, buildGraph, checkGraph, isGraph, nodeFromIdentity, edgeOf } from './graph.ts';
export type { ConnectomeNode, ConnectomeEdge, GraphInput, Labels, LabelValue, Weight, BuildOptions } from './graph.ts';
export { collapse } from './collapse.ts';
export type { CollapseOptions } from './collapse.ts';
export { encodeGraph, encodeGraphText, graphDigest, graphDigestHex } from './graph-bytes.ts';
export type { EncodeOptions } from './graph-bytes.ts';
export { decodeGraph, graphFromJSON } from './decode.ts';
export type { DecodeOptions, DecodedGraph } from './decode.ts';
export { encodeSidecar, erlangShortFloat } from './sidecar.ts';
export { toDot, toGraphML, toGraphMLBytes } from './render.ts';
export { buildDeclaredConnectome } from './declared.ts';
export { observeFromText, observeFromRecords, parseWindowBound } from './observed.ts';
export type { ObservationWindow, ObserveResult } from './observed.ts';
export { diffConnectomes, DIFF_SCHEMA_VERSION } from './diff.ts';
export type { DiffRecord, DiffOptions, EdgeLabel, ChangedSign, DiffCoverage } from './diff.ts';
export { encodeDiff, writeDiff, diffDigest, diffDigestHex } from './diff-bytes.ts';
export type { WriteDiffOptions, ByteChunkSink } from './diff-bytes.ts';
export { reachable, reachableWithout, dominates, mandatoryPass, allPaths, DEFAULT_MAX_EDGES } from './reach.ts';
export type { PathOptions, DominanceOptions, WitnessPath } from './reach.ts';
export { digestEnvelope, signedEnvelope, envelopeBytes } from '../canonical/envelope.ts';
export type { DigestEnvelope, Signer, SignatureMetadata } from '../canonical/envelope.ts';
