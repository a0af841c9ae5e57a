/**
 * `unmapped-tools [--all]`: granted tools with no READS/WRITES edge yet (with `all`, every tool
 * the catalog exposes or the manifest names, granted or not). A tool nobody has mapped cannot
 * be shown to reach a DENY policy, so its clean verdict says nothing; this is the authoring queue.
 * Annotations do not count as a mapping (they are self-claims and never create edges).
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { auditResult, type AuditResult } from './types.ts';

export interface UnmappedToolRow {
  readonly tool_key: string;
  readonly exposed: boolean;
  /** Agents granted the tool, sorted. */
  readonly granted_to: readonly string[];
  /** A policy governs the tool directly, so it is not wholly ungoverned. */
  readonly directly_governed: boolean;
}

export function unmappedTools(estate: Estate, all = false): AuditResult<UnmappedToolRow> {
  const rows: UnmappedToolRow[] = [];
  const keys: Iterable<string> = all ? estate.tools.keys() : estate.grantsByTool.keys();
  for (const key of keys) {
    const grants = estate.grantsByTool.get(key) ?? [];
    if ((estate.accessByTool.get(key)?.length ?? 0) > 0) continue;
    rows.push({
      tool_key: key,
      exposed: estate.tools.get(key)?.exposed ?? false,
      granted_to: [...new Set(grants.map((g) => g.agent))].sort(cmp),
      directly_governed: (estate.bindingsByTarget.get(key)?.length ?? 0) > 0,
    });
  }
  rows.sort((a, b) => cmp(a.tool_key, b.tool_key));
  return auditResult('unmapped-tools', rows);
}
