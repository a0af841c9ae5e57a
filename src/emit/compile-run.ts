/**
 * A compile run to its bytes: compile/ plans the artifact set (incremental/recompile.ts), this makes
 * bundle.tar.gz from the files the plan lists, hands it back for the plan to finish, and adds
 * SHA256SUMS. Pure: estate in, artifact bytes out; the CLI writes the files, all or none.
 *
 *   decisions (per agent, per granted tool, one profile)
 *     -> policy-bundle.json   (toolgate.policy-bundle, or toolgraph.policy-bundle v1 for one agent)
 *     -> data.json            ({"toolgate": ...}, the OPA data document)
 *     -> bundle.tar.gz        (.manifest, toolgate/data.json, the enforcement Rego)
 *     -> SHA256SUMS
 */
import type { CompiledArtifact, CompileResult, EstateCompileOptions } from '../compile/compile.ts';
import type { CompileState } from '../compile/incremental/compile-state.ts';
import { planRecompile, type RecompileResult } from '../compile/incremental/recompile.ts';
import { stateFiles, STATE_INDEX_FILE, STATE_PIECES_FILE } from '../compile/incremental/state-file.ts';
import type { Estate } from '../governance/estate.ts';
import { emitTarGzInChunks } from './opa-tarball.ts';
import { listedSha256, SHA256SUMS_FILE, sha256SumsFile } from './sha256sums.ts';

/**
 * Compiles `estate`, reusing what `previous` kept when it is usable (compile/incremental/recompile.ts
 * `stateRefusal`).
 *
 * @example
 * const first = await recompileEstate(undefined, estate, options);        // full
 * const next = await recompileEstate(first.state, editedEstate, options); // only what changed
 */
export async function recompileEstate(previous: CompileState | undefined, estate: Estate, options: EstateCompileOptions): Promise<RecompileResult> {
  const plan = await planRecompile(previous, estate, options);
  const { files, previous: previousTarball } = plan.tarball;
  // Chunks of the previous tarball with the same bytes are copied, not deflated again.
  const tarball = await emitTarGzInChunks(files, previousTarball);
  const done = plan.finish(tarball);
  return { result: { ...done.result, files: [...done.files, sha256SumsFile(done.files, done.sha256)] }, state: done.state, summary: done.summary };
}

/**
 * A compile's artifact set (`files`, with its SHA256SUMS) with the state's two files added, as a
 * compile with `keepState` writes it: a watch, which holds its state in memory, writes them only
 * when it stops. The digests SHA256SUMS lists are taken as they are, not computed again.
 */
export function withStateFiles(files: readonly CompiledArtifact[], state: CompileState): CompiledArtifact[] {
  const sums = files.find((f) => f.name === SHA256SUMS_FILE);
  const known = sums === undefined ? new Map<string, string>() : listedSha256(new TextDecoder().decode(sums.bytes));
  const kept = stateFiles(state);
  known.set(STATE_PIECES_FILE, kept.piecesSha256);
  const set = [...files.filter((f) => f.name !== SHA256SUMS_FILE), { name: STATE_INDEX_FILE, bytes: kept.index }, { name: STATE_PIECES_FILE, bytes: kept.pieces }];
  return [...set, sha256SumsFile(set, known)];
}

/**
 * data.json's bytes alone, for a reader of the data document: the plan's (reusing what `previous`
 * kept, as `recompileEstate` does), with no tarball deflated and no file hashed.
 */
export async function compileDataJson(estate: Estate, options: EstateCompileOptions, previous?: CompileState): Promise<Uint8Array> {
  return (await planRecompile(previous, estate, options)).dataDocument;
}

/** A full compile: every piece computed. */
export async function compileEstate(estate: Estate, options: EstateCompileOptions): Promise<CompileResult> {
  return (await recompileEstate(undefined, estate, options)).result;
}
