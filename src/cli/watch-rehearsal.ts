/**
 * A watch rehearses a save before the first one comes: it recompiles, from the state it holds, its
 * manifest less one grant, and drops what that gives. The first real save then runs code the
 * JIT has compiled already, and writes into memory already faulted in: unrehearsed, the first save
 * took about twice as long as the next.
 *
 * Nothing of the rehearsal is kept but the buffers it wrote into: not its artifacts, not its estate
 * as the next save's starting point. It signs nothing (a host's signer is asked only for what a
 * watch writes).
 */
import type { EstateCompileOptions } from '../compile/compile.ts';
import type { ArtifactBuffers } from '../compile/incremental/artifact-buffers.ts';
import { artifactBytes, manifestPieceCache, previousOf, type CompileState } from '../compile/incremental/compile-state.ts';
import type { RecompileSummary } from '../compile/incremental/summary.ts';
import { recompileEstate } from '../emit/compile-run.ts';
import { buildEstate, type Estate } from '../governance/estate.ts';
import { parseManifest } from '../manifest/parse.ts';
import { withoutOneItem } from '../parse/yaml-pieces.ts';

export interface Rehearsal {
  readonly manifestPath: string;
  /** The estate the watch compiled last, read in pieces (its manifest keeps the plan of its text). */
  readonly estate: Estate;
  readonly state: CompileState;
  /** The options the watch compiled with (the previous set's are taken from `state`). */
  readonly options: EstateCompileOptions;
  readonly buffers?: ArtifactBuffers;
  readonly strictDrift?: boolean;
}

/**
 * What the rehearsed recompile said of itself, or undefined when there was nothing to rehearse (a
 * manifest not read in pieces, fewer than two grants) or it did not compile (which says nothing of
 * a save: the save reports its own errors).
 */
export async function rehearseSave(r: Rehearsal): Promise<RecompileSummary | undefined> {
  const plan = r.estate.manifest.piecePlan;
  const text = plan && withoutOneItem(plan, 'grants');
  if (text === undefined) return undefined;
  // As the next save's, from the set the watch compiled last, but signing nothing.
  const { signBundle: _, ...rest } = r.options;
  const options = { ...rest, previous: previousOf(r.state) };
  try {
    const manifest = parseManifest(r.manifestPath, text, { pieces: manifestPieceCache(r.state), previousPlan: plan });
    const estate = buildEstate(manifest, r.estate.catalog, { strictDrift: r.strictDrift ?? false, previous: r.estate });
    const rehearsed = await recompileEstate(r.state, estate, options);
    r.buffers?.retire(artifactBytes(rehearsed.state), artifactBytes(r.state));
    return rehearsed.summary;
  } catch {
    return undefined;
  }
}
