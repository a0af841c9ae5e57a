/**
 * What a compile keeps so the next one recomputes only what a changed input touches: per exposed
 * tool a digest of its contract as the catalog gives it, its contract digest and where its three
 * encoded entries lie in the three members holding them, and where those lie in the artifacts; per granted tool what its decisions read; per agent what
 * its decisions read and where its two encoded decision maps lie; where the encoded connectome
 * edges lie; and what the next compile would otherwise read back from the artifacts (the policy
 * bundle's created_at and digest, the tarball's gzip chunks). The encoded pieces are not copied
 * into the state: they are ranges of policy-bundle.json and data.json (`Span`), whose bytes the
 * state holds (a state read from its files, only when those files are the ones it was kept with).
 * Everything here is a function of the inputs and the compile's options (no paths), so the state a
 * recompile leaves is the state a full compile of the same inputs leaves.
 */
import type { ByteSegments } from '../../canonical/byte-segments.ts';
import type { ResumableDigest, ResumablePartsDigest } from '../../canonical/resumable-sha256.ts';
import type { GraphState, Profile } from '../../governance/types.ts';
import type { ToolNode } from '../../governance/estate.ts';
import type { ExposedTool } from '../policy-bundle.ts';
import type { PreviousState } from '../graph-state.ts';
import type { CanonicalText } from '../../canonical/json.ts';
import type { DataEdge, DerivedMembers } from '../data-document.ts';
import type { MemoNode } from './canonical-memo.ts';
import type { Span } from './fragments.ts';

/** One gzip chunk of bundle.tar.gz as emit/gzip.ts deflated it: its key, its bytes, its input's length and CRC-32. */
export interface TarballChunk {
  readonly digest: string;
  readonly deflated: Uint8Array;
  readonly length: number;
  readonly crc: number;
}

/** Bumped whenever a piece's meaning or encoding changes; a state of another version is not used. */
export const COMPILE_STATE_VERSION = 6;

/** A tool's pieces: its contract's key and digest, and the row of `ToolSpans` saying where its entries lie. */
export interface ToolPieces {
  /** JSON.stringify of [server, catalog tool]: equal only when the contract is unchanged (kept as the text: hashing every tool's would cost more than keeping it). */
  readonly contract_key: string;
  readonly tool_contract_digest: string;
  readonly row: number;
}

/**
 * Where each tool's three entries lie in their members (`ToolMembers`), six numbers a row: offset
 * and length in the bundle's `tools` list (-1 and 0 when the bundle is toolgraph-v1), in the data
 * document's `tools`, in its `contracts`. Numbers in one array, not objects per tool: a recompile
 * that splices one tool's entries in shifts the offsets after it in place.
 */
export type ToolSpans = Float64Array;

/** The columns of a `ToolSpans` row, by member. */
export const SPAN_COLUMN = { bundle: 0, documents: 2, contracts: 4 } as const;
export const SPAN_ROW = 6;

/** A tool's entry in one member, as a span of that member (undefined for the bundle of a toolgraph-v1 state). */
export function toolSpan(spans: ToolSpans, row: number, member: keyof typeof SPAN_COLUMN): Span | undefined {
  const at = spans[row * SPAN_ROW + SPAN_COLUMN[member]]!;
  return at < 0 ? undefined : { at, length: spans[row * SPAN_ROW + SPAN_COLUMN[member] + 1]! };
}

/** The three members made of one entry per exposed tool (tool-members.ts): as spans of their artifacts in a state. */
export interface ToolMembers<Member = Span> {
  /** The policy bundle's `tools` list in policy-bundle.json (absent when the bundle is toolgraph-v1). */
  readonly bundle?: Member;
  /** The data document's `tools` object in data.json. */
  readonly documents: Member;
  /** The data document's `contracts` object in data.json. */
  readonly contracts: Member;
}

export interface AgentPieces {
  /** The agent's granted tool keys and the exceptions that can apply to it, as one text. */
  readonly inputs: string;
  /** The agent's decision map in policy-bundle.json (absent when the bundle is toolgraph-v1). */
  readonly bundle?: Span;
  /** The agent's decision map in data.json. */
  readonly data: Span;
}

/** The bytes of the two artifacts the state's spans point into. */
export interface ArtifactBytes {
  readonly policy_bundle: Uint8Array;
  readonly data: Uint8Array;
}

/** What a compile from `state` takes as `previous`: the graph state, digests and creation time of the set it was compiled into. */
export function previousOf(state: CompileState): PreviousState {
  return {
    graph_state: state.graph_state,
    digests: { governance_digest: state.governance_digest, catalog_digest: state.catalog_digest, connectome_digest: state.connectome_digest },
    created_at: state.artifacts.created_at,
  };
}

/** The state's two large artifacts, whose memory a watch writes its next save into (./artifact-buffers.ts). */
export function artifactBytes(state: CompileState): Uint8Array[] {
  return [state.bytes.policy_bundle, state.bytes.data];
}

/** The manifest pieces a state holds, as the manifest parser takes them (digest -> JSON). */
export function manifestPieceCache(state: CompileState | undefined): Map<string, Uint8Array> {
  return new Map((state?.manifest_pieces ?? []).map((p) => [p.digest, p.json]));
}

/**
 * One YAML piece of the manifest: its JSON (what the parser takes instead of the text) and its
 * canonical text (a section's value; the items of a run joined by commas, without brackets), both
 * as UTF-8 bytes, which a state read from its files takes from the pieces file without a copy.
 */
export interface ManifestPiece {
  readonly digest: string;
  /** The top-level key the piece belongs to. */
  readonly key: string;
  readonly json: Uint8Array;
  readonly canonical: Uint8Array;
}

export interface KeptArtifacts {
  readonly format: 'toolgate' | 'toolgraph-v1';
  /** The policy bundle's created_at. */
  readonly created_at: string;
  /** SHA-256 (hex) of policy-bundle.json, data.json and bundle.tar.gz as this compile wrote them. */
  readonly policy_bundle_sha256: string;
  readonly data_sha256: string;
  readonly tarball_sha256: string;
}

export interface CompileState {
  readonly version: typeof COMPILE_STATE_VERSION;
  readonly profile: Profile;
  /** The graph_state and input digests of the artifacts this state was kept beside. */
  readonly graph_state: GraphState;
  readonly governance_digest: string;
  readonly catalog_digest: string;
  readonly connectome_digest: string | null;
  readonly tools: ReadonlyMap<string, ToolPieces>;
  readonly tool_spans: ToolSpans;
  /** Where the members holding the tools' entries lie. */
  readonly tool_members: ToolMembers;
  /** The exposed tools the members list and the estate tool map they were listed from, kept in memory only: the same map again lists the same tools. */
  readonly exposed?: { readonly source: ReadonlyMap<string, ToolNode>; readonly tools: readonly ExposedTool[]; readonly keys: object };
  /** The data document's derived members (derived-members.ts), kept in memory only. */
  readonly derived?: KeptDerived;
  /** Per granted tool, everything its decisions read besides the agent (see decision-inputs.ts). */
  readonly decision_inputs: ReadonlyMap<string, string>;
  /** The estate's grants-by-tool map those were computed for, kept in memory only: the same map, with nothing else they read changed, has the same ones. */
  readonly decision_inputs_for?: object;
  readonly agents: ReadonlyMap<string, AgentPieces>;
  /** The connectome edge list in data.json. */
  readonly edges: Span;
  /** policy-bundle.json and data.json as this compile wrote them. */
  readonly bytes: ArtifactBytes;
  /** Whether the connectome files beside the state are the catalog's declared graph alone (see EstateCompileOptions). */
  readonly connectome_declared_only: boolean;
  /** What the tools' decision inputs read of the catalog (decision-inputs.ts `catalogShapeDigest`). */
  readonly catalog_shape: string;
  /** What the declared connectome reads of the catalog (connectome-inputs.ts). */
  readonly connectome_inputs: string;
  /** What a later compile reads of the artifacts beside the state, so it need not parse them. */
  readonly artifacts: KeptArtifacts;
  /**
   * The gzip chunks of bundle.tar.gz (src/emit/gzip.ts), for the next tarball to copy; a state read
   * from its files has them only when the bundle.tar.gz beside it is the one it was kept with.
   */
  readonly tarball_chunks: readonly TarballChunk[];
  /** The tar bytes those chunks hold, kept in memory only: the next tarball is matched against them instead of hashed chunk by chunk. */
  readonly tarball_tar?: ByteSegments;
  /**
   * The manifest's YAML pieces as JSON and as canonical text, by the digest of their text
   * (src/parse/yaml-pieces.ts), so the next compile parses only the pieces whose text changed and
   * encodes only those for the governance digest.
   */
  readonly manifest_pieces: readonly ManifestPiece[];
  /**
   * The pieces file this state was read from or written as, with its SHA-256 (hex): a next state
   * whose pieces are the same bytes reuses both (the file is not hashed, nor written, again).
   */
  readonly pieces_file?: { readonly bytes: Uint8Array; readonly sha256: string };
  /** Member texts of the catalog and of a manifest not read in pieces; kept in memory only (a state file starts without them). */
  readonly manifest_memo?: MemoNode;
  readonly catalog_memo?: MemoNode;
  /** The catalog object this state was compiled from, kept in memory only: when frozen and given again, its digest is this state's. */
  readonly catalog_source?: object;
  /**
   * The digests of policy-bundle.json, data.json, the tarball's data.json and the manifest (when
   * read in pieces) with their saved hash states, kept in memory only, for the next compile's to resume.
   */
  readonly resumed_digests?: { readonly policy_bundle: ResumableDigest; readonly data: ResumableDigest; readonly tarball_data: ResumableDigest; readonly manifest?: ResumablePartsDigest };
}

/** What a compile keeps of its data document's derived members: their texts and what they were read from. */
export interface KeptDerived {
  readonly texts: DerivedMembers<CanonicalText>;
  /** Stands for the exposed tools' keys: the same object while they are unchanged (tool-members.ts). */
  readonly toolKeys: object;
  readonly edges: readonly DataEdge[];
  /** What the resource members read of the catalog, as text. */
  readonly catalog: string;
}
