/** The audit report as Markdown: counts, every finding with its evidence, per-agent exposure, notices. */
import { auditSections } from './findings-text.ts';
import type { AuditReport } from './report.ts';

/** Escapes the characters Markdown would read as formatting inside a table cell or list item. */
function md(s: string): string {
  return s.replace(/[\\`*_[\]|<>]/g, (c) => `\\${c}`);
}

export function renderMarkdown(r: AuditReport): string {
  const c = r.counts;
  const out: string[] = ['# toolgate audit report', '', `governance digest \`${r.governance_digest}\`  `, `catalog digest \`${r.catalog_digest}\``, '', `status **${r.status}** (${r.blocking_findings.length} blocking finding${r.blocking_findings.length === 1 ? '' : 's'})`, ...r.blocking_findings.map((b) => `- ${md(b.code === 'DENY_VIOLATION' ? `DENY_VIOLATION ${b.path}` : `DRIFTED ${b.tool_key} (${b.references} reference${b.references === 1 ? '' : 's'})`)}`), '', '## Counts', '', '| what | count |', '| --- | --- |'];
  const rows: [string, number][] = [
    ['servers', c.servers],
    ['tools exposed', c.tools_exposed],
    ['agents', c.agents],
    ['policies (DENY)', c.policies.DENY],
    ['policies (ALLOW)', c.policies.ALLOW],
    ['grants', c.grants],
    ['data access edges', c.data_access],
    ['GOVERNED_BY bindings', c.governed_by],
    ['expected exceptions', c.expected_exceptions],
    ['resources', c.resources],
    ['DENY violations', c.violations],
    ['authorized_but_governed', c.authorized_but_governed],
    ...Object.entries(c.findings).map(([k, v]) => [`findings: ${k}`, v] as [string, number]),
  ];
  for (const [k, v] of rows) out.push(`| ${md(k)} | ${v} |`);
  out.push('', '## Findings');
  for (const s of auditSections(r)) {
    out.push('', `### ${s.audit}: ${md(s.title)} (${s.rows.length})`, '');
    if (s.rows.length === 0) out.push('None.');
    for (const f of s.rows) {
      out.push(`- ${md(f.summary)}`);
      for (const e of f.evidence) out.push(`  - ${md(e)}`);
    }
  }
  out.push('', '## Per-agent exposure', '', '| agent | granted | violations | authorized | drifted | unmapped | unbacked | DENY policies reached |', '| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const e of r.exposure) {
    out.push(`| ${md(e.agent)} | ${e.granted} | ${e.violations} | ${e.authorized_but_governed} | ${e.drifted.length} | ${e.unmapped.length} | ${e.unbacked.length} | ${md(e.policies_reached.join(', ')) || '-'} |`);
  }
  for (const e of r.exposure) {
    if (e.deny_paths.length === 0) continue;
    out.push('', `### ${md(e.agent)}: DENY paths`, '');
    for (const p of e.deny_paths) out.push(`- **${p.classification}** \`${p.path.replace(/`/g, "'")}\`${p.exception_reason ? ` (exception: ${md(p.exception_reason)})` : ''}`);
  }
  out.push('', '## Notices', '');
  if (r.notices.length === 0) out.push('None.');
  for (const n of r.notices) out.push(`- ${md(n.kind)} at ${md(n.at)}: ${md(n.message)}`);
  out.push('');
  return out.join('\n');
}
