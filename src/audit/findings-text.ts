/** Each audit finding as one human sentence plus its evidence lines: what markdown and HTML print. */
import type { ReportedProvenance } from '../governance/types.ts';
import type { AuditReport } from './report.ts';
import type { AuditName } from './types.ts';

export interface FindingText {
  readonly summary: string;
  readonly evidence: readonly string[];
}

export interface AuditSection {
  readonly audit: AuditName;
  readonly title: string;
  readonly rows: readonly FindingText[];
}

function prov(p: ReportedProvenance): string {
  if (p.source === null && p.confidence === null && p.evidence === null) return 'no provenance';
  return `${p.source ?? '?'}/${p.confidence ?? '?'}${p.evidence ? `: ${p.evidence}` : ' (no evidence)'}`;
}

export function auditSections(r: AuditReport): AuditSection[] {
  const a = r.audits;
  return [
    {
      audit: 'unmapped-tools',
      title: 'Granted tools with no READS/WRITES edge',
      rows: a['unmapped-tools'].rows.map((x) => ({
        summary: `${x.tool_key} is granted to ${x.granted_to.join(', ')} but no data access is authored${x.directly_governed ? ' (a policy governs the tool directly)' : ''}`,
        evidence: [`exposed: ${x.exposed}`],
      })),
    },
    {
      audit: 'orphan-policies',
      title: 'Policies no agent reaches',
      rows: a['orphan-policies'].rows.map((x) => ({
        summary: `${x.effect} policy ${x.policy} reaches no agent: ${x.reason === 'UNBOUND' ? 'nothing is bound to it' : x.reason === 'UNTOUCHED' ? 'no tool touches what it governs' : 'no agent is granted a tool that reaches it'}`,
        evidence: [`declared at ${x.at}`, ...(x.governs.length ? [`governs ${x.governs.join(', ')}`] : []), ...(x.tools.length ? [`reached by ungranted ${x.tools.join(', ')}`] : [])],
      })),
    },
    {
      audit: 'unbacked-edges',
      title: 'Authored edges citing no evidence',
      rows: a['unbacked-edges'].rows.map((x) => ({ summary: `${x.from} -[${x.edge}]-> ${x.to}`, evidence: [`written at ${x.at}`, prov(x.provenance)] })),
    },
    {
      audit: 'drift',
      title: 'Governance naming tools no server exposes',
      rows: a.drift.rows.map((x) => ({
        summary: `${x.tool_key} is not exposed (server ${x.server ?? '(none named)'}: ${x.server_status})`,
        evidence: x.references.map((ref) => `${ref.kind} ${ref.other} at ${ref.at}`),
      })),
    },
    {
      audit: 'destructive-unsafeguarded',
      title: 'Destructive-claiming tools with no GOVERNED_BY path',
      rows: a['destructive-unsafeguarded'].rows.map((x) => ({
        summary: `${x.tool_key} claims destructiveHint and no policy governs it or anything it touches`,
        evidence: [`claim: ${prov(x.claim.provenance)}`, `granted to: ${x.granted_to.length ? x.granted_to.join(', ') : 'nobody'}`, ...(x.resources.length ? [`touches ${x.resources.join(', ')}`] : [])],
      })),
    },
    {
      audit: 'annotation-contradictions',
      title: 'Authored WRITES on tools claiming readOnlyHint',
      rows: a['annotation-contradictions'].rows.map((x) => ({
        summary: `${x.tool_key} claims readOnlyHint but is authored to WRITE ${x.resource}`,
        evidence: [`claim: ${prov(x.claim.provenance)}`, `authored edge at ${x.authored.at}: ${prov(x.authored.provenance)}`],
      })),
    },
  ];
}
