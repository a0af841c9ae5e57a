/**
 * The peer toolgraph's answers row by row, for `--compat toolgraph`: each function takes our answer
 * to a query (and the estate it was computed from) and returns the object the peer's MCP tool of the
 * same name answers, with its field names, its nulls (a field the peer always sends as null stays
 * present) and its row order. The shapes come from the peer's query layer and its tests
 * (memtomem/toolgraph at 0ba7770: toolgraph/graph/queries.py, toolgraph/graph/selector.py,
 * tests/test_server.py, test_queries.py, test_negative_truth.py, test_annotations.py,
 * test_selector.py); schemas/results/compat-toolgraph.schema.json describes them.
 *
 * What stays ours: every fact (which rows exist, their classification, provenance and risk), and
 * the wording of selection_explain's reasons.
 *
 * Pure: no I/O.
 */
import { assess, riskScore } from '../governance/assess.ts';
import { cmp, type Estate } from '../governance/estate.ts';
import { exceptionFor } from '../governance/exceptions.ts';
import { scrubUri } from '../governance/provenance.ts';
import { resourceKey } from '../governance/resource-uri.ts';
import type { DenyReach, ReportedProvenance } from '../governance/types.ts';
import { rankFeatures } from '../selector/rank-features.ts';

type Row = Record<string, unknown>;
type Any = any; // our answers as they arrive: each shaper reads the fields its query's schema promises

/** A policy id in a peer path carries its effect: `(ID:DENY)`. */
function denyPath(name: string, r: DenyReach): string {
  const policy = `(${r.policy}:DENY)`;
  return r.resource === null ? `(${name}) -GOVERNED_BY-> ${policy}` : `(${name}) -${r.via}-> (${scrubUri(r.resource)}) -GOVERNED_BY-> ${policy}`;
}

/** The peer reports a binding's provenance only when it says more than the default assertion. */
function bindingProvenance(p: ReportedProvenance | undefined): ReportedProvenance | undefined {
  if (p === undefined || (p.evidence === null && (p.source === null || p.source === 'operator_asserted'))) return undefined;
  return p;
}

function toolOf(estate: Estate, key: string): { tool: string; server: string | null } {
  const t = estate.tools.get(key);
  if (t) return { tool: t.name, server: t.server };
  const at = key.indexOf('::');
  return at === -1 ? { tool: key, server: null } : { tool: key.slice(at + 2), server: key.slice(0, at) };
}

const byResourceThenPolicy = (a: DenyReach, b: DenyReach) => cmp(a.resource ?? '', b.resource ?? '') || cmp(a.policy, b.policy) || cmp(a.via, b.via);

/**
 * Every way one tool reaches a DENY policy, as the peer's deny evidence rows: through a resource
 * first (by resource, then policy), then directly; with `agent`, each classified against its
 * expected exceptions whether or not the agent holds the grant.
 */
function peerDenyRows(estate: Estate, key: string, agent?: string): Row[] {
  const name = toolOf(estate, key).tool;
  const reach = estate.denyReach(key);
  const viaResource = reach.filter((r) => r.resource !== null).sort(byResourceThenPolicy);
  const direct = reach.filter((r) => r.resource === null).sort(byResourceThenPolicy);
  return [...viaResource, ...direct].map((r) => {
    const row: Row = r.resource === null ? { via: 'tool', policy: r.policy, path: denyPath(name, r), provenance: r.provenance } : { via: 'resource', mode: r.via, resource: r.resource, policy: r.policy, path: denyPath(name, r), provenance: r.provenance };
    const bound = r.resource === null ? undefined : bindingProvenance(r.policy_provenance);
    if (bound) row.policy_provenance = bound;
    if (agent !== undefined) {
      const x = exceptionFor(estate, agent, r);
      row.classification = x ? 'authorized_but_governed' : 'violation';
      if (x && typeof x.reason === 'string') row.exception_reason = x.reason;
    }
    return row;
  });
}

/** check_access: the resolved answer names the tool, its server, permitted and every deny row. */
export function peerCheckAccess(r: Any, estate: Estate): Row {
  const base = { agent: r.agent, tool: r.tool };
  if (r.verdict === 'AGENT_NOT_FOUND') return { ...base, agent_found: false, found: null, verdict: r.verdict };
  if (r.verdict === 'TOOL_NOT_FOUND') return { ...base, agent_found: true, found: false, verdict: r.verdict };
  if (r.verdict === 'AMBIGUOUS_TOOL') return { ...base, agent_found: true, found: true, verdict: r.verdict, candidates: [...r.candidates].sort(cmp) };
  const key = r.tool_key as string;
  const { tool, server } = toolOf(estate, key);
  const deny = peerDenyRows(estate, key, r.agent);
  const out: Row = { agent: r.agent, tool, tool_key: key, server, agent_found: true, found: true, permitted: r.verdict !== 'NOT_GRANTED', verdict: r.verdict, deny_evidence: deny };
  if (r.verdict === 'DENY') out.all_authorized = deny.every((d) => d.classification === 'authorized_but_governed');
  return out;
}

/** One agent's unsafe rows as the peer orders them: through a resource (by tool name, resource), then direct (by tool name). */
function unsafeRows(estate: Estate, agent: string): Row[] {
  const keys = [...(estate.grantsByAgent.get(agent)?.keys() ?? [])];
  const rows = keys.flatMap((key) => {
    const { tool, server } = toolOf(estate, key);
    return peerDenyRows(estate, key, agent).map((d) => {
      const { via, mode, resource, policy, path, provenance, policy_provenance, classification, exception_reason } = d;
      const row: Row = { tool_key: key, tool, server, via, mode: mode ?? null, resource: resource ?? null, policy, path, provenance };
      if (policy_provenance !== undefined) row.policy_provenance = policy_provenance;
      row.classification = classification;
      if (exception_reason !== undefined) row.exception_reason = exception_reason;
      return row;
    });
  });
  const order = (a: Row, b: Row) => cmp(a.tool as string, b.tool as string) || cmp((a.resource as string) ?? '', (b.resource as string) ?? '') || cmp(a.tool_key as string, b.tool_key as string) || cmp(a.policy as string, b.policy as string);
  return [...rows.filter((r) => r.via === 'resource').sort(order), ...rows.filter((r) => r.via === 'tool').sort(order)];
}

/** unsafe_callable_tools: violations, and with include_authorized the authorized rows too. */
export function peerUnsafeTools(r: Any, estate: Estate): Row {
  if (!r.agent_found) return { agent: r.agent, agent_found: false, count: 0, tools: [] };
  const tools = unsafeRows(estate, r.agent).filter((t) => r.include_authorized || t.classification === 'violation');
  return { agent: r.agent, agent_found: true, count: tools.length, tools };
}

/** The agents holding a grant of the tool, each once, sorted. */
const grantedTo = (estate: Estate, key: string) => [...new Set((estate.grantsByTool.get(key) ?? []).map((g) => g.agent))].sort(cmp);
const nullsLast = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : cmp(a, b));

/** blast_radius: {kind, node, found, impacted}, one impacted row per (tool, edge, caller). */
export function peerBlastRadius(r: Any, estate: Estate): Row {
  // The peer reads a scheme-prefixed argument (not `server::`) as a resource URI, anything else as a
  // policy id only.
  const uriShaped = /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(r.target) && !/^[a-zA-Z][a-zA-Z0-9+.-]*::/.test(r.target);
  if (!r.found) return uriShaped ? { kind: 'resource', node: resourceKey(r.target), found: false, impacted: [] } : { kind: 'policy', node: r.target, found: false, impacted: [] };
  if (!uriShaped && r.kind === 'resource') return { kind: 'policy', node: r.target, found: false, impacted: [] };
  const kind = r.kind as 'resource' | 'policy';
  const node = kind === 'resource' ? r.resources[0] : r.target;
  const callers = (key: string): (string | null)[] => {
    const agents = grantedTo(estate, key);
    return agents.length > 0 ? agents : [null];
  };
  const viaResource: Row[] = [];
  const direct: Row[] = [];
  for (const t of r.tools as { tool_key: string; via: string; resource: string | null; provenance: ReportedProvenance }[]) {
    const { tool } = toolOf(estate, t.tool_key);
    for (const agent of callers(t.tool_key)) {
      if (t.via === 'GOVERNED_BY') {
        direct.push({ via: 'tool', resource: null, agent, tool_key: t.tool_key, tool, mode: null, path: agent === null ? null : `(${agent}) -CAN_CALL-> (${tool}) [GOVERNED_BY ${node}]`, provenance: t.provenance });
        continue;
      }
      const hop = `(${tool}) -${t.via}-> (${t.resource})`;
      const path = agent === null ? hop : `(${agent}) -CAN_CALL-> ${hop}`;
      viaResource.push(kind === 'resource' ? { agent, tool_key: t.tool_key, tool, mode: t.via, path, provenance: t.provenance } : { via: 'resource', resource: t.resource, agent, tool_key: t.tool_key, tool, mode: t.via, path, provenance: t.provenance });
    }
  }
  const s = (v: unknown) => v as string;
  viaResource.sort((a, b) => cmp(s(a.resource ?? ''), s(b.resource ?? '')) || nullsLast(a.agent as string | null, b.agent as string | null) || cmp(s(a.tool), s(b.tool)) || cmp(s(a.tool_key), s(b.tool_key)) || cmp(s(a.mode), s(b.mode)));
  direct.sort((a, b) => cmp(s(a.tool), s(b.tool)) || nullsLast(a.agent as string | null, b.agent as string | null) || cmp(s(a.tool_key), s(b.tool_key)));
  return { kind, node, found: true, impacted: [...viaResource, ...direct] };
}

const dataAccess = (estate: Estate, key: string) =>
  (estate.accessByTool.get(key) ?? [])
    .map((a) => ({ mode: a.mode, resource: a.resource }))
    .sort((a, b) => cmp(a.resource, b.resource) || cmp(a.mode, b.mode))
    .filter((a, i, all) => i === 0 || a.mode !== all[i - 1]!.mode || a.resource !== all[i - 1]!.resource);
const byKey = (a: Row, b: Row) => cmp(a.tool_key as string, b.tool_key as string);

/** The rows of each audit in the peer's shape, from our audit's rows. */
export const PEER_AUDIT_ROWS: Readonly<Record<string, (rows: readonly Any[], estate: Estate) => Row[]>> = {
  'unmapped-tools': (rows, estate) => rows.map((r) => ({ tool_key: r.tool_key, ...toolOf(estate, r.tool_key), granted_to: [...r.granted_to].sort(cmp) })).sort(byKey),
  'orphan-policies': (rows, estate) =>
    rows
      .map((r) => {
        const bindings = estate.bindingsByPolicy.get(r.policy) ?? [];
        const governed = (kind: string) => [...new Set(bindings.filter((b) => b.target_kind === kind).map((b) => b.target_key))].sort(cmp);
        return { policy: r.policy, effect: r.effect, scope: r.scope ?? null, resources_governed: governed('resource'), tools_governed_directly: governed('tool') };
      })
      .sort((a, b) => cmp(a.policy, b.policy)),
  'unbacked-edges': (rows, estate) =>
    rows
      .map((r) => {
        const fromTool = r.edge === 'READS' || r.edge === 'WRITES' || (r.edge === 'GOVERNED_BY' && estate.tools.has(r.from) && !estate.resources.has(r.from));
        const src_label = r.edge === 'CAN_CALL' ? 'Agent' : fromTool ? 'Tool' : 'Resource';
        const dst_label = r.edge === 'CAN_CALL' ? 'Tool' : r.edge === 'GOVERNED_BY' ? 'Policy' : 'Resource';
        return { edge_type: r.edge, src_label, src: r.from, dst_label, dst: r.to, source: r.provenance.source ?? 'operator_asserted', confidence: r.provenance.confidence ?? 'high' };
      })
      .sort((a, b) => cmp(a.edge_type, b.edge_type) || cmp(a.src, b.src) || cmp(a.dst, b.dst)),
  // A tool only an expected exception names is no node in the peer's graph.
  drift: (rows, estate) =>
    rows
      .filter((r) => (r.references as { kind: string }[]).some((x) => x.kind !== 'EXPECTED_EXCEPTION'))
      .map((r) => ({ tool_key: r.tool_key, ...toolOf(estate, r.tool_key), granted_to: grantedTo(estate, r.tool_key), data_access: dataAccess(estate, r.tool_key) }))
      .sort(byKey),
  'destructive-unsafeguarded': (rows, estate) =>
    rows
      .map((r) => ({ tool_key: r.tool_key, ...toolOf(estate, r.tool_key), granted_to: grantedTo(estate, r.tool_key), data_access: dataAccess(estate, r.tool_key), annotation_claim: 'destructiveHint: true', annotation_provenance: r.claim.provenance }))
      .sort(byKey),
  'annotation-contradictions': (rows, estate) =>
    rows
      .map((r) => ({
        tool_key: r.tool_key,
        ...toolOf(estate, r.tool_key),
        resource: r.resource,
        annotation_claim: 'readOnlyHint: true',
        annotation_provenance: r.claim.provenance,
        authored_claim: `WRITES ${r.resource}`,
        authored_provenance: r.authored.provenance,
      }))
      .sort((a, b) => byKey(a, b) || cmp(a.resource, b.resource)),
};

/** audit_report: status, a summary of counts and the blocking finding names, every finding's rows. */
export function peerAuditReport(r: Any, estate: Estate): Row {
  const agents = [...estate.agents.keys()].sort(cmp);
  const unsafe: Row[] = agents.flatMap((agent) => unsafeRows(estate, agent).map((row) => ({ agent, ...row })));
  const audit = (name: string) => PEER_AUDIT_ROWS[name]!(r.audits[name].rows, estate);
  const findings: Record<string, Row[]> = {
    unsafe_violations: unsafe.filter((u) => u.classification === 'violation'),
    authorized_but_governed: unsafe.filter((u) => u.classification !== 'violation'),
    drifted_tools: audit('drift'),
    unmapped_tools: audit('unmapped-tools'),
    unbacked_edges: audit('unbacked-edges'),
    orphan_policies: audit('orphan-policies'),
    destructive_unsafeguarded: audit('destructive-unsafeguarded'),
    annotation_contradictions: audit('annotation-contradictions'),
  };
  const counts = Object.fromEntries(Object.entries(findings).map(([k, v]) => [k, v.length]));
  const blocking = ['unsafe_violations', 'drifted_tools'].filter((k) => counts[k]! > 0);
  const status = blocking.length > 0 ? 'fail' : Object.values(counts).some((n) => n > 0) ? 'warn' : 'pass';
  return { status, summary: { agents: agents.length, counts, blocking_findings: blocking, include_grants: r.audits['unbacked-edges'].include_grants === true }, findings };
}

/** One rank_features row in the peer's shape, with its deny rows classified whether granted or not. */
function peerFeature(f: Any, estate: Estate, agent: string): Row {
  const resolved = f.verdict !== 'TOOL_NOT_FOUND' && !f.ambiguous && typeof f.tool_key === 'string';
  const deny = resolved ? peerDenyRows(estate, f.tool_key, agent) : [];
  const violations = deny.filter((d) => d.classification === 'violation').length;
  const classification = deny.length === 0 ? null : violations > 0 ? 'violation' : 'authorized_but_governed';
  const hints = (f.annotations ?? {}) as Record<string, boolean | null | undefined>;
  const hint = (name: string) => (resolved ? (hints[name] ?? null) : null);
  const row: Row = {
    candidate: f.candidate,
    tool_key: resolved ? f.tool_key : null,
    // The peer's found: the reference matched some tool (an ambiguous name matched several).
    found: f.verdict !== 'TOOL_NOT_FOUND',
    ambiguous: f.ambiguous,
    permitted: resolved ? f.granted : null,
    verdict: f.verdict,
    classification,
    deny_paths: deny,
    is_drifted: resolved ? f.drifted : null,
    is_unmapped: resolved ? !f.mapped : null,
    has_unbacked_edges: resolved ? f.unbacked : null,
    read_only_hint: hint('readOnlyHint'),
    destructive_hint: hint('destructiveHint'),
    idempotent_hint: hint('idempotentHint'),
    open_world_hint: hint('openWorldHint'),
  };
  if (f.ambiguous) row.candidates = [...(f.candidates ?? [])].sort(cmp);
  // The same fixed table as ours, fed the peer's facts: its classification counts deny rows an
  // ungranted tool would cross too.
  row.risk_score = resolved ? riskScore({ ...assess(estate, agent, f.tool_key), violations, deny_evidence: deny as never }) : null;
  return row;
}

/** rank_features: {agent, agent_found, features}. */
export function peerRankFeatures(r: Any, estate: Estate): Row {
  if (!r.agent_found) return { agent: r.agent, agent_found: false, features: [] };
  return { agent: r.agent, agent_found: true, features: (r.rows as Any[]).map((f) => peerFeature(f, estate, r.agent)) };
}

/** eligible_tools: eligible as tool keys; rejected rows carry only the peer's fields. */
export function peerEligibleTools(r: Any): Row {
  const rejected = (r.rejected as Any[]).map((x) => {
    const row: Row = { candidate: x.candidate, tool_key: x.tool_key ?? null, reason: x.reason };
    if (x.reason === 'AMBIGUOUS_TOOL') row.candidates = [...(x.candidates ?? [])].sort(cmp);
    if (x.reason === 'DENY_VIOLATION' || x.reason === 'DENY_GOVERNED') row.paths = x.paths ?? [];
    return row;
  });
  return { agent: r.agent, agent_found: r.agent_found, profile: r.profile, eligible: r.agent_found ? (r.eligible as { tool_key: string }[]).map((e) => e.tool_key) : [], rejected: r.agent_found ? rejected : [] };
}

/** selection_explain: one profile's decision (strict unless asked), the risk score and our reasons. */
export function peerSelectionExplain(r: Any, estate: Estate): Row {
  const profile = (r.profile as string | undefined) ?? 'strict';
  if (!r.agent_found) return { agent: r.agent, tool: r.tool, tool_key: null, agent_found: false, profile, decision: 'rejected', reasons: r.reasons };
  const feature = peerFeature(rankFeatures(estate, r.agent, [r.tool]).rows[0], estate, r.agent);
  const decision = r.decisions?.[profile] === 'eligible' ? 'eligible' : 'rejected';
  return { agent: r.agent, tool: r.tool, tool_key: feature.tool_key, agent_found: true, found: feature.found, profile, decision, risk_score: feature.risk_score, reasons: r.reasons };
}
