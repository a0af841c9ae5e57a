/**
 * `audit-report`: the whole estate's audit as one JSON report, with its gate (status and
 * blocking_findings). The MCP tool answers this report; the CLI prints it too, or renders it as
 * markdown or self-contained HTML for people (cli/commands/audit-report.ts): those are renderings
 * of the same answer, so they are the CLI's output formats, not other queries.
 *
 * Pure: the estate comes from the surface.
 */
import type { CliOutcome, QueryDef } from './query-def.ts';

export const auditReportQuery: QueryDef = {
  name: 'audit-report',
  tool: 'audit_report',
  title: 'Audit report',
  summary: 'the whole-estate audit (json, markdown, or self-contained html with graph pictures)',
  description:
    'The whole estate\'s audit in one report: counts, every audit\'s findings with their evidence, per-agent exposure, loading notices, and the gate: status (fail while any blocking finding remains: a DENY violation or drift; warn for advisory findings or notices only; else pass) with blocking_findings. include_grants=true audits CAN_CALL grants in unbacked-edges too. The JSON report `toolgate audit-report` prints; its markdown and html renderings are the CLI\'s.',
  help: `Counts, every audit finding with its evidence, per-agent exposure and notices.
  --include-grants   audit CAN_CALL grants in unbacked-edges too (default: READS/WRITES/GOVERNED_BY only)
  --fail-on-blocking exit 1 when any blocking finding remains (a DENY violation or drift); the
                     report is still printed or written
status: fail (blocking findings), warn (advisory findings or notices only) or pass.
Advisory by default: exit 0 whatever it finds; 1 when an input is refused or, with
--fail-on-blocking, while blocking_findings is not empty; 2 on bad usage.`,
  args: [{ name: 'include_grants', kind: 'boolean', description: 'also audit CAN_CALL grants in unbacked-edges' }],
  cliFlags: ['fail-on-blocking'],
  result: 'audit-report',
  printed: 'canonical',
  run: async (env, a) => (await import('../audit/report.ts')).auditReport(env.estate(), { includeGrants: (a.include_grants as boolean | undefined) ?? false }),
  exit: (r: { status: string; blocking_findings: readonly unknown[] }, flags): CliOutcome => {
    if (!flags['fail-on-blocking'] || r.blocking_findings.length === 0) return { print: true, exit: 'OK' };
    const n = r.blocking_findings.length;
    return { print: true, exit: 'FAILED', stderr: `audit status ${r.status}: ${n} blocking finding${n === 1 ? '' : 's'} (--fail-on-blocking)` };
  },
};
