/**
 * `toolgate audit-report [--format json|markdown|html] [--out FILE]`: the whole estate's audit in
 * one report. The report is the table's query (the MCP tool audit_report answers the same JSON);
 * markdown and html are renderings of it the CLI makes for people.
 */
import { dirname, resolve } from 'node:path';
import { renderHtml } from '../../audit/html.ts';
import { reportData, type ReportGateway } from '../../audit/html-data.ts';
import { withoutRoots } from '../../audit/html-embed.ts';
import { renderMarkdown } from '../../audit/markdown.ts';
import { reportPictures } from '../../audit/pictures.ts';
import type { AuditReport } from '../../audit/report.ts';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { PROFILES, type Profile } from '../../governance/types.ts';
import { usageError } from '../args.ts';
import type { CliIo } from '../command.ts';
import { queryNamed } from '../../queries/table.ts';
import { queryCommand, type CliOutput } from '../query-command.ts';
import { readBytesFile, writeFilesAtomic } from '../fs-io.ts';
import { AUDIT_REPORT_OUTPUT, assertReplaceableOutput } from '../output-guard.ts';
import { printJson } from '../output.ts';
import { readGraphFile } from '../connectome-cli.ts';
import { profileOption } from '../selector-args.ts';

const FORMATS = ['json', 'markdown', 'html'] as const;

const FORMAT_HELP = `Output: json (default) prints the report; markdown and html render it for people. html is one
self-contained file (no network): agent, grant and policy tables with search and filters
(violations only, by server, by gateway reason), the gateway's decision beside each grant, and
per-agent / per-policy graphs drawn when opened; whole-estate pictures only for small estates.
Without --out the report goes to stdout; with --out it is
written privately and atomically and stdout gets {out, format, bytes, artifact_digest}; an existing
FILE is replaced only when it is empty or an earlier toolgate audit report (else OUTPUT_NOT_ARTIFACT).
  --format F         json, markdown or html
  --out FILE         write the report there
  --connectome FILE  html: draw this connectome (e.g. a compile's connectome.json after --signs, so the
                     signs show) instead of the declared one built from the catalog
  --profile P        html: the profile the gateway decisions are worked out under (strict, review,
                     explore; default the bundle's, else the config's, else strict)
  --bundle FILE      html: the compiled bundle.tar.gz whose revision (and profile) the report names
The MCP tool audit_report answers the JSON report: the renderings are for people reading a file.`;

/** The gateway the html report describes: the bundle's revision and profile when one is given. */
async function gatewayFromArgs(io: CliIo, usage: string, bundle: string | undefined, profileArg: string | undefined, configProfile: unknown): Promise<ReportGateway> {
  if (bundle === undefined) return { profile: profileOption(profileArg ?? (configProfile as string | undefined), usage), revision: null };
  // Only a report that names a bundle pays for the bundle reader (and its signature library).
  const { inspectBundle, readTarball } = await import('../../bundle/index.ts');
  const files = await readTarball(readBytesFile(resolve(io.cwd, bundle)), bundle);
  const inspected = inspectBundle(files, bundle);
  const meta = (inspected.manifest.metadata as { toolgate?: { profile?: unknown } } | undefined)?.toolgate?.profile;
  const bundleProfile = typeof meta === 'string' && (PROFILES as readonly string[]).includes(meta) ? (meta as Profile) : undefined;
  const profile = profileOption(profileArg ?? bundleProfile ?? (configProfile as string | undefined), usage);
  if (bundleProfile !== undefined && profile !== bundleProfile) usageError(`--profile ${profile} disagrees with the bundle, compiled under ${bundleProfile}`, usage);
  return { profile, revision: inspected.revision };
}

/** Where the report goes and in which rendering: the CLI's own options around the table's query. */
const REPORT_OUT: CliOutput = {
  synopsis: '[--format json|markdown|html] [--out FILE] [--connectome FILE] [--profile P] [--bundle FILE]',
  help: FORMAT_HELP,
  options: { format: { type: 'string' }, out: { type: 'string' }, connectome: { type: 'string' }, profile: { type: 'string' }, bundle: { type: 'string' } },
  check: (values, io, usage) => {
    const format = (values.format as string | undefined) ?? 'json';
    if (!(FORMATS as readonly string[]).includes(format)) usageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, usage);
    if (format !== 'html') {
      // Only the html report draws a connectome or names a bundle; taken silently elsewhere, a missing file would pass unnoticed.
      const htmlOnly = (['connectome', 'profile', 'bundle'] as const).filter((k) => values[k] !== undefined);
      if (htmlOnly.length > 0) usageError(`${htmlOnly.map((k) => `--${k}`).join(' and ')} ${htmlOnly.length === 1 ? 'applies' : 'apply'} only to --format html`, usage);
    }
    if (values.out !== undefined) assertReplaceableOutput(resolve(io.cwd, values.out as string), AUDIT_REPORT_OUTPUT);
    io.progress?.report('auditing');
  },
  write: async ({ result, io, values, usage, estate, source }) => {
    const format = (values.format as string | undefined) ?? 'json';
    const out = values.out === undefined ? undefined : resolve(io.cwd, values.out as string);
    if (format === 'json' && out === undefined) return false;
    const report = result as AuditReport;
    let text: string | undefined;
    if (format === 'markdown') text = renderMarkdown(report);
    if (format === 'html') {
      const graph = values.connectome === undefined ? undefined : readGraphFile(io, values.connectome as string).graph;
      const src = source();
      const gateway = await gatewayFromArgs(io, usage, values.bundle as string | undefined, values.profile as string | undefined, src.config?.profile);
      io.progress?.report('drawing the graphs');
      // The file is for sharing: no reader's folder names go into it, only estate-relative ones.
      const roots = [dirname(src.manifestPath), dirname(src.catalogPath), io.cwd];
      text = renderHtml(withoutRoots(report, roots), await reportPictures(estate(), report, graph), withoutRoots(reportData(estate(), report, gateway), roots));
    }
    const bytes = text === undefined ? jsonFileBytes(report) : new TextEncoder().encode(text);
    if (out === undefined) {
      io.stdout(new TextDecoder().decode(bytes));
      return true;
    }
    writeFilesAtomic([{ path: out, bytes, flag: '--out' }]);
    printJson(io, { out, format, bytes: bytes.length, artifact_digest: `sha256:${digestHex(bytes)}`, status: report.status, blocking_findings: report.blocking_findings.length });
    return true;
  },
};

/** `toolgate audit-report`: generated from its row in the query table (queries/audit-report-query.ts), with its renderings and --out. */
export const auditReportCommand = queryCommand(queryNamed('audit-report'), REPORT_OUT);
