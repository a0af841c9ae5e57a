/**
 * Every read-only query, declared once: its names on both surfaces (the CLI command and the MCP
 * tool), its typed arguments and how each surface takes them, the pure function that answers it,
 * the file under schemas/results/ its result validates against, and the CLI exit policy (the row's
 * shape: query-def.ts). The CLI commands (cli/query-command.ts) and the MCP tools
 * (serve/server.ts) are generated from this table, so a query cannot take different arguments or
 * answer differently on the two surfaces.
 *
 * The commands that write are not queries and stay plain CLI commands: `compile` writes the bundle
 * set, `review-candidates annotate` appends to a sidecar under a lock, `policy review-plan` writes
 * its plan (--out is required) and `policy propose --out` writes a patched manifest. A tool that
 * changes files has no place among read-only, idempotent MCP tools. A query's CLI command may still
 * write its answer to a file (--out) or render it (audit-report --format): the CLI's choice of
 * where the same answer goes, declared beside the command (cli/commands/), not a second query.
 *
 * Pure: no I/O; the estate, the files and the clock come from the surface (QueryEnv).
 */
import { checkAccessWithGateway, unsafeToolsWithGateway } from '../governance/gateway-decision.ts';
import { blastRadius } from '../governance/blast-radius.ts';
import { cmp, type Estate } from '../governance/estate.ts';
import type { Profile } from '../governance/types.ts';
import { eligibleTools } from '../selector/eligible-tools.ts';
import { rankFeatures } from '../selector/rank-features.ts';
import { selectionExplain } from '../selector/selection-explain.ts';
import { ADVISORY_HELP, AGENT, CANDIDATES, advisory, agentFound, profileArg, profileOf } from './common.ts';
import { auditReportQuery } from './audit-report-query.ts';
import { diffQuery } from './diff-query.ts';
import { controlPreflightQuery, preflightQuery } from './run-queries.ts';
import { reviewCandidatesQuery } from './review-query.ts';
import { visibleToolsQuery } from './visible-tools-query.ts';
import type { QueryDef } from './query-def.ts';

export type { ArgKind, ArgValue, CliOutcome, QueryArg, QueryArgs, QueryDef, QueryEnv, RunState } from './query-def.ts';

// The audits load on first use: a selector query should not pay for them.
const audits = {
  drift: async () => (await import('../audit/drift.ts')).drift,
  orphanPolicies: async () => (await import('../audit/orphan-policies.ts')).orphanPolicies,
  destructiveUnsafeguarded: async () => (await import('../audit/destructive-unsafeguarded.ts')).destructiveUnsafeguarded,
  annotationContradictions: async () => (await import('../audit/annotation-contradictions.ts')).annotationContradictions,
  unmappedTools: async () => (await import('../audit/unmapped-tools.ts')).unmappedTools,
  unbackedEdges: async () => (await import('../audit/unbacked-edges.ts')).unbackedEdges,
};

function audit(name: string, title: string, summary: string, fn: () => Promise<(estate: Estate) => unknown>): QueryDef {
  return { name, tool: name.replaceAll('-', '_'), title, summary, description: `${summary[0]!.toUpperCase()}${summary.slice(1)}.`, help: `${summary}. ${ADVISORY_HELP}`, args: [], result: name, run: async ({ estate }) => (await fn())(estate()), exit: advisory };
}

export const QUERIES: readonly QueryDef[] = [
  {
    name: 'check-access',
    tool: 'check_access',
    title: 'Check access',
    summary: 'is AGENT allowed TOOL? verdict with the DENY paths as evidence, and the gateway decision under the profile',
    description: 'Is AGENT allowed TOOL? The verdict (ALLOW, DENY, NOT_GRANTED, AGENT_NOT_FOUND, TOOL_NOT_FOUND, AMBIGUOUS_TOOL) with every DENY path as evidence, and the gateway decision under the profile.',
    help: `Prints the graph verdict (ALLOW, DENY with its paths, NOT_GRANTED, ...) and, as "gateway", what the
bundle \`toolgate compile --profile P\` writes answers at data.toolgate.authz.decision: {allow, reason}.
  --profile           the profile the gateway enforces (default: profile in toolgate.yaml, else strict, as compile)
  --fail-on-deny      exit 1 on a DENY verdict that not every row is authorized for (all_authorized: false),
                      the peer toolgraph's gate; 0 on ALLOW, NOT_GRANTED and an authorized-only DENY
  --fail-on-refusal   exit 1 when the gateway decision is not allow (NOT_GRANTED, DENY_VIOLATION, and under
                      strict DENY_GOVERNED, UNMAPPED, ...), so the gate and the bundle never disagree
Under either gate AGENT_NOT_FOUND, TOOL_NOT_FOUND and AMBIGUOUS_TOOL exit 2: a typo cannot pass a gate.
TOOL may be a bare name exposed by exactly one server: it is resolved here, but a gateway does not send
it that way. data.toolgate.authz.decision takes the qualified server::tool key ("gateway".input.tool
is the key the answer is for); a bare name there is NOT_GRANTED (see docs/gateways.md).`,
    args: [AGENT, { name: 'tool', kind: 'string', description: 'tool, qualified server::tool or a bare name exposed by exactly one server', positional: 'TOOL', required: 'both' }, profileArg('profile the gateway enforces (default strict)', 'profile')],
    cliFlags: ['fail-on-deny', 'fail-on-refusal'],
    result: 'check-access',
    run: ({ estate }, a) => checkAccessWithGateway(estate(), a.agent as string, a.tool as string, profileOf(a)),
    exit: (r: { verdict: string; agent: string; tool: string; all_authorized?: boolean; gateway: { allow: boolean } }, flags) => {
      if (!flags['fail-on-deny'] && !flags['fail-on-refusal']) return { print: true, exit: 'OK' };
      if (r.verdict === 'AGENT_NOT_FOUND' || r.verdict === 'TOOL_NOT_FOUND' || r.verdict === 'AMBIGUOUS_TOOL') return { print: true, exit: 'USAGE', stderr: `${r.verdict}: ${r.verdict === 'AGENT_NOT_FOUND' ? r.agent : r.tool}` };
      // --fail-on-deny is the peer's gate (its ADR-0003): an unexcused DENY only.
      const denied = flags['fail-on-deny'] === true && r.verdict === 'DENY' && r.all_authorized !== true;
      const refused = flags['fail-on-refusal'] === true && !r.gateway.allow;
      return { print: true, exit: denied || refused ? 'FAILED' : 'OK' };
    },
  },
  {
    name: 'unsafe-tools',
    tool: 'unsafe_callable_tools',
    title: 'Unsafe callable tools',
    summary: "the DENY policies AGENT's grants reach (violations; --all adds authorized ones), with the gateway decision",
    description: "The DENY policies AGENT's grants reach: violations, and with all=true also the rows an expected exception authorizes, each with the gateway decision for its tool.",
    help: `Each row carries "gateway": {allow, reason}, what the bundle \`toolgate compile --profile P\` writes
answers at data.toolgate.authz.decision for AGENT and the row's server::tool key.
  --profile             the profile the gateway enforces (default: profile in toolgate.yaml, else strict, as compile)
  --all                 include rows an expected exception authorizes (authorized_but_governed)
  --fail-on-violation   exit 1 when any violation row is printed
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.`,
    args: [AGENT, { name: 'all', kind: 'boolean', description: 'include authorized_but_governed rows' }, profileArg('profile the gateway enforces (default strict)', 'profile')],
    cliFlags: ['fail-on-violation'],
    result: 'unsafe-tools',
    run: ({ estate }, a) => unsafeToolsWithGateway(estate(), a.agent as string, (a.all as boolean | undefined) ?? false, profileOf(a)),
    exit: (r: { agent_found: boolean; agent: string; violations: number }, flags) => {
      if (!r.agent_found) return agentFound(r);
      return { print: true, exit: flags['fail-on-violation'] && r.violations > 0 ? 'FAILED' : 'OK' };
    },
  },
  {
    name: 'blast-radius',
    tool: 'blast_radius',
    title: 'Blast radius',
    summary: 'which tools and agents a change to a resource or policy affects',
    description: 'Which tools and agents a change to a resource or a policy affects (found: false for an unknown name).',
    help: 'An unknown name prints found: false (exit 0).',
    args: [{ name: 'target', kind: 'string', description: 'resource URI or policy id', positional: 'RESOURCE_OR_POLICY', required: 'both' }],
    result: 'blast-radius',
    run: ({ estate }, a) => blastRadius(estate(), a.target as string),
    exit: advisory,
  },
  {
    name: 'unmapped-tools',
    tool: 'unmapped_tools',
    title: 'Unmapped tools',
    summary: 'granted tools with no READS/WRITES edge yet',
    description: 'Granted tools (with all=true, every known tool) with no READS/WRITES edge yet.',
    help: `granted tools with no READS/WRITES edge yet.
  --all   every tool the catalog exposes or the manifest names, granted or not
${ADVISORY_HELP}`,
    args: [{ name: 'all', kind: 'boolean', description: 'every tool the catalog exposes or the manifest names, granted or not' }],
    result: 'unmapped-tools',
    run: async ({ estate }, a) => (await audits.unmappedTools())(estate(), (a.all as boolean | undefined) ?? false),
    exit: advisory,
  },
  audit('orphan-policies', 'Orphan policies', 'policies no agent reaches, with where the chain breaks', audits.orphanPolicies),
  {
    name: 'unbacked-edges',
    tool: 'unbacked_edges',
    title: 'Unbacked edges',
    summary: 'authored edges with no evidence (--include-grants adds CAN_CALL)',
    description: 'READS/WRITES and GOVERNED_BY edges that cite no evidence; include_grants=true adds CAN_CALL grants.',
    help: `READS/WRITES and GOVERNED_BY edges that cite no evidence; --include-grants adds CAN_CALL grants.
${ADVISORY_HELP}`,
    args: [{ name: 'include_grants', kind: 'boolean', description: 'also report CAN_CALL grants that cite no evidence' }],
    result: 'unbacked-edges',
    run: async ({ estate }, a) => (await audits.unbackedEdges())(estate(), (a.include_grants as boolean | undefined) ?? false),
    exit: advisory,
  },
  audit('drift', 'Drift', 'governance references to tools no server in the catalog exposes', audits.drift),
  audit('destructive-unsafeguarded', 'Destructive, unsafeguarded', 'tools claiming destructiveHint with no GOVERNED_BY path (direct or via a resource)', audits.destructiveUnsafeguarded),
  audit('annotation-contradictions', 'Annotation contradictions', 'authored WRITES edges on tools claiming readOnlyHint, citing both provenances', audits.annotationContradictions),
  auditReportQuery,
  {
    name: 'rank-features',
    tool: 'rank_features',
    title: 'Rank features',
    summary: 'per-candidate selector facts for AGENT (verdict, DENY paths, drift, mapping, claims, risk_score)',
    description: 'Per candidate, in input order: resolution, grant, verdict, DENY classification with evidence paths, drift, mapping, evidence coverage, annotation self-claims and the rule-based risk_score. agent_found: false for an unknown agent.',
    help: `One row per candidate, in input order. An unknown or ambiguous candidate is a row, not an error.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.`,
    args: [AGENT, CANDIDATES],
    result: 'rank-features',
    run: ({ estate }, a) => rankFeatures(estate(), a.agent as string, a.candidates as string[]),
    exit: agentFound,
  },
  {
    name: 'eligible-tools',
    tool: 'eligible_tools',
    title: 'Eligible tools',
    summary: 'filter candidate tools for AGENT under a profile, with reject reasons and evidence',
    description:
      "The selector's hard filter: the candidates (input order kept) split into eligible and rejected under a profile (strict by default), with the reason and, for a DENY reason, the evidence paths; agent_found: false for an unknown agent. Over MCP, without candidates the candidates are AGENT's granted tools in key order (the decisions `toolgate compile --profile` writes for the agent).",
    help: `Splits the candidates (input order kept) into eligible and rejected with the reason and, for a
DENY reason, the evidence paths. --profile defaults to strict. Advisory: exit 0 whatever is rejected.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.`,
    args: [AGENT, { ...CANDIDATES, required: 'cli' }, profileArg('selector profile (default strict)')],
    result: 'eligible-tools',
    run: (env, a) => {
      const agent = a.agent as string;
      const estate = env.estate();
      const candidates = (a.candidates as readonly string[] | undefined) ?? [...(estate.grantsByAgent.get(agent)?.keys() ?? [])].sort(cmp);
      return eligibleTools(estate, agent, candidates, profileOf(a));
    },
    exit: agentFound,
  },
  {
    name: 'selection-explain',
    tool: 'selection_explain',
    title: 'Selection explain',
    summary: 'why TOOL is or is not selectable for AGENT, in short human reasons',
    description: "Short human reasons for AGENT's selection decision on TOOL under every profile, and with profile that profile's decision as the last reason.",
    help: `The reasons behind AGENT's selection decision for TOOL under every profile (decisions), and with
--profile that profile's decision (profile, decision) as the last reason.
Unknown AGENT: AGENT_NOT_FOUND on stderr, nothing on stdout, exit 1.`,
    args: [AGENT, { name: 'tool', kind: 'string', description: 'tool, qualified server::tool or a bare name', positional: 'TOOL', required: 'both' }, profileArg('also explain the decision under this profile')],
    result: 'selection-explain',
    run: ({ estate }, a) => selectionExplain(estate(), a.agent as string, a.tool as string, a.profile as Profile | undefined),
    exit: agentFound,
  },
  preflightQuery,
  controlPreflightQuery,
  visibleToolsQuery,
  reviewCandidatesQuery,
  diffQuery,
];

export function queryNamed(name: string): QueryDef {
  const q = QUERIES.find((d) => d.name === name);
  if (!q) throw new Error(`no query ${name} in the table`);
  return q;
}
