/**
 * `toolgate review-candidates list REPORT` and `review-candidates annotate REPORT CANDIDATE_ID`:
 * the human review of a Tracegraph review-candidate report. `list` reads only: it is generated
 * from its row in the query table (queries/review-query.ts). `annotate` appends one disposition
 * event to the report's sidecar under a lock, atomically and durably (cli/review-store.ts): it
 * writes, so it is a command, not a query. Neither reads the estate, edits the report, or changes
 * governance.
 */
import { queryNamed } from '../../queries/table.ts';
import { appendEvent, DISPOSITIONS, emptyAnnotations, normaliseNote, normaliseReviewer, readAnnotations, SIDECAR_SUFFIX, type Annotations, type Disposition } from '../../review/annotations.ts';
import { readReviewReport, type ReviewReport } from '../../review/tracegraph-report.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readBytesFile } from '../fs-io.ts';
import { printJson } from '../output.ts';
import { queryCommand } from '../query-command.ts';
import { readSidecarText, replaceDurably, reviewPaths, withSidecarLock } from '../review-store.ts';
import { resolve } from 'node:path';

const common = `  --annotations FILE  the sidecar (default: REPORT${SIDECAR_SUFFIX}); symlinks are resolved first
Exit 0 on valid JSON output; 1 on an invalid or stale report or sidecar, or a failed write; 2 on bad usage.`;

const annotateUsage = `usage: toolgate review-candidates annotate REPORT CANDIDATE_ID --status open|accepted|dismissed --reviewer NAME [--note TEXT] [--annotations FILE]
Appends one disposition event to the sidecar bound to the SHA-256 of the report's exact bytes,
under a lock, with atomic replace and fsync of the file and its folder. The report is never
edited. A credential-shaped reviewer or note is refused (exit 2) and nothing is written.
  --status S          the new disposition
  --reviewer NAME     who decides (one line, at most 256 characters)
  --note TEXT         one line, at most 500 characters; may cite paths, never a credential
${common}`;

function dispositionOption(v: string | undefined, usage: string): Disposition {
  if (v === undefined) usageError('--status is required', usage);
  if (!(DISPOSITIONS as readonly string[]).includes(v)) usageError(`--status must be one of ${DISPOSITIONS.join(', ')}, got ${JSON.stringify(v)}`, usage);
  return v as Disposition;
}

function load(reportPath: string, sidecar: string): { report: ReviewReport; annotations: Annotations } {
  const report = readReviewReport(reportPath, readBytesFile(reportPath));
  // The sidecar annotate appends to and replaces: its earlier version, not an input it may not overwrite.
  const text = readSidecarText(sidecar, { input: false });
  return { report, annotations: text === undefined ? emptyAnnotations(report) : readAnnotations(sidecar, text, report) };
}

export const reviewCandidatesListCommand = queryCommand(queryNamed('review-candidates list'));

export const reviewCandidatesAnnotateCommand: Command = {
  name: 'review-candidates annotate',
  summary: 'append a disposition (open, accepted, dismissed) for one candidate to the review sidecar',
  usage: annotateUsage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { status: { type: 'string' }, reviewer: { type: 'string' }, note: { type: 'string' }, annotations: { type: 'string' } }, annotateUsage);
    if (positionals.length !== 2) usageError('expected REPORT and CANDIDATE_ID', annotateUsage);
    const disposition = dispositionOption(values.status, annotateUsage);
    if (values.reviewer === undefined) usageError('--reviewer is required', annotateUsage);
    const reviewer = normaliseReviewer(values.reviewer);
    const note = normaliseNote(values.note);
    const id = positionals[1]!;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) usageError(`CANDIDATE_ID must be a lowercase UUID, got ${JSON.stringify(id)}`, annotateUsage);
    const recordedAt = createdAtFromEnv(io.env);
    const paths = reviewPaths(resolve(io.cwd, positionals[0]!), values.annotations === undefined ? undefined : resolve(io.cwd, values.annotations));
    const { result, warning } = withSidecarLock(paths.sidecar, () => {
      // Read under the lock: another writer may have appended since we were started.
      const { report, annotations } = load(paths.report, paths.sidecar);
      const next = appendEvent(report, annotations, id, { disposition, reviewer, note, recordedAt });
      const w = replaceDurably(paths.sidecar, jsonFileBytes(next.annotations));
      return { result: { sidecar: paths.sidecar, source_report_digest: report.source_report_digest, sequence: next.annotations.events.length, candidate: next.view }, warning: w };
    });
    if (warning !== undefined) io.stderr(`toolgate: warning: ${warning}\n`);
    printJson(io, result);
    return EXIT.OK;
  },
};

