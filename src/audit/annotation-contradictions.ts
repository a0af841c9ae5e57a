/**
 * `annotation-contradictions`: authored WRITES edges on tools whose server claims
 * `readOnlyHint: true`. One side is wrong; each row cites both provenances (the hint's crawl,
 * crawled/medium, and the authored edge's evidence and location) so the operator can weigh them.
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { hintProvenance } from '../governance/annotations.ts';
import { reportProvenance } from '../governance/provenance.ts';
import type { ReportedProvenance } from '../governance/types.ts';
import { formatLocation } from './location.ts';
import { auditResult, type AuditResult } from './types.ts';

export interface AnnotationContradictionRow {
  readonly tool_key: string;
  readonly resource: string;
  readonly claim: { readonly readOnlyHint: true; readonly provenance: ReportedProvenance };
  readonly authored: { readonly edge: 'WRITES'; readonly provenance: ReportedProvenance; readonly at: string };
}

export function annotationContradictions(estate: Estate): AuditResult<AnnotationContradictionRow> {
  const rows: AnnotationContradictionRow[] = [];
  for (const [key, list] of estate.accessByTool) {
    if (estate.tools.get(key)?.contract?.annotations?.readOnlyHint !== true) continue;
    for (const a of list) {
      if (a.mode !== 'WRITES') continue;
      rows.push({
        tool_key: key,
        resource: a.resource,
        claim: { readOnlyHint: true, provenance: hintProvenance(estate, key, 'readOnlyHint') },
        authored: { edge: 'WRITES', provenance: reportProvenance(a.provenance), at: formatLocation(estate, ['data_access', a.index]) },
      });
    }
  }
  rows.sort((a, b) => cmp(a.tool_key, b.tool_key) || cmp(a.resource, b.resource));
  return auditResult('annotation-contradictions', rows);
}
