/**
 * The data the HTML report's script draws its views from: every grant with the gateway's decision
 * for it (governance/gateway-decision.ts, the same per-pair decision the bundle is compiled from),
 * the DENY paths from the audit's exposure, each tool's data access and every policy's bindings.
 * Compact (servers, policies and agents are referred to by index) so a 20,000-grant estate stays
 * small.
 */
import { gatewayDecision } from '../governance/gateway-decision.ts';
import { cmp, type Estate } from '../governance/estate.ts';
import { scrubUri } from '../governance/provenance.ts';
import type { Profile } from '../governance/types.ts';
import type { AuditReport } from './report.ts';

/** DENY classification of a grant or path: 0 none, 1 authorized by an expected exception, 2 violation. */
export type DenyClass = 0 | 1 | 2;

export interface ReportGateway {
  readonly profile: Profile;
  /** The compiled bundle's revision, or null when the report was made without a bundle. */
  readonly revision: string | null;
}

export interface ReportData {
  readonly profile: Profile;
  readonly revision: string | null;
  readonly servers: readonly string[];
  /** [id, effect] */
  readonly policies: readonly (readonly [string, 'ALLOW' | 'DENY'])[];
  readonly agents: readonly {
    readonly id: string;
    /** [tool key, server index or -1, gateway allows 0|1, gateway reason or '', DENY class] */
    readonly grants: readonly (readonly [string, number, 0 | 1, string, DenyClass])[];
    /** [tool key, policy index, resource or '' for a binding on the tool, DENY class] */
    readonly deny: readonly (readonly [string, number, string, DenyClass])[];
  }[];
  /** tool key -> [[resource, 'R'|'W'], ...] for tools that read or write a resource */
  readonly access: Readonly<Record<string, readonly (readonly [string, 'R' | 'W'])[]>>;
  /** target (tool key or resource) -> policy indexes it is GOVERNED_BY */
  readonly bindings: Readonly<Record<string, readonly number[]>>;
  /** the binding targets that are tools (the others are resources) */
  readonly boundTools: readonly string[];
}

export function reportData(estate: Estate, report: AuditReport, gateway: ReportGateway): ReportData {
  const servers = [...new Set(estate.catalog.servers.map((s) => s.name))].sort(cmp);
  const serverIndex = new Map(servers.map((s, i) => [s, i]));
  const policyIds = [...estate.policies.keys()].sort(cmp);
  const policyIndex = new Map(policyIds.map((p, i) => [p, i]));
  const classOf = (c: string): DenyClass => (c === 'violation' ? 2 : 1);

  const agents = report.exposure.map((ex) => {
    const worst = new Map<string, DenyClass>();
    for (const p of ex.deny_paths) worst.set(p.tool_key, Math.max(worst.get(p.tool_key) ?? 0, classOf(p.classification)) as DenyClass);
    const keys = [...(estate.grantsByAgent.get(ex.agent)?.keys() ?? [])].sort(cmp);
    const grants = keys.map((key) => {
      const d = gatewayDecision(estate, ex.agent, key, gateway.profile);
      const server = estate.tools.get(key)?.server ?? null;
      return [key, server === null ? -1 : (serverIndex.get(server) ?? -1), d.allow ? 1 : 0, d.reason ?? '', worst.get(key) ?? 0] as const;
    });
    const deny = ex.deny_paths.map((p) => [p.tool_key, policyIndex.get(p.policy) ?? -1, p.resource ?? '', classOf(p.classification)] as const);
    return { id: ex.agent, grants, deny };
  });

  const access: Record<string, (readonly [string, 'R' | 'W'])[]> = {};
  for (const key of [...estate.accessByTool.keys()].sort(cmp)) {
    const rows = (estate.accessByTool.get(key) ?? []).map((x) => [scrubUri(x.resource), x.mode === 'WRITES' ? 'W' : 'R'] as const);
    access[key] = [...new Map(rows.map((r) => [`${r[0]}\u0000${r[1]}`, r])).values()].sort((a, b) => cmp(a[0], b[0]) || cmp(a[1], b[1]));
  }
  const bindings: Record<string, number[]> = {};
  const boundTools: string[] = [];
  for (const target of [...estate.bindingsByTarget.keys()].sort(cmp)) {
    const isTool = (estate.bindingsByTarget.get(target) ?? []).some((b) => b.target_kind === 'tool');
    const name = isTool ? target : scrubUri(target);
    if (isTool) boundTools.push(target);
    const list = new Set([...(bindings[name] ?? []), ...(estate.bindingsByTarget.get(target) ?? []).map((b) => policyIndex.get(b.policy) ?? -1)]);
    bindings[name] = [...list].filter((i) => i >= 0).sort((a, b) => a - b);
  }
  return {
    profile: gateway.profile,
    revision: gateway.revision,
    servers,
    policies: policyIds.map((p) => [p, estate.policies.get(p)!.effect] as const),
    agents,
    access,
    bindings,
    boundTools,
  };
}
