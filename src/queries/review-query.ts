/**
 * `review-candidates list`: the candidates of a Tracegraph review-candidate report, each projected
 * to the trace-review boundary with its candidate id, current disposition and history from the
 * report's sidecar. It reads the report and the sidecar only: no estate, nothing written.
 * (`review-candidates annotate` writes the sidecar, so it is a plain CLI command, not a query.)
 *
 * Pure: the report's and the sidecar's bytes and real paths come from the surface (QueryEnv).
 */
import { ToolgateError } from '../errors.ts';
import { utf8Text } from '../parse/utf8-text.ts';
import type { QueryDef } from './query-def.ts';

const DISPOSITIONS = ['open', 'accepted', 'dismissed'] as const;

export const reviewCandidatesQuery: QueryDef = {
  name: 'review-candidates list',
  tool: 'review_candidates',
  title: 'Review candidates',
  summary: 'the candidates of a Tracegraph review report, with their review dispositions',
  description:
    "The candidates of a Tracegraph review-candidates report file (schema v1), each projected to run_id, pattern_id, pattern_version, tool_key and artifact_digest, with its candidate_id (UUIDv5 of the exact tuple), current disposition and history from the report's sidecar (default REPORT.toolgraph-review.json). status filters by current disposition. Reads no estate; nothing is written.",
  help: `The candidates of a Tracegraph review-candidates report (schema v1), each projected to run_id,
pattern_id, pattern_version, tool_key and artifact_digest, with its candidate_id (UUIDv5 of the
exact tuple), current disposition and history from the sidecar. Nothing is written.
  --status S          only candidates whose current disposition is S
  --annotations FILE  the sidecar (default: REPORT.toolgraph-review.json); symlinks are resolved first
Exit 0 on valid JSON output; 1 on an invalid or stale report or sidecar; 2 on bad usage.`,
  args: [
    { name: 'report', kind: 'file', description: 'path to the Tracegraph review-candidates report (JSON)', positional: 'REPORT', required: 'both' },
    { name: 'status', kind: 'string', description: 'only candidates whose current disposition is this', values: DISPOSITIONS },
    { name: 'annotations', kind: 'file', description: 'path to the review sidecar (default: REPORT.toolgraph-review.json)' },
  ],
  estate: false,
  result: 'review-candidates',
  run: async (env, a) => {
    const [{ emptyAnnotations, listCandidates, readAnnotations, SIDECAR_SUFFIX }, { readReviewReport }] = await Promise.all([import('../review/annotations.ts'), import('../review/tracegraph-report.ts')]);
    const given = a.report as string;
    const report = env.realPath('report', given);
    const sidecarArg = a.annotations as string | undefined;
    const sidecar = env.realPath('annotations', sidecarArg ?? `${given}${SIDECAR_SUFFIX}`);
    if (sidecar === report) throw new ToolgateError('USAGE', `the review sidecar ${sidecarArg ?? sidecar} is the report itself; the report is never written`);
    const parsed = readReviewReport(report, env.readFile('report', report));
    const bytes = env.readOptionalFile('annotations', sidecar);
    const annotations = bytes === undefined ? emptyAnnotations(parsed) : readAnnotations(sidecar, utf8Text(bytes, sidecar), parsed);
    return listCandidates(parsed, annotations, a.status as (typeof DISPOSITIONS)[number] | undefined);
  },
  exit: () => ({ print: true, exit: 'OK' }),
};
