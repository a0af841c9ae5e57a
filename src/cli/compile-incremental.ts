/**
 * The file and terminal side of `compile --incremental` and `compile --watch`: reading the state a
 * previous compile kept in --out (src/compile/incremental/state-file.ts) with the artifacts beside it,
 * taking the previous policy bundle's record from the state when the bundle is the one it was kept
 * with, saying why a compile is full when it is, and telling a person what a recompile changed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { digestHex, type DigestAlgorithm } from '../canonical/digest.ts';
import type { KeptConnectomeFiles } from '../compile/connectome-artifacts.ts';
import type { DataEdge } from '../compile/data-document.ts';
import type { PreviousState } from '../compile/graph-state.ts';
import { previousOf, type CompileState } from '../compile/incremental/compile-state.ts';
import { readStateFiles, STATE_INDEX_FILE, STATE_PIECES_FILE } from '../compile/incremental/state-file.ts';
import { sameBytes } from '../canonical/byte-segments.ts';
import { spanBytes } from '../compile/incremental/fragments.ts';
import { artifactSha256 } from '../compile/incremental/artifact-sha256.ts';
import { connectomeInputsDigest } from '../compile/incremental/connectome-inputs.ts';
import type { Catalog } from '../catalog/types.ts';
import type { RecompileSummary } from '../compile/incremental/summary.ts';
import { listedSha256, SHA256SUMS_FILE } from '../emit/sha256sums.ts';
import type { CliIo } from './command.ts';
import { readBytesFile } from './fs-io.ts';
import { fileIdentity, type KeptFile } from './artifact-set.ts';

export const INCREMENTAL_OPTIONS = {
  incremental: { type: 'boolean' },
  watch: { type: 'boolean' },
} as const;

export const INCREMENTAL_USAGE = `  --incremental   keep compile-state.json and compile-state.pieces in DIR (listed in SHA256SUMS) and start
                  from the ones a previous compile kept there: only the agents, tools and members a changed
                  input touches are recomputed, and the bytes are those of a full compile; without a usable
                  state the compile is full and says why on stderr
  --watch         compile, then recompile (as --incremental) on each save of the manifest, the catalog, the
                  host graph or the sign policy, printing what changed; the state is held in memory and
                  written into DIR when the watch stops (SIGINT or SIGTERM)`;

/** Files of the current set read here (the state's pieces, the connectome's), with the file each came from. */
const keptFiles = new WeakMap<Uint8Array, KeptFile & { name: string }>();

/** The state kept in `outDir`, or why there is none to use (also said on stderr). */
export function readKeptState(outDir: string, io: CliIo): { state: CompileState } | { refused: string } {
  const index = join(outDir, STATE_INDEX_FILE);
  const pieces = join(outDir, STATE_PIECES_FILE);
  const refuse = (refused: string) => (io.stderr(`toolgate: full compile: ${refused}\n`), { refused });
  if (!existsSync(index) || !existsSync(pieces)) return refuse(`no compile state in ${outDir}`);
  const beside = (name: string) => (existsSync(join(outDir, name)) ? readBytesFile(join(outDir, name)) : undefined);
  const policyBundle = beside('policy-bundle.json');
  const data = beside('data.json');
  const tarball = beside('bundle.tar.gz');
  const piecesIdentity = fileIdentity(pieces);
  const piecesBytes = readBytesFile(pieces);
  const read = readStateFiles(readBytesFile(index), piecesBytes, { ...(policyBundle ? { policyBundle } : {}), ...(data ? { data } : {}), ...(tarball ? { tarball } : {}) });
  if ('refused' in read) return refuse(read.refused);
  // A recompile that changes nothing the pieces hold passes these very bytes back: the commit links the file.
  if (piecesIdentity !== undefined) keptFiles.set(piecesBytes, { name: STATE_PIECES_FILE, path: pieces, identity: piecesIdentity });
  return read;
}

/**
 * What the policy bundle in `outDir` records (graph_state, input digests, created_at, its tools),
 * read off the kept state instead of parsing the bundle, which at scale is tens of megabytes: only
 * when the bundle is in the toolgate format and is, byte for byte, the one the state was
 * kept with (the state holds those bytes, so this compares them instead of hashing). Otherwise
 * undefined, and the caller reads the bundle.
 */
export function previousFromState(outDir: string, state: CompileState): (PreviousState & { tools: string[] }) | undefined {
  const path = join(outDir, 'policy-bundle.json');
  if (state.artifacts.format !== 'toolgate' || !existsSync(path)) return undefined;
  if (!sameBytes(readBytesFile(path), state.bytes.policy_bundle)) return undefined;
  return { ...previousOf(state), tools: [...state.tools.keys()] };
}

/** The SHA-256 of each file SHA256SUMS in `outDir` lists, by name (empty when there is none). */
function listedDigests(outDir: string): Map<string, string> {
  const path = join(outDir, SHA256SUMS_FILE);
  return existsSync(path) ? listedSha256(new TextDecoder().decode(readBytesFile(path))) : new Map();
}

/**
 * The declared connectome's files as the previous compile wrote them into `outDir`, when the state
 * says they are the declared graph alone of a catalog that gave it what `catalog` gives it (the
 * same connectome inputs: src/compile/incremental/connectome-inputs.ts), their envelope was
 * made with `algorithm` and names the state's connectome digest, and each file is, byte for byte
 * (SHA-256), the one SHA256SUMS lists;
 * otherwise undefined, and the caller builds the connectome.
 */
export function keptConnectomeFiles(outDir: string, state: CompileState, catalog: Catalog, algorithm: DigestAlgorithm): KeptConnectomeFiles | undefined {
  if (!state.connectome_declared_only || state.connectome_inputs !== connectomeInputsDigest(catalog)) return undefined;
  const listed = listedDigests(outDir);
  const read = (name: string): Uint8Array | undefined => {
    const path = join(outDir, name);
    if (!listed.has(name) || !existsSync(path)) return undefined;
    // Taken before reading, so a write during the read shows as another file when the set is committed.
    const identity = fileIdentity(path);
    const bytes = readBytesFile(path);
    if (artifactSha256(bytes) !== listed.get(name)) return undefined;
    if (identity !== undefined) keptFiles.set(bytes, { name, path, identity });
    return bytes;
  };
  const envelope = read('connectome.digest.json');
  if (envelope === undefined || (JSON.parse(new TextDecoder().decode(envelope)) as { algorithm?: unknown }).algorithm !== algorithm) return undefined;
  const json = read('connectome.json');
  const dot = read('connectome.dot');
  const graphml = read('connectome.graphml');
  // And connectome.json is the graph the state's digest names.
  if (json === undefined || dot === undefined || graphml === undefined || (algorithm === 'sha256' ? artifactSha256(json) : digestHex(json, algorithm)) !== state.connectome_digest) return undefined;
  return { json, dot, graphml, edges: JSON.parse(new TextDecoder().decode(spanBytes(state.bytes.data, state.edges))) as DataEdge[] };
}

/**
 * Marks the files of a set just committed into `outDir` as the current set's: a later commit in
 * this process (a watch's next save, or the state it writes when it stops) that passes the same
 * bytes back under the same name links the file instead of writing it again.
 */
export function rememberCommitted(outDir: string, files: readonly { readonly name: string; readonly bytes: Uint8Array }[]): void {
  for (const f of files) {
    const path = join(outDir, f.name);
    const identity = fileIdentity(path);
    if (identity !== undefined) keptFiles.set(f.bytes, { name: f.name, path, identity });
  }
}

/**
 * The file of the current set that `file` holds unchanged, so the commit links it rather than
 * writing it again: only bytes `readKeptState` or `keptConnectomeFiles` read, or a commit of this
 * process wrote (`rememberCommitted`), under the name they were read or written as.
 */
export function keptFile(file: { readonly name: string; readonly bytes: Uint8Array }): { kept: KeptFile } | undefined {
  const k = keptFiles.get(file.bytes);
  return k && k.name === file.name ? { kept: { path: k.path, identity: k.identity } } : undefined;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function names(list: readonly string[], max = 3): string {
  return list.length <= max ? list.join(', ') : `${list.slice(0, max).join(', ')} and ${list.length - max} more`;
}

/** One or two short lines for a terminal: what changed, and how much was recomputed. */
export function summaryText(summary: RecompileSummary, ms: number): string {
  const time = `${Math.round(ms)} ms`;
  if (summary.mode === 'full') return `compiled in full in ${time} (${summary.reason ?? 'no compile state'})\n`;
  const parts: string[] = [];
  const { added, removed, changed } = summary.agents;
  if (added.length > 0) parts.push(`agents added: ${names(added)}`);
  if (removed.length > 0) parts.push(`agents removed: ${names(removed)}`);
  if (changed.length > 0) parts.push(`agents changed: ${names(changed)}`);
  const tools = summary.tools.added.length + summary.tools.removed.length + summary.tools.changed.length;
  if (tools > 0) parts.push(`${plural(tools, 'tool contract')} changed`);
  const head = parts.length > 0 ? parts.join('; ') : 'no agent or tool changed';
  const shown = summary.decisions.slice(0, 5).map((d) => `  ${d.agent} -> ${d.tool_key}: ${d.before ?? 'not granted'} => ${d.after ?? 'not granted'}\n`);
  const more = summary.decisions.length > shown.length ? `  … and ${summary.decisions.length - shown.length} more\n` : '';
  return `recompiled in ${time}: ${head}; ${plural(summary.decisions.length, 'decision')} changed (${summary.recomputed.agents} agents, ${summary.recomputed.tools} tools recomputed)\n${shown.join('')}${more}`;
}
