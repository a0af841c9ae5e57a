/**
 * The graph state a run artifact is stamped with, derived as `compile` and `preflight` derive it:
 * the input digests (governance, catalog, declared connectome) and, when an earlier artifact holding
 * a graph_state is given (`--state FILE`, or the `--out` file when it holds one), that state's
 * continuation: the generation rises only when the digests changed.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { catalogDigest, governanceDigest } from '../governance/input-digests.ts';
import { nextGraphState, type InputDigests, type PreviousState } from '../compile/graph-state.ts';
import { ToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import { declaredConnectomeDigest } from '../queries/connectome-digest.ts';
import type { RunState } from '../queries/query-def.ts';
import type { CliIo } from './command.ts';
import { readTextFile } from './fs-io.ts';
import { isSameFile } from './run-inputs.ts';

export const STATE_USAGE = `  --state FILE   a policy-bundle.json or earlier artifact whose graph_state to continue
                 (default: the --out file when it holds one); the generation rises only when inputs changed`;

function readPreviousState(path: string, explicit: boolean, earlierOutput: boolean, io: CliIo): PreviousState | undefined {
  const refuse = (why: string): undefined => {
    if (explicit) throw new ToolgateError('PARSE_ERROR', `${path}: ${why}`, { at: [{ file: path }] });
    io.stderr(`toolgate: warning: ${path}: ${why}; starting graph_state afresh\n`);
    return undefined;
  };
  let v: Record<string, unknown>;
  try {
    v = parseJsonInput(readTextFile(path, { input: !earlierOutput }), path) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof ToolgateError && e.code === 'FILE_UNREADABLE' && explicit) throw e;
    return refuse('not readable JSON');
  }
  // An artifact of another major version is refused, not read as if it were 1 (the peer's contracts: consumers reject an unknown major).
  if (v !== null && typeof v === 'object' && 'schema_version' in v && v.schema_version !== 1) {
    return refuse(`schema_version ${JSON.stringify(v.schema_version)} is not a version this reads (1)`);
  }
  const gs = v?.graph_state as { instance_id?: unknown; generation?: unknown } | undefined;
  if (typeof gs?.instance_id !== 'string' || !Number.isSafeInteger(gs.generation) || typeof v.governance_digest !== 'string' || typeof v.catalog_digest !== 'string') {
    return refuse('carries no graph_state with governance and catalog digests');
  }
  return {
    graph_state: { instance_id: gs.instance_id, generation: gs.generation as number },
    digests: { governance_digest: v.governance_digest, catalog_digest: v.catalog_digest, connectome_digest: typeof v.connectome_digest === 'string' ? v.connectome_digest : null },
  };
}

/** The estate's graph state for an artifact about to be written to `out` (or printed). */
export function runState(estate: Estate, io: CliIo, args: { state?: string | undefined; out?: string | undefined }): RunState {
  const outPath = args.out === undefined ? undefined : resolve(io.cwd, args.out);
  const statePath = args.state !== undefined ? resolve(io.cwd, args.state) : outPath !== undefined && existsSync(outPath) ? outPath : undefined;
  // The --out file read for its state is the earlier artifact this run replaces, not an input it may not overwrite.
  const earlierOutput = outPath !== undefined && statePath !== undefined && (statePath === outPath || isSameFile(statePath, outPath));
  const previous = statePath === undefined ? undefined : readPreviousState(statePath, args.state !== undefined, earlierOutput, io);
  const digests: InputDigests = { governance_digest: governanceDigest(estate.manifest.raw), catalog_digest: catalogDigest(estate.catalog), connectome_digest: declaredConnectomeDigest(estate) };
  return { graph_state: nextGraphState(estate, digests, previous).graph_state, digests };
}
