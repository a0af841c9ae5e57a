/**
 * The audit report's gate: `status` and `blocking_findings`.
 *
 * Blocking (status `fail`): a DENY path no expected exception covers (a violation, per agent, tool,
 * policy and resource, with its evidence path), and drift (governance naming a tool no server
 * exposes: the estate's decisions rest on a tool that is not there). Everything else the audits
 * find (unmapped tools, orphan policies, unbacked edges, destructive tools with no policy path,
 * annotation contradictions) and every loading notice is advisory: status `warn`. Nothing found:
 * `pass`. `audit-report --fail-on-blocking` exits 1 while any blocking finding remains.
 */
import type { AuditReport } from './report.ts';

export type AuditStatus = 'pass' | 'warn' | 'fail';

export type BlockingFinding =
  | { readonly code: 'DENY_VIOLATION'; readonly agent: string; readonly tool_key: string; readonly policy: string; readonly resource: string | null; readonly path: string }
  | { readonly code: 'DRIFTED'; readonly tool_key: string; readonly server: string | null; readonly references: number };

export interface AuditGate {
  readonly status: AuditStatus;
  readonly blocking_findings: readonly BlockingFinding[];
}

export function auditGate(r: Pick<AuditReport, 'audits' | 'exposure' | 'notices'>): AuditGate {
  const blocking: BlockingFinding[] = [];
  for (const e of r.exposure) {
    for (const p of e.deny_paths) {
      if (p.classification === 'violation') blocking.push({ code: 'DENY_VIOLATION', agent: e.agent, tool_key: p.tool_key, policy: p.policy, resource: p.resource, path: p.path });
    }
  }
  for (const d of r.audits.drift.rows) blocking.push({ code: 'DRIFTED', tool_key: d.tool_key, server: d.server, references: d.references.length });
  const advisory = Object.entries(r.audits).some(([name, a]) => name !== 'drift' && a.count > 0) || r.notices.length > 0;
  return { status: blocking.length > 0 ? 'fail' : advisory ? 'warn' : 'pass', blocking_findings: blocking };
}
