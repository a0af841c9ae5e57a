/**
 * `toolgate control-preflight PLAN --profile P [--out FILE] [--state FILE]`: the advisory result of
 * a body-free control plan (kind toolgraph.control-preflight): topology and bound findings, every
 * principal's candidates under the profile against one graph state, read-to-write exposures.
 * `plan_digest` is the SHA-256 of the plan file's exact bytes.
 */
import { resolve } from 'node:path';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { readControlPlan } from '../../control/control-plan.ts';
import { controlPreflight } from '../../control/control-preflight.ts';
import { ToolgateError } from '../../errors.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { readBytesFile, writeFilesAtomic, MAX_INPUT_BYTES } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { runState, STATE_USAGE } from '../run-state.ts';
import { profileOption } from '../selector-args.ts';

const usage = `usage: toolgate control-preflight PLAN [--profile strict|review|explore] [--out FILE] [--state FILE] [estate]
Checks a control plan (toolgraph.control-plan v1): one start and one end, every node reachable and
reaching the end, no cycle, bounded model fan-out, run limits no lower than the nodes need; then
every principal's candidate tools under the profile, all against one graph state, and the
read-to-write exposures along the plan. decision: advisory_allow or advisory_warn.
  --profile P    selector profile (default strict)
  --out FILE     write the result there (private, atomic); stdout gets {out, artifact_digest, ...}
${STATE_USAGE}
Advisory: exit 0 on advisory_allow and advisory_warn; 1 when the plan or estate is refused or
--out cannot be written; 2 on bad usage.
${ESTATE_USAGE}`;

const options = { ...ESTATE_OPTIONS, profile: { type: 'string' }, out: { type: 'string' }, state: { type: 'string' } } as const;

export const controlPreflightCommand: Command = {
  name: 'control-preflight',
  summary: 'advisory check of a control plan: topology, bounds, every principal x candidate in one graph state',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, options, usage);
    if (positionals.length !== 1) usageError('expected one PLAN file', usage);
    const profile = profileOption(values.profile, usage);
    const createdAt = createdAtFromEnv(io.env);
    const planPath = resolve(io.cwd, positionals[0]!);
    const bytes = readBytesFile(planPath);
    if (bytes.length > MAX_INPUT_BYTES) throw new ToolgateError('INPUT_TOO_LARGE', `${planPath}: ${bytes.length} bytes exceeds the ${MAX_INPUT_BYTES}-byte input limit`, { at: [{ file: planPath }] });
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new ToolgateError('PARSE_ERROR', `${planPath}: not valid UTF-8`, { at: [{ file: planPath }] });
    }
    const plan = readControlPlan(planPath, text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    const estate = estateFromArgs(values, io);
    const { graph_state, digests } = runState(estate, io, values);
    const result = controlPreflight(estate, plan, { profile, planDigest: `sha256:${digestHex(bytes)}`, createdAt, graphState: graph_state, digests });
    for (const e of result.evaluations) if (!e.agent_found) io.stderr(`toolgate: AGENT_NOT_FOUND: principal ${e.principal} (decision advisory_warn)\n`);
    const out = jsonFileBytes(result);
    if (values.out === undefined) {
      io.stdout(new TextDecoder().decode(out));
      return EXIT.OK;
    }
    const outPath = resolve(io.cwd, values.out);
    writeFilesAtomic([{ path: outPath, bytes: out }]);
    printJson(io, { out: outPath, artifact_digest: `sha256:${digestHex(out)}`, bytes: out.length, run_id: result.run_id, decision: result.decision, graph_state });
    return EXIT.OK;
  },
};
