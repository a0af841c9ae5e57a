/** The common shape of an audit answer: a name, the number of rows and the rows, each with its evidence. */
export interface AuditResult<Row> {
  readonly audit: AuditName;
  readonly count: number;
  readonly rows: readonly Row[];
}

export const AUDIT_NAMES = [
  'unmapped-tools',
  'orphan-policies',
  'unbacked-edges',
  'drift',
  'destructive-unsafeguarded',
  'annotation-contradictions',
] as const;
export type AuditName = (typeof AUDIT_NAMES)[number];

export function auditResult<Row>(audit: AuditName, rows: readonly Row[]): AuditResult<Row> {
  return { audit, count: rows.length, rows };
}
