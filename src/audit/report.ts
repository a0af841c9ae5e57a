/**
 * `audit-report`: the whole estate in one value: counts, every audit's findings with their
 * evidence, per-agent exposure (what each agent's grants reach, and how it is classified) and the
 * loading notices. Deterministic: no timestamp; the input digests identify what it describes.
 * Markdown and HTML are renderings of this value (markdown.ts, html.ts).
 */
import { catalogDigest, governanceDigest } from '../governance/input-digests.ts';
import { formatAt } from '../errors.ts';
import { assess } from '../governance/assess.ts';
import { cmp, type Estate } from '../governance/estate.ts';
import { unusedExceptionNotices } from '../governance/exceptions.ts';
import { scrubUri } from '../governance/provenance.ts';
import type { Classification } from '../governance/types.ts';
import { annotationContradictions, type AnnotationContradictionRow } from './annotation-contradictions.ts';
import { destructiveUnsafeguarded, type DestructiveUnsafeguardedRow } from './destructive-unsafeguarded.ts';
import { drift, type DriftRow } from './drift.ts';
import { orphanPolicies, type OrphanPolicyRow } from './orphan-policies.ts';
import { auditGate, type AuditStatus, type BlockingFinding } from './gate.ts';
import type { AuditResult } from './types.ts';
import { unbackedEdges, type UnbackedEdgesResult } from './unbacked-edges.ts';
import { unmappedTools, type UnmappedToolRow } from './unmapped-tools.ts';

export const AUDIT_REPORT_KIND = 'toolgate.audit-report';

export interface ExposurePath {
  readonly tool_key: string;
  readonly policy: string;
  readonly resource: string | null;
  readonly classification: Classification;
  readonly path: string;
  readonly exception_reason?: string;
}

export interface AgentExposure {
  readonly agent: string;
  readonly granted: number;
  readonly drifted: readonly string[];
  readonly unmapped: readonly string[];
  readonly unbacked: readonly string[];
  readonly violations: number;
  readonly authorized_but_governed: number;
  readonly policies_reached: readonly string[];
  readonly resources_reached: readonly string[];
  readonly deny_paths: readonly ExposurePath[];
}

export interface AuditReport {
  readonly kind: typeof AUDIT_REPORT_KIND;
  readonly schema_version: 1;
  readonly governance_digest: string;
  readonly catalog_digest: string;
  readonly counts: {
    readonly servers: number;
    readonly tools_exposed: number;
    readonly agents: number;
    readonly policies: { readonly ALLOW: number; readonly DENY: number };
    readonly grants: number;
    readonly data_access: number;
    readonly governed_by: number;
    readonly expected_exceptions: number;
    readonly resources: number;
    readonly violations: number;
    readonly authorized_but_governed: number;
    readonly findings: { readonly [audit: string]: number };
  };
  readonly audits: {
    readonly 'unmapped-tools': AuditResult<UnmappedToolRow>;
    readonly 'orphan-policies': AuditResult<OrphanPolicyRow>;
    readonly 'unbacked-edges': UnbackedEdgesResult;
    readonly drift: AuditResult<DriftRow>;
    readonly 'destructive-unsafeguarded': AuditResult<DestructiveUnsafeguardedRow>;
    readonly 'annotation-contradictions': AuditResult<AnnotationContradictionRow>;
  };
  readonly exposure: readonly AgentExposure[];
  readonly notices: readonly { readonly kind: string; readonly at: string; readonly message: string }[];
  /** `fail` while any blocking finding remains, `warn` for advisory findings only, else `pass` (gate.ts). */
  readonly status: AuditStatus;
  readonly blocking_findings: readonly BlockingFinding[];
}

export interface AuditReportOptions {
  /** Audit CAN_CALL grants in unbacked-edges too (the peer's `--include-grants`); default false. */
  readonly includeGrants?: boolean;
}

export function agentExposure(estate: Estate, agent: string): AgentExposure {
  const keys = [...(estate.grantsByAgent.get(agent)?.keys() ?? [])].sort(cmp);
  const drifted: string[] = [];
  const unmapped: string[] = [];
  const unbacked: string[] = [];
  const policies = new Set<string>();
  const resources = new Set<string>();
  const deny_paths: ExposurePath[] = [];
  let violations = 0;
  for (const key of keys) {
    const a = assess(estate, agent, key);
    if (!a.exposed) drifted.push(key);
    if (!a.mapped) unmapped.push(key);
    if (a.unbacked) unbacked.push(key);
    violations += a.violations;
    for (const x of estate.accessByTool.get(key) ?? []) resources.add(scrubUri(x.resource));
    for (const e of a.deny_evidence) {
      policies.add(e.policy);
      deny_paths.push({
        tool_key: key,
        policy: e.policy,
        resource: e.resource === null ? null : scrubUri(e.resource),
        classification: e.classification,
        path: e.path,
        ...(e.exception_reason !== undefined ? { exception_reason: e.exception_reason } : {}),
      });
    }
  }
  return {
    agent,
    granted: keys.length,
    drifted,
    unmapped,
    unbacked,
    violations,
    authorized_but_governed: deny_paths.length - violations,
    policies_reached: [...policies].sort(cmp),
    resources_reached: [...resources].sort(cmp),
    deny_paths,
  };
}

export function auditReport(estate: Estate, options: AuditReportOptions = {}): AuditReport {
  const audits = {
    'unmapped-tools': unmappedTools(estate),
    'orphan-policies': orphanPolicies(estate),
    'unbacked-edges': unbackedEdges(estate, options.includeGrants ?? false),
    drift: drift(estate),
    'destructive-unsafeguarded': destructiveUnsafeguarded(estate),
    'annotation-contradictions': annotationContradictions(estate),
  } as const;
  const exposure = [...estate.agents.keys()].sort(cmp).map((a) => agentExposure(estate, a));
  const m = estate.manifest;
  const notices = [...estate.notices, ...unusedExceptionNotices(estate)].map((n) => ({ kind: n.kind, at: formatAt(n.at), message: n.message }));
  return {
    kind: AUDIT_REPORT_KIND,
    schema_version: 1,
    governance_digest: governanceDigest(m.raw),
    catalog_digest: catalogDigest(estate.catalog),
    counts: {
      servers: estate.catalog.servers.length,
      tools_exposed: [...estate.tools.values()].filter((t) => t.exposed).length,
      agents: m.agents.length,
      policies: { ALLOW: m.policies.filter((p) => p.effect === 'ALLOW').length, DENY: m.policies.filter((p) => p.effect === 'DENY').length },
      grants: m.grants.length,
      data_access: m.data_access.length,
      governed_by: m.governed_by.length,
      expected_exceptions: m.expected_exceptions.length,
      resources: estate.resources.size,
      violations: exposure.reduce((n, e) => n + e.violations, 0),
      authorized_but_governed: exposure.reduce((n, e) => n + e.authorized_but_governed, 0),
      findings: Object.fromEntries(Object.entries(audits).map(([k, v]) => [k, v.count])),
    },
    audits,
    exposure,
    notices,
    ...auditGate({ audits, exposure, notices }),
  };
}
