/**
 * `destructive-unsafeguarded`: exposed tools whose server claims `destructiveHint: true` and that
 * have no GOVERNED_BY path at all, neither on the tool nor on any resource it reads or writes.
 * The claim is a self-claim (crawled, medium): this is an authoring priority queue, not a verdict.
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { hintProvenance } from '../governance/annotations.ts';
import type { ReportedProvenance } from '../governance/types.ts';
import { auditResult, type AuditResult } from './types.ts';

export interface DestructiveUnsafeguardedRow {
  readonly tool_key: string;
  readonly claim: { readonly destructiveHint: true; readonly provenance: ReportedProvenance };
  /** Resources the tool is authored to read or write (none of them governed), sorted. */
  readonly resources: readonly string[];
  readonly granted_to: readonly string[];
}

/** True when a policy governs the tool directly or governs a resource it touches. */
export function hasGovernedPath(estate: Estate, key: string): boolean {
  if ((estate.bindingsByTarget.get(key)?.length ?? 0) > 0) return true;
  return (estate.accessByTool.get(key) ?? []).some((a) => (estate.bindingsByTarget.get(a.resource) ?? []).some((b) => b.target_kind === 'resource'));
}

export function destructiveUnsafeguarded(estate: Estate): AuditResult<DestructiveUnsafeguardedRow> {
  const rows: DestructiveUnsafeguardedRow[] = [];
  for (const tool of estate.tools.values()) {
    if (!tool.exposed || tool.contract?.annotations?.destructiveHint !== true) continue;
    if (hasGovernedPath(estate, tool.key)) continue;
    rows.push({
      tool_key: tool.key,
      claim: { destructiveHint: true, provenance: hintProvenance(estate, tool.key, 'destructiveHint') },
      resources: [...new Set((estate.accessByTool.get(tool.key) ?? []).map((a) => a.resource))].sort(cmp),
      granted_to: [...new Set((estate.grantsByTool.get(tool.key) ?? []).map((g) => g.agent))].sort(cmp),
    });
  }
  rows.sort((a, b) => cmp(a.tool_key, b.tool_key));
  return auditResult('destructive-unsafeguarded', rows);
}
