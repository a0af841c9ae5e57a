/**
 * `toolgate preflight AGENT CANDIDATES... --profile P --run-id ID [--out FILE] [--features]`:
 * the advisory preflight artifact (kind toolgraph.preflight). Without --out it is printed; with
 * --out it is written privately and atomically and stdout carries an envelope with the
 * `artifact_digest` of the exact file bytes.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { buildDeclaredConnectome, encodeGraph } from '../../connectome/index.ts';
import { catalogDigest, governanceDigest } from '../../compile/digests.ts';
import { nextGraphState, type PreviousState } from '../../compile/graph-state.ts';
import { isToolgateError, ToolgateError } from '../../errors.ts';
import type { Estate } from '../../governance/estate.ts';
import { buildPreflight } from '../../preflight/preflight.ts';
import { credentialShape } from '../../governance/credential-shape.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { readTextFile, writeFilesAtomic } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { profileOption } from '../selector-args.ts';

const usage = `usage: toolgate preflight AGENT CANDIDATE... --run-id ID [--profile strict|review|explore] [--out FILE] [--features] [--state FILE] [estate]
Writes the advisory preflight artifact (toolgraph.preflight v1). decision: advisory_allow,
advisory_warn (some candidate rejected) or unresolved_identity (unknown AGENT; nothing listed).
  --run-id ID    the run this preflight belongs to (required)
  --out FILE     write the artifact there (private, atomic); stdout gets {out, artifact_digest, ...}
  --features     include the full rank-features rows
  --state FILE   a policy-bundle.json or earlier preflight whose graph_state to continue
                 (default: the --out file when it holds one); the generation rises only when inputs changed
Exit 0 for every advisory decision, including unresolved_identity; 1 on refused input; 2 on bad usage.
${ESTATE_USAGE}`;

const options = {
  ...ESTATE_OPTIONS,
  profile: { type: 'string' },
  'run-id': { type: 'string' },
  out: { type: 'string' },
  features: { type: 'boolean' },
  state: { type: 'string' },
} as const;

/** graph_state and input digests recorded in an earlier artifact (policy bundle or preflight). */
function readPreviousState(path: string, explicit: boolean, io: CliIo): PreviousState | undefined {
  const refuse = (why: string): undefined => {
    if (explicit) throw new ToolgateError('PARSE_ERROR', `${path}: ${why}`, { at: [{ file: path }] });
    io.stderr(`toolgate: warning: ${path}: ${why}; starting graph_state afresh\n`);
    return undefined;
  };
  let v: Record<string, unknown>;
  try {
    v = JSON.parse(readTextFile(path)) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof ToolgateError && e.code === 'FILE_UNREADABLE' && explicit) throw e;
    return refuse('not readable JSON');
  }
  const gs = v?.graph_state as { instance_id?: unknown; generation?: unknown } | undefined;
  if (typeof gs?.instance_id !== 'string' || !Number.isSafeInteger(gs.generation) || typeof v.governance_digest !== 'string' || typeof v.catalog_digest !== 'string') {
    return refuse('carries no graph_state with governance and catalog digests');
  }
  return {
    graph_state: { instance_id: gs.instance_id, generation: gs.generation as number },
    digests: {
      governance_digest: v.governance_digest,
      catalog_digest: v.catalog_digest,
      connectome_digest: typeof v.connectome_digest === 'string' ? v.connectome_digest : null,
    },
  };
}

/** The declared connectome's digest as a default `compile` records it (no host graph, sha256), so both derive the same graph_state. */
function connectomeDigest(estate: Estate): string | null {
  try {
    return digestHex(encodeGraph(buildDeclaredConnectome(estate.catalog), { algorithm: 'sha256' }));
  } catch (e) {
    // A catalog the connectome refuses cannot compile either; the preflight still stands without it.
    if (isToolgateError(e)) return null;
    throw e;
  }
}

export const preflightCommand: Command = {
  name: 'preflight',
  summary: 'advisory preflight artifact for a run: AGENT x candidates under a profile, stamped with graph_state',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, options, usage);
    if (positionals.length < 2) usageError('expected AGENT and at least one CANDIDATE', usage);
    const runId = values['run-id'];
    if (runId === undefined) usageError('--run-id ID is required', usage);
    if (runId === '' || runId.length > 256 || /[\u0000-\u001f\u007f]/.test(runId)) usageError('--run-id must be 1 to 256 characters without control characters', usage);
    const secret = credentialShape(runId);
    if (secret !== undefined) usageError(`--run-id is credential-shaped (${secret}); a run id must not carry a secret`, usage);
    const profile = profileOption(values.profile, usage);
    const createdAt = createdAtFromEnv(io.env);
    const [agent, ...candidates] = positionals as [string, ...string[]];
    const estate = estateFromArgs(values, io);

    const outPath = values.out === undefined ? undefined : resolve(io.cwd, values.out);
    const statePath = values.state !== undefined ? resolve(io.cwd, values.state) : outPath !== undefined && existsSync(outPath) ? outPath : undefined;
    const previous = statePath === undefined ? undefined : readPreviousState(statePath, values.state !== undefined, io);
    const digests = { governance_digest: governanceDigest(estate.manifest.raw), catalog_digest: catalogDigest(estate.catalog), connectome_digest: connectomeDigest(estate) };
    const { graph_state } = nextGraphState(estate, digests, previous);

    const artifact = buildPreflight(estate, agent, candidates, { profile, runId, createdAt, graphState: graph_state, digests, features: values.features ?? false });
    if (!artifact.agent_found) io.stderr(`toolgate: AGENT_NOT_FOUND: ${agent} (decision unresolved_identity)\n`);
    const bytes = jsonFileBytes(artifact);
    if (outPath === undefined) {
      io.stdout(new TextDecoder().decode(bytes));
      return EXIT.OK;
    }
    writeFilesAtomic([{ path: outPath, bytes }]);
    printJson(io, {
      out: outPath,
      artifact_digest: `sha256:${digestHex(bytes)}`,
      bytes: bytes.length,
      run_id: runId,
      decision: artifact.decision,
      graph_state,
    });
    return EXIT.OK;
  },
};
