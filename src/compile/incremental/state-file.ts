/**
 * The compile state as two files beside the artifacts, so a later `compile --incremental` in a
 * fresh process can start from it:
 *
 *   compile-state.json    canonical JSON: version, profile, the graph_state and input digests the
 *                         state belongs to, the SHA-256 of the pieces file; where the three
 *                         members holding the tools' entries lie in policy-bundle.json and
 *                         data.json (`[offset, length]` in bytes); per tool its contract key and
 *                         digest and where its entries lie in those members, per granted tool the length of
 *                         its decision inputs, per agent the length of its inputs and where its
 *                         decision maps lie, where the connectome edges lie; the digests of what
 *                         the tools' decision inputs and the connectome read of the catalog; what
 *                         the next compile reads of the artifacts (format, created_at, the
 *                         digests of policy-bundle.json, data.json and bundle.tar.gz) and the
 *                         tarball's gzip chunks, each as its digest and its compressed length; the
 *                         manifest's YAML pieces by digest with their top-level key
 *                         (src/parse/yaml-pieces.ts), their JSON and canonical text in the pieces file
 *   compile-state.pieces  those texts, UTF-8, one after another in the order the index lists them
 *                         (the decision inputs' lengths in UTF-16 units of the text that fills
 *                         the first `text_bytes` bytes, the manifest pieces' in bytes after it)
 *
 * The encoded entries and the chunks' compressed bytes are not copied into the state: they are
 * read from the artifacts beside it, and only when each file's digest is the one recorded. A
 * policy-bundle.json or data.json that is not the one the state was kept with refuses the state
 * (the next compile is full); another bundle.tar.gz only means its tarball is deflated afresh,
 * with the same bytes.
 *
 * Entries are sorted by key, so equal states give equal bytes. A state that is damaged, of another
 * version or whose pieces do not hash to the recorded digest is refused with the reason, and the
 * caller compiles in full.
 */
import { canonicalBytes, canonicalString, CanonicalText, isAscii } from '../../canonical/json.ts';
import { digestHex } from '../../canonical/digest.ts';
import { PROFILES, type Profile } from '../../governance/types.ts';
import { COMPILE_STATE_VERSION, SPAN_ROW, toolSpan, type AgentPieces, type ArtifactBytes, type CompileState, type KeptArtifacts, type TarballChunk, type ToolPieces, type ToolSpans } from './compile-state.ts';
import { sameBytes } from '../../canonical/byte-segments.ts';
import type { Span } from './fragments.ts';

export const STATE_INDEX_FILE = 'compile-state.json';
export const STATE_PIECES_FILE = 'compile-state.pieces';
export const STATE_KIND = 'toolgate.compile-state';

const byKey = <V>(m: ReadonlyMap<string, V>): [string, V][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The UTF-8 bytes of the texts, then the byte strings, one after another in one buffer (no joined string of tens of MB). */
function concatPieces(texts: readonly string[], bytes: readonly Uint8Array[]): { pieces: Uint8Array; textBytes: number } {
  let textBytes = 0;
  for (const t of texts) textBytes += Buffer.byteLength(t, 'utf8');
  const out = Buffer.allocUnsafeSlow(bytes.reduce((n, b) => n + b.length, textBytes));
  let at = 0;
  for (const t of texts) at += out.write(t, at, 'utf8');
  for (const b of bytes) (out.set(b, at), (at += b.length));
  return { pieces: out, textBytes };
}

/**
 * A list of rows (strings, integers, null and lists of them) as canonical text. JSON.stringify
 * writes such a list canonically when it is ASCII (no string to normalise), in one native call;
 * a list with any other character goes through the generic encoder, which normalises.
 */
function rowsText(rows: readonly unknown[]): CanonicalText {
  const text = JSON.stringify(rows);
  return new CanonicalText(isAscii(text) ? text : canonicalString(rows));
}

const spanRow = (span: Span | undefined) => (span === undefined ? null : [span.at, span.length]);

/**
 * The two files' bytes for a state, with the SHA-256 (hex) of the pieces, which the index records;
 * when the pieces are byte for byte `state.pieces_file` (nothing they hold changed), that array
 * and its digest are given back instead.
 */
export function stateFiles(state: CompileState): { index: Uint8Array; pieces: Uint8Array; piecesSha256: string } {
  const texts: string[] = [];
  const take = (s: string) => (texts.push(s), s.length);
  const span = (t: ToolPieces, m: 'bundle' | 'documents' | 'contracts') => spanRow(toolSpan(state.tool_spans, t.row, m));
  const tools = byKey(state.tools).map(([k, t]) => [k, t.contract_key, t.tool_contract_digest, span(t, 'bundle'), span(t, 'documents'), span(t, 'contracts')]);
  const inputs = byKey(state.decision_inputs).map(([k, s]) => [k, take(s)]);
  const agents = byKey(state.agents).map(([k, a]) => [k, take(a.inputs), spanRow(a.bundle), spanRow(a.data)]);
  const bytes: Uint8Array[] = [];
  const put = (b: Uint8Array) => (bytes.push(b), b.length);
  const manifestPieces = state.manifest_pieces.map((p) => [p.digest, p.key, put(p.json), put(p.canonical)]);
  const made = concatPieces(texts, bytes);
  const textBytes = made.textBytes;
  const same = state.pieces_file !== undefined && sameBytes(made.pieces, state.pieces_file.bytes);
  const pieces = same ? state.pieces_file!.bytes : made.pieces;
  const piecesSha256 = same ? state.pieces_file!.sha256 : digestHex(pieces);
  const index = {
    kind: STATE_KIND,
    schema_version: COMPILE_STATE_VERSION,
    profile: state.profile,
    graph_state: state.graph_state,
    governance_digest: state.governance_digest,
    catalog_digest: state.catalog_digest,
    connectome_digest: state.connectome_digest,
    pieces_sha256: piecesSha256,
    text_bytes: textBytes,
    tool_members: [spanRow(state.tool_members.bundle), spanRow(state.tool_members.documents), spanRow(state.tool_members.contracts)],
    tools: rowsText(tools),
    decision_inputs: rowsText(inputs),
    agents: rowsText(agents),
    edges: spanRow(state.edges),
    connectome_declared_only: state.connectome_declared_only,
    catalog_shape: state.catalog_shape,
    connectome_inputs: state.connectome_inputs,
    artifacts: state.artifacts,
    tarball_chunks: state.tarball_chunks.map((c) => [c.digest, c.deflated.length, c.length, c.crc]),
    manifest_pieces: rowsText(manifestPieces),
  };
  return { index: canonicalBytes(index), pieces, piecesSha256 };
}

export type StateRead = { readonly state: CompileState } | { readonly refused: string };

/** The files beside a state that it reads from: its spans point into policy-bundle.json and data.json. */
interface BesideState {
  readonly policyBundle?: Uint8Array;
  readonly data?: Uint8Array;
  readonly tarball?: Uint8Array;
}

const isLengths = (row: unknown, n: number): row is [string, ...number[]] =>
  Array.isArray(row) && row.length === n + 1 && typeof row[0] === 'string' && row.slice(1).every((x) => Number.isSafeInteger(x) && (x as number) >= 0);

const isSpanIn = (v: unknown, size: number): v is [number, number] =>
  Array.isArray(v) && v.length === 2 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0) && (v[0] as number) + (v[1] as number) <= size;

const isDigest = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

const toSpan = (v: [number, number]): Span => ({ at: v[0], length: v[1] });

const GZIP_HEADER_BYTES = 10;

/** The chunks as `tarball` holds them, or none when it is not the tarball the index was kept with. */
function chunksFrom(rows: readonly [string, number, number, number][], artifacts: KeptArtifacts, tarball: Uint8Array | undefined): TarballChunk[] {
  if (tarball === undefined || digestHex(tarball) !== artifacts.tarball_sha256) return [];
  const out: TarballChunk[] = [];
  let at = GZIP_HEADER_BYTES;
  for (const [digest, deflatedLength, length, crc] of rows) {
    if (at + deflatedLength > tarball.length || crc > 0xffffffff) return [];
    out.push({ digest, deflated: tarball.subarray(at, (at += deflatedLength)), length, crc });
  }
  return out;
}

const isArtifacts = (v: unknown): v is KeptArtifacts => {
  const a = v as Record<string, unknown> | null;
  return (
    typeof a === 'object' && a !== null && (a.format === 'toolgate' || a.format === 'toolgraph-v1') &&
    typeof a.created_at === 'string' && isDigest(a.policy_bundle_sha256) && isDigest(a.data_sha256) && isDigest(a.tarball_sha256)
  );
};

/**
 * Reads a state from its two files' bytes, or says why it cannot be used; `beside` holds the
 * artifacts next to them: policy-bundle.json and data.json, which hold the encoded entries the
 * state points at, and bundle.tar.gz, whose gzip chunks the next tarball may copy.
 */
export function readStateFiles(indexBytes: Uint8Array, piecesBytes: Uint8Array, beside: BesideState = {}): StateRead {
  let index: Record<string, unknown>;
  try {
    index = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(indexBytes)) as Record<string, unknown>;
  } catch {
    return { refused: `${STATE_INDEX_FILE} is not JSON` };
  }
  if (typeof index !== 'object' || index === null || index.kind !== STATE_KIND) return { refused: `${STATE_INDEX_FILE} is not a ${STATE_KIND}` };
  if (index.schema_version !== COMPILE_STATE_VERSION) return { refused: `compile state version ${JSON.stringify(index.schema_version)}, this toolgate writes ${COMPILE_STATE_VERSION}` };
  if (digestHex(piecesBytes) !== index.pieces_sha256) return { refused: `${STATE_PIECES_FILE} does not match the digest in ${STATE_INDEX_FILE}` };
  if (!isArtifacts(index.artifacts)) return { refused: `${STATE_INDEX_FILE} does not have the shape of a compile state` };
  const artifacts = index.artifacts;
  const { policyBundle, data } = beside;
  if (policyBundle === undefined || digestHex(policyBundle) !== artifacts.policy_bundle_sha256) return { refused: 'policy-bundle.json is not the one the compile state was kept with' };
  if (data === undefined || digestHex(data) !== artifacts.data_sha256) return { refused: 'data.json is not the one the compile state was kept with' };
  const gs = index.graph_state as { instance_id?: unknown; generation?: unknown } | null;
  const digest = (v: unknown) => typeof v === 'string';
  const inBundle = (v: unknown, size = policyBundle.length) => (artifacts.format === 'toolgate' ? isSpanIn(v, size) : v === null);
  const inData = (v: unknown, size = data.length) => isSpanIn(v, size);
  const members = index.tool_members as unknown[] | undefined;
  const membersShaped = Array.isArray(members) && members.length === 3 && inBundle(members[0]) && inData(members[1]) && inData(members[2]);
  // A tool's entries lie in its members.
  const [bundleMember, documentsMember, contractsMember] = membersShaped ? (members as ([number, number] | null)[]).map((m) => m?.[1] ?? 0) : [0, 0, 0];
  const shaped =
    PROFILES.includes(index.profile as Profile) &&
    typeof gs?.instance_id === 'string' &&
    Number.isSafeInteger(gs.generation) &&
    digest(index.governance_digest) &&
    digest(index.catalog_digest) &&
    (index.connectome_digest === null || digest(index.connectome_digest)) &&
    Array.isArray(index.tools) &&
    membersShaped &&
    index.tools.every(
      (r: unknown[]) => Array.isArray(r) && r.length === 6 && typeof r[0] === 'string' && typeof r[1] === 'string' && typeof r[2] === 'string' && inBundle(r[3], bundleMember) && inData(r[4], documentsMember) && inData(r[5], contractsMember),
    ) &&
    Array.isArray(index.decision_inputs) && index.decision_inputs.every((r) => isLengths(r, 1)) &&
    Array.isArray(index.agents) &&
    index.agents.every((r: unknown[]) => Array.isArray(r) && r.length === 4 && typeof r[0] === 'string' && Number.isSafeInteger(r[1]) && (r[1] as number) >= 0 && inBundle(r[2]) && inData(r[3])) &&
    inData(index.edges) &&
    typeof index.connectome_declared_only === 'boolean' &&
    isDigest(index.catalog_shape) &&
    isDigest(index.connectome_inputs) &&
    Array.isArray(index.tarball_chunks) && index.tarball_chunks.every((r) => isLengths(r, 3)) &&
    Array.isArray(index.manifest_pieces) && index.manifest_pieces.every((r: unknown[]) => Array.isArray(r) && r.length === 4 && typeof r[1] === 'string' && isLengths([r[0], r[2], r[3]], 2)) &&
    Number.isSafeInteger(index.text_bytes) && (index.text_bytes as number) >= 0 && (index.text_bytes as number) <= piecesBytes.length;
  if (!shaped) return { refused: `${STATE_INDEX_FILE} does not have the shape of a compile state` };

  const textBytes = index.text_bytes as number;
  const text = new TextDecoder('utf-8').decode(piecesBytes.subarray(0, textBytes));
  let at = 0;
  const next = (n: number) => text.slice(at, (at += n));
  const tools = new Map<string, ToolPieces>();
  const toolRows = index.tools as [string, string, string, [number, number] | null, [number, number], [number, number]][];
  const toolSpans: ToolSpans = new Float64Array(toolRows.length * SPAN_ROW);
  toolRows.forEach(([k, contractKey, toolDigest, bundle, document, contract], row) => {
    toolSpans.set([...(bundle ?? [-1, 0]), ...document, ...contract], row * SPAN_ROW);
    tools.set(k, { contract_key: contractKey, tool_contract_digest: toolDigest, row });
  });
  const decisionInputs = new Map<string, string>();
  for (const [k, n] of index.decision_inputs as [string, number][]) decisionInputs.set(k, next(n));
  const agents = new Map<string, AgentPieces>();
  for (const [k, n, bundle, agentData] of index.agents as [string, number, [number, number] | null, [number, number]][]) {
    agents.set(k, { inputs: next(n), ...(bundle ? { bundle: toSpan(bundle) } : {}), data: toSpan(agentData) });
  }
  if (at !== text.length) return { refused: `${STATE_PIECES_FILE} holds ${text.length} characters of text, ${STATE_INDEX_FILE} accounts for ${at}` };
  let byteAt = textBytes;
  const nextBytes = (n: number) => piecesBytes.subarray(byteAt, (byteAt += n));
  const manifestPieces = (index.manifest_pieces as [string, string, number, number][]).map(([digest, key, n, c]) => ({ digest, key, json: nextBytes(n), canonical: nextBytes(c) }));
  if (byteAt !== piecesBytes.length) return { refused: `${STATE_PIECES_FILE} is ${piecesBytes.length} bytes, ${STATE_INDEX_FILE} accounts for ${byteAt}` };
  const bytes: ArtifactBytes = { policy_bundle: policyBundle, data };
  return {
    state: {
      version: COMPILE_STATE_VERSION,
      profile: index.profile as Profile,
      graph_state: { instance_id: gs!.instance_id as string, generation: gs!.generation as number },
      governance_digest: index.governance_digest as string,
      catalog_digest: index.catalog_digest as string,
      connectome_digest: index.connectome_digest as string | null,
      tools,
      tool_spans: toolSpans,
      tool_members: {
        ...(members![0] ? { bundle: toSpan(members![0] as [number, number]) } : {}),
        documents: toSpan(members![1] as [number, number]),
        contracts: toSpan(members![2] as [number, number]),
      },
      decision_inputs: decisionInputs,
      agents,
      edges: toSpan(index.edges as [number, number]),
      bytes,
      connectome_declared_only: index.connectome_declared_only as boolean,
      catalog_shape: index.catalog_shape as string,
      connectome_inputs: index.connectome_inputs as string,
      artifacts,
      manifest_pieces: manifestPieces,
      tarball_chunks: chunksFrom(index.tarball_chunks as [string, number, number, number][], artifacts, beside.tarball),
      pieces_file: { bytes: piecesBytes, sha256: index.pieces_sha256 as string },
    },
  };
}
