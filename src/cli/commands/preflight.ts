/**
 * `toolgate preflight AGENT CANDIDATES... --profile P --run-id ID [--out FILE] [--features]`:
 * the advisory preflight artifact (kind toolgraph.preflight). Without --out it is printed; with
 * --out it is written privately and atomically and stdout carries an envelope with the
 * `artifact_digest` of the exact file bytes.
 */
import { resolve } from 'node:path';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { buildPreflight } from '../../preflight/preflight.ts';
import { credentialShape } from '../../governance/credential-shape.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { writeFilesAtomic } from '../fs-io.ts';
import { runState } from '../run-state.ts';
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
    const { graph_state, digests } = runState(estate, io, { state: values.state, out: values.out });

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
