/** `toolgate audit-report [--format json|markdown|html] [--out FILE]`: the whole estate's audit in one report. */
import { resolve } from 'node:path';
import { renderHtml } from '../../audit/html.ts';
import { renderMarkdown } from '../../audit/markdown.ts';
import { reportPictures } from '../../audit/pictures.ts';
import { auditReport } from '../../audit/report.ts';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, estateFromArgs } from '../estate-input.ts';
import { writeFilesAtomic } from '../fs-io.ts';
import { AUDIT_REPORT_OUTPUT, assertReplaceableOutput } from '../output-guard.ts';
import { printJson } from '../output.ts';
import { readGraphFile } from '../connectome-cli.ts';

const FORMATS = ['json', 'markdown', 'html'] as const;

const usage = `usage: toolgate audit-report [--format json|markdown|html] [--out FILE] [--connectome FILE] [--include-grants] [--fail-on-blocking] [estate]
Counts, every audit finding with its evidence, per-agent exposure and notices. html is one
self-contained file with SVG pictures of the governance graph (DENY paths coloured) and the
declared connectome (signs coloured). Without --out the report goes to stdout; with --out it is
written privately and atomically and stdout gets {out, format, bytes, artifact_digest}; an existing
FILE is replaced only when it is empty or an earlier toolgate audit report (else OUTPUT_NOT_ARTIFACT).
  --connectome FILE  draw this connectome (e.g. a compile's connectome.json after --signs, so the
                     signs show) instead of the declared one built from the catalog
  --include-grants   audit CAN_CALL grants in unbacked-edges too (default: READS/WRITES/GOVERNED_BY only)
  --fail-on-blocking exit 1 when any blocking finding remains (a DENY violation or drift); the
                     report is still printed or written
status: fail (blocking findings), warn (advisory findings or notices only) or pass.
Advisory by default: exit 0 whatever it finds; 1 when an input is refused or, with
--fail-on-blocking, while blocking_findings is not empty; 2 on bad usage.
${ESTATE_USAGE}`;

export const auditReportCommand: Command = {
  name: 'audit-report',
  summary: 'the whole-estate audit (json, markdown, or self-contained html with graph pictures)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, format: { type: 'string' }, out: { type: 'string' }, connectome: { type: 'string' }, 'include-grants': { type: 'boolean' }, 'fail-on-blocking': { type: 'boolean' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const format = values.format ?? 'json';
    if (!(FORMATS as readonly string[]).includes(format)) usageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, usage);
    const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
    if (out !== undefined) assertReplaceableOutput(out, AUDIT_REPORT_OUTPUT);
    const estate = estateFromArgs(values, io);
    const graph = values.connectome === undefined ? undefined : readGraphFile(io, values.connectome).graph;
    io.progress?.report('auditing');
    const report = auditReport(estate, { includeGrants: values['include-grants'] ?? false });
    if (format === 'html') io.progress?.report('drawing the graphs');
    const exit = (): number => {
      if (values['fail-on-blocking'] !== true || report.blocking_findings.length === 0) return EXIT.OK;
      io.stderr(`toolgate: audit status ${report.status}: ${report.blocking_findings.length} blocking finding${report.blocking_findings.length === 1 ? '' : 's'} (--fail-on-blocking)\n`);
      return EXIT.FAILED;
    };
    const bytes =
      format === 'json'
        ? jsonFileBytes(report)
        : new TextEncoder().encode(format === 'markdown' ? renderMarkdown(report) : renderHtml(report, await reportPictures(estate, report, graph)));
    if (out === undefined) {
      io.stdout(new TextDecoder().decode(bytes));
      return exit();
    }
    writeFilesAtomic([{ path: out, bytes }]);
    printJson(io, { out, format, bytes: bytes.length, artifact_digest: `sha256:${digestHex(bytes)}`, status: report.status, blocking_findings: report.blocking_findings.length });
    return exit();
  },
};
