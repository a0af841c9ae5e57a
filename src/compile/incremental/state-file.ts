/**
 * The compile state as two files beside the artifacts, so a later `compile --incremental` in a
 * fresh process can start from it:
 *
 *   compile-state.json    canonical JSON: version, profile, the graph_state and input digests the
 *                         state belongs to, the SHA-256 of the pieces file, and per tool, per
 *                         granted tool and per agent the length of each of its texts; what the
 *                         next compile reads of the artifacts (format, created_at, the digests of
 *                         policy-bundle.json and bundle.tar.gz) and the tarball's gzip chunks, each
 *                         as its digest and its compressed length; the manifest's YAML pieces by
 *                         digest (src/parse/yaml-pieces.ts), their JSON in the pieces file
 *   compile-state.pieces  those texts, UTF-8, one after another in the order the index lists them
 *
 * The chunks' compressed bytes are not copied into the state: they are read from the bundle.tar.gz
 * beside it, in order after the 10-byte gzip header, and only when that file's digest is the one
 * recorded (otherwise the next tarball is deflated afresh, with the same bytes).
 *
 * The texts are mostly canonical JSON already; keeping them apart from the index spares escaping
 * tens of megabytes of quotes. Entries are sorted by key, so equal states give equal bytes. A state
 * that is damaged, of another version or whose pieces do not hash to the recorded digest is refused
 * with the reason, and the caller compiles in full.
 */
import { canonicalBytes } from '../../canonical/json.ts';
import { digestHex } from '../../canonical/digest.ts';
import { PROFILES, type Profile } from '../../governance/types.ts';
import { COMPILE_STATE_VERSION, type AgentPieces, type CompileState, type KeptArtifacts, type TarballChunk, type ToolPieces } from './compile-state.ts';

export const STATE_INDEX_FILE = 'compile-state.json';
export const STATE_PIECES_FILE = 'compile-state.pieces';
export const STATE_KIND = 'toolgate.compile-state';

const TOOL_FIELDS = ['contract_key', 'tool_contract_digest', 'bundle_entry', 'document', 'contract'] as const;
const AGENT_FIELDS = ['inputs', 'bundle', 'data'] as const;

const byKey = <V>(m: ReadonlyMap<string, V>): [string, V][] => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The UTF-8 bytes of the texts one after another, written straight into one buffer (no joined string of 100 MB). */
function utf8Concat(texts: readonly string[]): Uint8Array {
  const out = Buffer.allocUnsafeSlow(texts.reduce((n, t) => n + Buffer.byteLength(t, 'utf8'), 0));
  let at = 0;
  for (const t of texts) at += out.write(t, at, 'utf8');
  return out;
}

/** The two files' bytes for a state, with the SHA-256 (hex) of the pieces, which the index records. */
export function stateFiles(state: CompileState): { index: Uint8Array; pieces: Uint8Array; piecesSha256: string } {
  const texts: string[] = [];
  const take = (s: string) => (texts.push(s), s.length);
  const tools = byKey(state.tools).map(([k, t]) => [k, ...TOOL_FIELDS.map((f) => take(t[f]))]);
  const inputs = byKey(state.decision_inputs).map(([k, s]) => [k, take(s)]);
  const agents = byKey(state.agents).map(([k, a]) => [k, ...AGENT_FIELDS.map((f) => take(a[f]))]);
  const edges = take(state.edges);
  const manifestPieces = state.manifest_pieces.map((p) => [p.digest, take(p.json)]);
  const pieces = utf8Concat(texts);
  const piecesSha256 = digestHex(pieces);
  const index = {
    kind: STATE_KIND,
    schema_version: COMPILE_STATE_VERSION,
    profile: state.profile,
    graph_state: state.graph_state,
    governance_digest: state.governance_digest,
    catalog_digest: state.catalog_digest,
    connectome_digest: state.connectome_digest,
    pieces_sha256: piecesSha256,
    tools,
    decision_inputs: inputs,
    agents,
    edges,
    connectome_declared_only: state.connectome_declared_only,
    artifacts: state.artifacts,
    tarball_chunks: state.tarball_chunks.map((c) => [c.digest, c.deflated.length]),
    manifest_pieces: manifestPieces,
  };
  return { index: canonicalBytes(index), pieces, piecesSha256 };
}

export type StateRead = { readonly state: CompileState } | { readonly refused: string };

const isLengths = (row: unknown, n: number): row is [string, ...number[]] =>
  Array.isArray(row) && row.length === n + 1 && typeof row[0] === 'string' && row.slice(1).every((x) => Number.isSafeInteger(x) && (x as number) >= 0);

const GZIP_HEADER_BYTES = 10;

/** The chunks as `tarball` holds them, or none when it is not the tarball the index was kept with. */
function chunksFrom(rows: readonly [string, number][], artifacts: KeptArtifacts, tarball: Uint8Array | undefined): TarballChunk[] {
  if (tarball === undefined || digestHex(tarball) !== artifacts.tarball_sha256) return [];
  const out: TarballChunk[] = [];
  let at = GZIP_HEADER_BYTES;
  for (const [digest, length] of rows) {
    if (at + length > tarball.length) return [];
    out.push({ digest, deflated: tarball.subarray(at, (at += length)) });
  }
  return out;
}

const isArtifacts = (v: unknown): v is KeptArtifacts => {
  const a = v as Record<string, unknown> | null;
  return (
    typeof a === 'object' && a !== null && (a.format === 'toolgate' || a.format === 'toolgraph-v1') &&
    typeof a.created_at === 'string' && typeof a.policy_bundle_sha256 === 'string' && typeof a.tarball_sha256 === 'string'
  );
};

/**
 * Reads a state from its two files' bytes, or says why it cannot be used; `tarball` is the
 * bundle.tar.gz beside them, whose gzip chunks the next tarball may copy.
 */
export function readStateFiles(indexBytes: Uint8Array, piecesBytes: Uint8Array, tarball?: Uint8Array): StateRead {
  let index: Record<string, unknown>;
  try {
    index = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(indexBytes)) as Record<string, unknown>;
  } catch {
    return { refused: `${STATE_INDEX_FILE} is not JSON` };
  }
  if (typeof index !== 'object' || index === null || index.kind !== STATE_KIND) return { refused: `${STATE_INDEX_FILE} is not a ${STATE_KIND}` };
  if (index.schema_version !== COMPILE_STATE_VERSION) return { refused: `compile state version ${JSON.stringify(index.schema_version)}, this toolgate writes ${COMPILE_STATE_VERSION}` };
  if (digestHex(piecesBytes) !== index.pieces_sha256) return { refused: `${STATE_PIECES_FILE} does not match the digest in ${STATE_INDEX_FILE}` };
  const gs = index.graph_state as { instance_id?: unknown; generation?: unknown } | null;
  const digest = (v: unknown) => typeof v === 'string';
  const shaped =
    PROFILES.includes(index.profile as Profile) &&
    typeof gs?.instance_id === 'string' &&
    Number.isSafeInteger(gs.generation) &&
    digest(index.governance_digest) &&
    digest(index.catalog_digest) &&
    (index.connectome_digest === null || digest(index.connectome_digest)) &&
    Array.isArray(index.tools) && index.tools.every((r) => isLengths(r, TOOL_FIELDS.length)) &&
    Array.isArray(index.decision_inputs) && index.decision_inputs.every((r) => isLengths(r, 1)) &&
    Array.isArray(index.agents) && index.agents.every((r) => isLengths(r, AGENT_FIELDS.length)) &&
    Number.isSafeInteger(index.edges) &&
    typeof index.connectome_declared_only === 'boolean' &&
    isArtifacts(index.artifacts) &&
    Array.isArray(index.tarball_chunks) && index.tarball_chunks.every((r) => isLengths(r, 1)) &&
    Array.isArray(index.manifest_pieces) && index.manifest_pieces.every((r) => isLengths(r, 1));
  if (!shaped) return { refused: `${STATE_INDEX_FILE} does not have the shape of a compile state` };

  const text = new TextDecoder('utf-8').decode(piecesBytes);
  let at = 0;
  const next = (n: number) => text.slice(at, (at += n));
  const tools = new Map<string, ToolPieces>();
  for (const [k, ...lengths] of index.tools as [string, ...number[]][]) {
    tools.set(k, Object.fromEntries(TOOL_FIELDS.map((f, i) => [f, next(lengths[i]!)])) as unknown as ToolPieces);
  }
  const decisionInputs = new Map<string, string>();
  for (const [k, n] of index.decision_inputs as [string, number][]) decisionInputs.set(k, next(n));
  const agents = new Map<string, AgentPieces>();
  for (const [k, ...lengths] of index.agents as [string, ...number[]][]) {
    agents.set(k, Object.fromEntries(AGENT_FIELDS.map((f, i) => [f, next(lengths[i]!)])) as unknown as AgentPieces);
  }
  const edges = next(index.edges as number);
  const manifestPieces = (index.manifest_pieces as [string, number][]).map(([digest, n]) => ({ digest, json: next(n) }));
  if (at !== text.length) return { refused: `${STATE_PIECES_FILE} is ${text.length} characters, ${STATE_INDEX_FILE} accounts for ${at}` };
  return {
    state: {
      version: COMPILE_STATE_VERSION,
      profile: index.profile as Profile,
      graph_state: { instance_id: gs!.instance_id as string, generation: gs!.generation as number },
      governance_digest: index.governance_digest as string,
      catalog_digest: index.catalog_digest as string,
      connectome_digest: index.connectome_digest as string | null,
      tools,
      decision_inputs: decisionInputs,
      agents,
      edges,
      connectome_declared_only: index.connectome_declared_only as boolean,
      artifacts: index.artifacts as KeptArtifacts,
      manifest_pieces: manifestPieces,
      tarball_chunks: chunksFrom(index.tarball_chunks as [string, number][], index.artifacts as KeptArtifacts, tarball),
    },
  };
}
