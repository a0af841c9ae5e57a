/**
 * `unbacked-edges [--include-grants]`: authored edges that cite no evidence (READS/WRITES and
 * GOVERNED_BY; CAN_CALL grants too on request). A DENY verdict resting on such an edge is an
 * unverified assertion; this lists them with where each was written.
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { isBacked, reportProvenance } from '../governance/provenance.ts';
import type { ReportedProvenance } from '../governance/types.ts';
import { bindingPath, formatLocation } from './location.ts';
import { auditResult, type AuditResult } from './types.ts';

export type AuthoredEdge = 'CAN_CALL' | 'READS' | 'WRITES' | 'GOVERNED_BY';

export interface UnbackedEdgeRow {
  readonly edge: AuthoredEdge;
  /** Agent id (CAN_CALL), tool key (READS/WRITES, GOVERNED_BY of a tool) or resource URI (GOVERNED_BY of a resource). */
  readonly from: string;
  /** Tool key (CAN_CALL), resource URI (READS/WRITES) or policy id (GOVERNED_BY). */
  readonly to: string;
  readonly provenance: ReportedProvenance;
  readonly at: string;
}

const ORDER: Record<AuthoredEdge, number> = { CAN_CALL: 0, READS: 1, WRITES: 1, GOVERNED_BY: 2 };

export interface UnbackedEdgesResult extends AuditResult<UnbackedEdgeRow> {
  readonly include_grants: boolean;
}

export function unbackedEdges(estate: Estate, includeGrants = false): UnbackedEdgesResult {
  const rows: UnbackedEdgeRow[] = [];
  if (includeGrants) {
    for (const grants of estate.grantsByAgent.values()) {
      for (const g of grants.values()) {
        if (!isBacked(g.provenance)) rows.push({ edge: 'CAN_CALL', from: g.agent, to: g.tool_key, provenance: reportProvenance(g.provenance), at: formatLocation(estate, ['grants', estate.grantIndex(g)]) });
      }
    }
  }
  for (const list of estate.accessByTool.values()) {
    for (const a of list) {
      if (!isBacked(a.provenance)) rows.push({ edge: a.mode, from: a.tool_key, to: a.resource, provenance: reportProvenance(a.provenance), at: formatLocation(estate, ['data_access', a.index]) });
    }
  }
  for (const list of estate.bindingsByPolicy.values()) {
    for (const b of list) {
      if (!isBacked(b.provenance)) rows.push({ edge: 'GOVERNED_BY', from: b.target_key, to: b.policy, provenance: reportProvenance(b.provenance), at: formatLocation(estate, bindingPath(estate, b)) });
    }
  }
  rows.sort((a, b) => ORDER[a.edge] - ORDER[b.edge] || cmp(a.from, b.from) || cmp(a.to, b.to) || cmp(a.edge, b.edge));
  return { ...auditResult('unbacked-edges', rows), include_grants: includeGrants };
}
