/**
 * `drift`: governance that names tools no server in the catalog exposes now (the peer's ADR-0002
 * notices, as rows). Each row lists every reference to the tool with where it was written, and
 * whether its server is in the catalog at all (a server that failed to crawl drifts every tool).
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { bindingPath, formatLocation } from './location.ts';
import { auditResult, type AuditResult } from './types.ts';

export interface DriftReference {
  readonly kind: 'CAN_CALL' | 'READS' | 'WRITES' | 'GOVERNED_BY' | 'EXPECTED_EXCEPTION';
  /** The agent (CAN_CALL, EXPECTED_EXCEPTION), resource (READS/WRITES) or policy (GOVERNED_BY). */
  readonly other: string;
  readonly at: string;
}

export interface DriftRow {
  readonly tool_key: string;
  readonly server: string | null;
  /** `absent` when the catalog has no such server; otherwise its crawl status. */
  readonly server_status: 'absent' | 'ok' | 'failed';
  readonly references: readonly DriftReference[];
}

export function drift(estate: Estate): AuditResult<DriftRow> {
  const refs = new Map<string, DriftReference[]>();
  const add = (key: string, r: DriftReference) => {
    const list = refs.get(key);
    if (list) list.push(r);
    else refs.set(key, [r]);
  };
  const drifted = (key: string) => estate.tools.get(key)?.exposed === false;
  estate.manifest.grants.forEach((g, i) => {
    const r = estate.resolveTool(g.tool);
    if (r.status === 'found' && drifted(r.key)) add(r.key, { kind: 'CAN_CALL', other: g.agent, at: formatLocation(estate, ['grants', i]) });
  });
  for (const list of estate.accessByTool.values()) {
    for (const a of list) if (drifted(a.tool_key)) add(a.tool_key, { kind: a.mode, other: a.resource, at: formatLocation(estate, ['data_access', a.index]) });
  }
  for (const list of estate.bindingsByPolicy.values()) {
    for (const b of list) if (b.target_kind === 'tool' && drifted(b.target_key)) add(b.target_key, { kind: 'GOVERNED_BY', other: b.policy, at: formatLocation(estate, bindingPath(estate, b)) });
  }
  estate.manifest.expected_exceptions.forEach((x, i) => {
    if (x.tool === '*' || x.tool.endsWith('::*')) return;
    const r = estate.resolveTool(x.tool);
    if (r.status === 'not_found' || (r.status === 'found' && drifted(r.key))) {
      add(r.status === 'found' ? r.key : x.tool, { kind: 'EXPECTED_EXCEPTION', other: x.agent, at: formatLocation(estate, ['expected_exceptions', i]) });
    }
  });
  const servers = new Map(estate.catalog.servers.map((s) => [s.name, s.status ?? 'ok'] as const));
  const rows: DriftRow[] = [...refs.entries()].map(([key, references]) => {
    const sep = key.indexOf('::');
    const server = sep === -1 ? null : key.slice(0, sep);
    references.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.other, b.other) || cmp(a.at, b.at));
    return { tool_key: key, server, server_status: server === null ? 'absent' : (servers.get(server) ?? 'absent'), references };
  });
  rows.sort((a, b) => cmp(a.tool_key, b.tool_key));
  return auditResult('drift', rows);
}
