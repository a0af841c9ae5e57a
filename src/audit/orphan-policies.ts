/**
 * `orphan-policies`: policies no agent reaches. A policy is reached when some agent is granted a
 * tool that the policy governs directly, or that reads or writes a resource the policy governs.
 * Each row says where the chain breaks: no binding at all, bound only to resources no tool
 * touches, or touched only by tools no agent is granted.
 */
import { cmp, type Estate } from '../governance/estate.ts';
import { formatLocation } from './location.ts';
import { auditResult, type AuditResult } from './types.ts';

export type OrphanReason = 'UNBOUND' | 'UNTOUCHED' | 'UNGRANTED';

export interface OrphanPolicyRow {
  readonly policy: string;
  readonly effect: 'ALLOW' | 'DENY';
  readonly scope: string | null;
  readonly reason: OrphanReason;
  /** What the policy governs (tool keys and resource URIs), sorted. */
  readonly governs: readonly string[];
  /** Tools that reach it (none are granted to any agent), sorted. */
  readonly tools: readonly string[];
  readonly at: string;
}

/** Tools that reach a policy: directly governed, or touching a governed resource. */
export function toolsReachingPolicy(estate: Estate, policy: string): string[] {
  const tools = new Set<string>();
  for (const b of estate.bindingsByPolicy.get(policy) ?? []) {
    if (b.target_kind === 'tool') tools.add(b.target_key);
    else for (const a of estate.accessByResource.get(b.target_key) ?? []) tools.add(a.tool_key);
  }
  return [...tools].sort(cmp);
}

export function orphanPolicies(estate: Estate): AuditResult<OrphanPolicyRow> {
  const rows: OrphanPolicyRow[] = [];
  estate.manifest.policies.forEach((p, i) => {
    const bindings = estate.bindingsByPolicy.get(p.id) ?? [];
    const tools = toolsReachingPolicy(estate, p.id);
    if (tools.some((t) => (estate.grantsByTool.get(t)?.length ?? 0) > 0)) return;
    const reason: OrphanReason = bindings.length === 0 ? 'UNBOUND' : tools.length === 0 ? 'UNTOUCHED' : 'UNGRANTED';
    rows.push({
      policy: p.id,
      effect: p.effect,
      scope: p.scope ?? null,
      reason,
      governs: [...new Set(bindings.map((b) => b.target_key))].sort(cmp),
      tools,
      at: formatLocation(estate, ['policies', i]),
    });
  });
  rows.sort((a, b) => cmp(a.policy, b.policy));
  return auditResult('orphan-policies', rows);
}

