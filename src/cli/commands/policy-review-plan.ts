/**
 * `toolgate policy review-plan REPORT --agent A --profile P --out FILE`: the accepted review
 * candidates evaluated for one agent and profile, bound to the report digest and graph state,
 * written privately and atomically. It reads governance and never edits it.
 */
import { resolve } from 'node:path';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { ToolgateError } from '../../errors.ts';
import { emptyAnnotations, readAnnotations, SIDECAR_SUFFIX } from '../../review/annotations.ts';
import { reviewPlan } from '../../review/review-plan.ts';
import { readReviewReport } from '../../review/tracegraph-report.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { readBytesFile, writeFilesAtomic } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { readSidecarText, reviewPaths } from '../review-store.ts';
import { runState, STATE_USAGE } from '../run-state.ts';
import { profileOption } from '../selector-args.ts';

const usage = `usage: toolgate policy review-plan REPORT --agent A --out FILE [--profile strict|review|explore] [--annotations FILE] [--state FILE] [estate]
The currently accepted candidates of a review report, each tool_key evaluated for AGENT under the
profile (current_decision, current_reason, current_paths), bound to the report's SHA-256 and the
graph state: decision_mode human_required, automatic_change false. Governance is not touched.
  --agent A           the agent whose decisions to review (required)
  --out FILE          where to write the plan (required; private, atomic)
  --annotations FILE  the review sidecar (default: REPORT${SIDECAR_SUFFIX})
${STATE_USAGE}
Exit 0 when the plan is written; 1 on an unknown agent (AGENT_NOT_FOUND on stderr, nothing on
stdout), no accepted candidate, an invalid or stale report or sidecar, or a failed write; 2 on bad usage.
${ESTATE_USAGE}`;

export const policyReviewPlanCommand: Command = {
  name: 'policy review-plan',
  summary: 'accepted review candidates evaluated for one agent and profile: a human-required work plan',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, agent: { type: 'string' }, profile: { type: 'string' }, out: { type: 'string' }, annotations: { type: 'string' }, state: { type: 'string' } }, usage);
    if (positionals.length !== 1) usageError('expected one REPORT file', usage);
    if (values.agent === undefined || values.agent === '') usageError('--agent A is required', usage);
    if (values.out === undefined) usageError('--out FILE is required', usage);
    const profile = profileOption(values.profile, usage);
    const createdAt = createdAtFromEnv(io.env);
    const paths = reviewPaths(resolve(io.cwd, positionals[0]!), values.annotations === undefined ? undefined : resolve(io.cwd, values.annotations));
    const report = readReviewReport(paths.report, readBytesFile(paths.report));
    const text = readSidecarText(paths.sidecar);
    const annotations = text === undefined ? emptyAnnotations(report) : readAnnotations(paths.sidecar, text, report);
    const estate = estateFromArgs(values, io);
    const { graph_state } = runState(estate, io, { state: values.state });
    const outcome = reviewPlan(estate, report, annotations, { agent: values.agent, profile, createdAt, graphState: graph_state });
    if (!outcome.ok) {
      if (outcome.why === 'AGENT_NOT_FOUND') {
        io.stderr(`toolgate: AGENT_NOT_FOUND: ${values.agent}\n`);
        return EXIT.FAILED;
      }
      throw new ToolgateError('SCHEMA_INVALID', `${paths.report}: no candidate is accepted in ${paths.sidecar}; accept one with review-candidates annotate first`, { at: [{ file: paths.sidecar }] });
    }
    const bytes = jsonFileBytes(outcome.plan);
    const out = resolve(io.cwd, values.out);
    writeFilesAtomic([{ path: out, bytes, flag: '--out' }]);
    printJson(io, { out, artifact_digest: `sha256:${digestHex(bytes)}`, bytes: bytes.length, agent: values.agent, profile, candidates: outcome.plan.candidates.length, graph_state });
    return EXIT.OK;
  },
};
