/** `toolgate audit-report [--format json|markdown|html] [--out FILE]`: the whole estate's audit in one report. */
import { dirname, resolve } from 'node:path';
import { renderHtml } from '../../audit/html.ts';
import { reportData, type ReportGateway } from '../../audit/html-data.ts';
import { withoutRoots } from '../../audit/html-embed.ts';
import { renderMarkdown } from '../../audit/markdown.ts';
import { reportPictures } from '../../audit/pictures.ts';
import { auditReport } from '../../audit/report.ts';
import { digestHex } from '../../canonical/digest.ts';
import { jsonFileBytes } from '../../compile/compile.ts';
import { PROFILES, type Profile } from '../../governance/types.ts';
import { parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate } from '../estate-input.ts';
import { readBytesFile, writeFilesAtomic } from '../fs-io.ts';
import { AUDIT_REPORT_OUTPUT, assertReplaceableOutput } from '../output-guard.ts';
import { printJson } from '../output.ts';
import { readGraphFile } from '../connectome-cli.ts';
import { profileOption } from '../selector-args.ts';

const FORMATS = ['json', 'markdown', 'html'] as const;

const usage = `usage: toolgate audit-report [--format json|markdown|html] [--out FILE] [--connectome FILE] [--profile P] [--bundle FILE] [--include-grants] [--fail-on-blocking] [estate]
Counts, every audit finding with its evidence, per-agent exposure and notices. html is one
self-contained file (no network): agent, grant and policy tables with search and filters
(violations only, by server, by gateway reason), the gateway's decision beside each grant, and
per-agent / per-policy graphs drawn when opened; whole-estate pictures only for small estates.
Without --out the report goes to stdout; with --out it is
written privately and atomically and stdout gets {out, format, bytes, artifact_digest}; an existing
FILE is replaced only when it is empty or an earlier toolgate audit report (else OUTPUT_NOT_ARTIFACT).
  --connectome FILE  draw this connectome (e.g. a compile's connectome.json after --signs, so the
                     signs show) instead of the declared one built from the catalog
  --profile P        html: the profile the gateway decisions are worked out under (strict, review,
                     explore; default the bundle's, else the config's, else strict)
  --bundle FILE      html: the compiled bundle.tar.gz whose revision (and profile) the report names
  --include-grants   audit CAN_CALL grants in unbacked-edges too (default: READS/WRITES/GOVERNED_BY only)
  --fail-on-blocking exit 1 when any blocking finding remains (a DENY violation or drift); the
                     report is still printed or written
status: fail (blocking findings), warn (advisory findings or notices only) or pass.
Advisory by default: exit 0 whatever it finds; 1 when an input is refused or, with
--fail-on-blocking, while blocking_findings is not empty; 2 on bad usage.
${ESTATE_USAGE}`;

/** The gateway the html report describes: the bundle's revision and profile when one is given. */
async function gatewayFromArgs(io: CliIo, bundle: string | undefined, profileArg: string | undefined, configProfile: unknown): Promise<ReportGateway> {
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

export const auditReportCommand: Command = {
  name: 'audit-report',
  summary: 'the whole-estate audit (json, markdown, or self-contained html with graph pictures)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(
      args,
      { ...ESTATE_OPTIONS, format: { type: 'string' }, out: { type: 'string' }, connectome: { type: 'string' }, profile: { type: 'string' }, bundle: { type: 'string' }, 'include-grants': { type: 'boolean' }, 'fail-on-blocking': { type: 'boolean' } },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const format = values.format ?? 'json';
    if (!(FORMATS as readonly string[]).includes(format)) usageError(`--format must be one of ${FORMATS.join(', ')}, got ${JSON.stringify(format)}`, usage);
    if (format !== 'html' && (values.profile !== undefined || values.bundle !== undefined)) usageError('--profile and --bundle apply only to --format html', usage);
    const out = values.out === undefined ? undefined : resolve(io.cwd, values.out);
    if (out !== undefined) assertReplaceableOutput(out, AUDIT_REPORT_OUTPUT);
    const source = locateEstate(values, io);
    const estate = loadEstate(source, io, { strictDrift: values['strict-drift'] ?? false });
    const graph = values.connectome === undefined ? undefined : readGraphFile(io, values.connectome).graph;
    io.progress?.report('auditing');
    const report = auditReport(estate, { includeGrants: values['include-grants'] ?? false });
    const exit = (): number => {
      if (values['fail-on-blocking'] !== true || report.blocking_findings.length === 0) return EXIT.OK;
      io.stderr(`toolgate: audit status ${report.status}: ${report.blocking_findings.length} blocking finding${report.blocking_findings.length === 1 ? '' : 's'} (--fail-on-blocking)\n`);
      return EXIT.FAILED;
    };
    let text: string | undefined;
    if (format === 'markdown') text = renderMarkdown(report);
    if (format === 'html') {
      const gateway = await gatewayFromArgs(io, values.bundle, values.profile, source.config?.profile);
      io.progress?.report('drawing the graphs');
      // The file is for sharing: no reader's folder names go into it, only estate-relative ones.
      const roots = [dirname(source.manifestPath), dirname(source.catalogPath), io.cwd];
      text = renderHtml(withoutRoots(report, roots), await reportPictures(estate, report, graph), withoutRoots(reportData(estate, report, gateway), roots));
    }
    const bytes = text === undefined ? jsonFileBytes(report) : new TextEncoder().encode(text);
    if (out === undefined) {
      io.stdout(new TextDecoder().decode(bytes));
      return exit();
    }
    writeFilesAtomic([{ path: out, bytes }]);
    printJson(io, { out, format, bytes: bytes.length, artifact_digest: `sha256:${digestHex(bytes)}`, status: report.status, blocking_findings: report.blocking_findings.length });
    return exit();
  },
};
