/**
 * The peer toolgraph's own test cases, translated into toolgate estates
 * (test/vectors/toolgraph-compat/, README there names each peer test), asked of `toolgate serve
 * --compat toolgraph` through a real stdio MCP client and of the CLI with `--compat toolgraph`:
 * the answers carry the peer's fields, values and row order, and validate against
 * schemas/results/compat-toolgraph.schema.json.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { runCli } from '../../helpers/cli.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const VECTORS = join(REPO, 'test/vectors/toolgraph-compat');
const CSV = 'file:///data/customers.csv';
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addSchema(JSON.parse(readFileSync(join(REPO, 'schemas/results/compat-toolgraph.schema.json'), 'utf8')), 'compat');
const STAMP = ['graph_generation', 'graph_instance_id', 'graph_state', 'graph_state_verified'];
const split = (r: Record<string, unknown>): readonly [Record<string, any>, Record<string, any>] => [Object.fromEntries(Object.entries(r).filter(([k]) => !STAMP.includes(k))), Object.fromEntries(Object.entries(r).filter(([k]) => STAMP.includes(k)))];

/** The answer validates against its tool's definition (the CLI's, or over MCP with the stamp apart). */
function expectShape(tool: string, answer: Record<string, unknown>, stamped: boolean): void {
  const [own, stamp] = split(answer);
  const v = ajv.getSchema(`compat#/$defs/${tool}`)!;
  expect(v(own), `${tool}: ${ajv.errorsText(v.errors)}`).toBe(true);
  if (!stamped) return expect(Object.keys(stamp)).toEqual([]);
  const s = ajv.getSchema('compat#/$defs/graph_stamp')!;
  expect(s(stamp), `${tool} stamp: ${ajv.errorsText(s.errors)}`).toBe(true);
  expect(stamp.graph_state).toEqual({ instance_id: stamp.graph_instance_id, generation: stamp.graph_generation });
  expect(stamp.graph_state_verified).toBe(true);
}

const estate = (name: string) => ['--manifest', join(VECTORS, name, 'governance.yaml'), '--catalog', join(VECTORS, name, 'catalog.json')];

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.structuredContent)).not.toBe(true);
  const answer = r.structuredContent as Record<string, any>;
  expectShape(name, answer, true);
  return answer;
}

/** The CLI command's answer under --compat toolgraph (stdout JSON; exit 0 unless told). */
async function cli(fixture: string, argv: string[], tool: string, code = 0): Promise<Record<string, any>> {
  const r = await runCli([...argv, '--compat', 'toolgraph', ...estate(fixture)], { cwd: REPO });
  expect(r.code, r.stderr).toBe(code);
  const answer = r.json() as Record<string, any>;
  expectShape(tool, answer, false);
  return answer;
}

function served(fixture: string): { client: () => Client } {
  let client: Client;
  beforeAll(async () => {
    client = await connectServe(['--compat', 'toolgraph', ...estate(fixture)], 'peer-tests');
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });
  return { client: () => client };
}

const asserted = { source: 'operator_asserted', confidence: 'high', evidence: null };

describe('tests/test_server.py: every tool round-trips its documented shape over MCP', () => {
  const s = served('server');
  const readFileDeny = {
    via: 'resource',
    mode: 'READS',
    resource: CSV,
    policy: 'pii-deny',
    path: `(read_file) -READS-> (${CSV}) -GOVERNED_BY-> (pii-deny:DENY)`,
    provenance: asserted,
    classification: 'violation',
  };

  it('lists the thirteen tools, each with the output schema of its stamped answer (the client checks every answer against it)', async () => {
    const { tools } = await s.client().listTools();
    for (const t of tools) {
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object' });
      expect(JSON.stringify(t.outputSchema), t.name).toContain('graph_state_verified');
    }
    expect(new Set(tools.map((t) => t.name))).toEqual(
      new Set(['check_access', 'unsafe_callable_tools', 'blast_radius', 'unmapped_tools', 'orphan_policies', 'unbacked_edges', 'drifted_tools', 'destructive_unsafeguarded', 'annotation_contradictions', 'audit_report', 'rank_features', 'eligible_tools', 'selection_explain']),
    );
  });

  it('test_mcp_tool_matches_direct_query: check_access is the query answer plus the stamp', async () => {
    const got = await call(s.client(), 'check_access', { agent: 'support-bot', tool: 'read_file' });
    const [own] = split(got);
    expect(own).toEqual({ agent: 'support-bot', tool: 'read_file', tool_key: 'sample::read_file', server: 'sample', agent_found: true, found: true, permitted: true, verdict: 'DENY', deny_evidence: [readFileDeny], all_authorized: false });
    expect(await cli('server', ['check-access', 'support-bot', 'read_file'], 'check_access')).toEqual(own);
  });

  it('test_mcp_wrapper_returns_documented_shape: {count, <collection>} with count = its length', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['unsafe_callable_tools', { agent: 'support-bot' }, 'tools'],
      ['unmapped_tools', {}, 'tools'],
      ['orphan_policies', {}, 'policies'],
      ['unbacked_edges', {}, 'edges'],
      ['drifted_tools', {}, 'tools'],
      ['destructive_unsafeguarded', {}, 'tools'],
      ['annotation_contradictions', {}, 'contradictions'],
    ];
    for (const [tool, args, key] of cases) {
      const got = await call(s.client(), tool, args);
      expect(Array.isArray(got[key]), tool).toBe(true);
      expect(got.count, tool).toBe(got[key].length);
    }
    const unsafe = await call(s.client(), 'unsafe_callable_tools', { agent: 'support-bot' });
    expect(unsafe.tools).toEqual([{ tool_key: 'sample::read_file', tool: 'read_file', server: 'sample', via: 'resource', mode: 'READS', resource: CSV, policy: 'pii-deny', path: readFileDeny.path, provenance: asserted, classification: 'violation' }]);
    expect((await call(s.client(), 'unmapped_tools')).tools).toEqual([{ tool_key: 'sample::ping', tool: 'ping', server: 'sample', granted_to: ['support-bot'] }]);
  });

  it('test_mcp_selector_surface_mirrors_direct_query: rank_features, eligible_tools and selection_explain as the CLI answers them', async () => {
    const candidates = ['read_file', 'sample::ping', 'nope'];
    const ranked = await call(s.client(), 'rank_features', { agent: 'support-bot', candidates });
    expect(split(ranked)[0]).toEqual(await cli('server', ['rank-features', 'support-bot', ...candidates], 'rank_features'));
    expect(ranked.features.map((f: any) => [f.candidate, f.tool_key, f.verdict, f.risk_score])).toEqual([
      ['read_file', 'sample::read_file', 'DENY', 1],
      ['sample::ping', 'sample::ping', 'ALLOW', 0.6],
      ['nope', null, 'TOOL_NOT_FOUND', null],
    ]);
    expect(ranked.features[0].deny_paths).toEqual([readFileDeny]);
    const filtered = await call(s.client(), 'eligible_tools', { agent: 'support-bot', candidates, profile: 'review' });
    expect(split(filtered)[0]).toEqual(await cli('server', ['eligible-tools', 'support-bot', ...candidates, '--profile', 'review'], 'eligible_tools'));
    expect(filtered).toMatchObject({ agent: 'support-bot', agent_found: true, profile: 'review', eligible: ['sample::ping'] });
    expect(filtered.rejected).toEqual([
      { candidate: 'read_file', tool_key: 'sample::read_file', reason: 'DENY_VIOLATION', paths: [readFileDeny.path] },
      { candidate: 'nope', tool_key: null, reason: 'TOOL_NOT_FOUND' },
    ]);
    const explained = await call(s.client(), 'selection_explain', { agent: 'support-bot', tool: 'read_file' });
    expect(split(explained)[0]).toEqual(await cli('server', ['selection-explain', 'support-bot', 'read_file'], 'selection_explain'));
    expect(explained).toMatchObject({ agent: 'support-bot', tool: 'read_file', tool_key: 'sample::read_file', agent_found: true, found: true, profile: 'strict', decision: 'rejected', risk_score: 1 });
  });

  it('test_mcp_blast_radius_carries_found_flag: an unknown URI is found: false with no impacted rows', async () => {
    expect(split(await call(s.client(), 'blast_radius', { node: 'file:///does/not/exist' }))[0]).toEqual({ kind: 'resource', node: 'file:///does/not/exist', found: false, impacted: [] });
  });

  it('test_mcp_unbacked_edges_respects_include_grants: the wider scope is a superset, the default has no CAN_CALL', async () => {
    const narrow = await call(s.client(), 'unbacked_edges');
    const wide = await call(s.client(), 'unbacked_edges', { include_grants: true });
    expect(wide.count).toBeGreaterThanOrEqual(narrow.count);
    expect(narrow.edges.map((e: any) => e.edge_type)).not.toContain('CAN_CALL');
    expect(narrow.edges).toEqual([
      { edge_type: 'GOVERNED_BY', src_label: 'Resource', src: CSV, dst_label: 'Policy', dst: 'pii-deny', source: 'operator_asserted', confidence: 'high' },
      { edge_type: 'READS', src_label: 'Tool', src: 'sample::read_file', dst_label: 'Resource', dst: CSV, source: 'operator_asserted', confidence: 'high' },
    ]);
    expect(wide.edges.filter((e: any) => e.edge_type === 'CAN_CALL').map((e: any) => [e.src_label, e.src, e.dst_label, e.dst])).toEqual([
      ['Agent', 'support-bot', 'Tool', 'sample::ping'],
      ['Agent', 'support-bot', 'Tool', 'sample::read_file'],
    ]);
  });

  it('test_mcp_audit_report_mirrors_direct_query: status, summary and findings, as the CLI prints them', async () => {
    const got = await call(s.client(), 'audit_report');
    const [own] = split(got);
    expect(own).toEqual(await cli('server', ['audit-report'], 'audit_report'));
    expect(own.status).toBe('fail');
    expect(own.summary).toEqual({
      agents: 1,
      counts: { unsafe_violations: 1, authorized_but_governed: 0, drifted_tools: 0, unmapped_tools: 1, unbacked_edges: 2, orphan_policies: 0, destructive_unsafeguarded: 0, annotation_contradictions: 0 },
      blocking_findings: ['unsafe_violations'],
      include_grants: false,
    });
    expect(Object.keys(own.findings)).toEqual(['unsafe_violations', 'authorized_but_governed', 'drifted_tools', 'unmapped_tools', 'unbacked_edges', 'orphan_policies', 'destructive_unsafeguarded', 'annotation_contradictions']);
    expect(own.findings.unsafe_violations).toEqual([{ agent: 'support-bot', ...(await call(s.client(), 'unsafe_callable_tools', { agent: 'support-bot' })).tools[0] }]);
    expect((await call(s.client(), 'audit_report', { include_grants: true })).summary).toMatchObject({ include_grants: true, counts: { unbacked_edges: 4 } });
  });

  it('takes only the peer arguments: check_access has no profile, eligible_tools requires its candidates', async () => {
    const tools = new Map((await s.client().listTools()).tools.map((t) => [t.name, t]));
    expect(Object.keys(tools.get('check_access')!.inputSchema.properties!)).toEqual(['agent', 'tool']);
    expect(Object.keys(tools.get('unsafe_callable_tools')!.inputSchema.properties!)).toEqual(['agent', 'include_authorized']);
    expect(tools.get('eligible_tools')!.inputSchema.required).toEqual(['agent', 'candidates']);
    await expect(s.client().callTool({ name: 'check_access', arguments: { agent: 'support-bot', tool: 'read_file', profile: 'strict' } })).rejects.toThrow(/unknown argument "profile"/);
    await expect(s.client().callTool({ name: 'eligible_tools', arguments: { agent: 'support-bot' } })).rejects.toThrow(/missing argument "candidates"/);
  });
});

describe('tests/test_queries.py: the core governance queries on the hand-traced scenario', () => {
  const s = served('queries');

  it('check_access: DENY with its evidence, NOT_GRANTED, TOOL_NOT_FOUND', async () => {
    const deny = await call(s.client(), 'check_access', { agent: 'support-bot', tool: 'read_file' });
    expect(deny).toMatchObject({ verdict: 'DENY', permitted: true });
    expect(deny.deny_evidence[0]).toMatchObject({ resource: CSV, policy: 'pii-deny' });
    expect(deny.deny_evidence[0].path).toContain('GOVERNED_BY');
    expect(await call(s.client(), 'check_access', { agent: 'support-bot', tool: 'write_file' })).toMatchObject({ verdict: 'NOT_GRANTED', permitted: false });
    expect(await call(s.client(), 'check_access', { agent: 'planner', tool: 'nope' })).toMatchObject({ found: false, verdict: 'TOOL_NOT_FOUND' });
    expect(split(await call(s.client(), 'check_access', { agent: 'nobody', tool: 'read_file' }))[0]).toEqual({ agent: 'nobody', tool: 'read_file', agent_found: false, found: null, verdict: 'AGENT_NOT_FOUND' });
  });

  it('unsafe_callable_tools: both of planner\'s tools under pii-deny, one for support-bot', async () => {
    const planner = await call(s.client(), 'unsafe_callable_tools', { agent: 'planner' });
    expect(planner.tools.map((t: any) => t.tool).sort()).toEqual(['read_file', 'write_file']);
    expect(planner.tools.every((t: any) => t.policy === 'pii-deny')).toBe(true);
    expect((await call(s.client(), 'unsafe_callable_tools', { agent: 'support-bot' })).tools.map((t: any) => t.tool)).toEqual(['read_file']);
    expect(await cli('queries', ['unsafe-tools', 'planner'], 'unsafe_callable_tools')).toEqual(split(planner)[0]);
  });

  it('blast_radius of the resource: every (agent, tool, mode)', async () => {
    const r = await call(s.client(), 'blast_radius', { node: CSV });
    expect(r.kind).toBe('resource');
    expect(new Set(r.impacted.map((x: any) => `${x.agent} ${x.tool} ${x.mode}`))).toEqual(new Set(['planner read_file READS', 'planner write_file WRITES', 'support-bot read_file READS']));
    expect(r.impacted[0]).toEqual({ agent: 'planner', tool_key: 'sample::read_file', tool: 'read_file', mode: 'READS', path: `(planner) -CAN_CALL-> (read_file) -READS-> (${CSV})`, provenance: asserted });
  });

  it('blast_radius of the policy: every row on the resource, both agents', async () => {
    const r = await call(s.client(), 'blast_radius', { node: 'pii-deny' });
    expect(r.kind).toBe('policy');
    expect(r.impacted.every((x: any) => x.resource === CSV && x.via === 'resource')).toBe(true);
    expect(new Set(r.impacted.map((x: any) => x.agent))).toEqual(new Set(['planner', 'support-bot']));
    expect(await cli('queries', ['blast-radius', 'pii-deny'], 'blast_radius')).toEqual(split(r)[0]);
  });

  it('test_blast_radius_policy_omits_governed_resource_with_no_tool: found, nothing impacted', async () => {
    expect(await cli('policy-without-tools', ['blast-radius', 'pii-deny'], 'blast_radius')).toEqual({ kind: 'policy', node: 'pii-deny', found: true, impacted: [] });
  });
});

describe('tests/test_classification.py: violation or authorized_but_governed, on the CLI', () => {
  it('no exception: every reach is a violation, with no exception_reason key', async () => {
    const rows = (await cli('queries', ['unsafe-tools', 'planner'], 'unsafe_callable_tools')).tools;
    expect(rows.map((r: any) => [r.tool, r.classification])).toEqual([
      ['read_file', 'violation'],
      ['write_file', 'violation'],
    ]);
    for (const r of rows) expect(r).not.toHaveProperty('exception_reason');
  });

  it('a matching exception, bound to the resource or to any resource under the policy, marks the row authorized with its reason', async () => {
    const byTool = Object.fromEntries((await cli('classification', ['unsafe-tools', 'planner', '--all'], 'unsafe_callable_tools')).tools.map((r: any) => [r.tool, r]));
    expect(byTool.read_file).toMatchObject({ classification: 'authorized_but_governed' });
    expect(byTool.read_file.exception_reason.startsWith('planner is the PII')).toBe(true);
    expect(byTool.write_file).toMatchObject({ classification: 'authorized_but_governed', exception_reason: 'planner is on-call; emergency writes are authorized' });
    // Violations only by default: none left for planner.
    expect(await cli('classification', ['unsafe-tools', 'planner'], 'unsafe_callable_tools')).toEqual({ agent: 'planner', agent_found: true, count: 0, tools: [] });
  });

  it("check_access: the evidence carries the agent's classification, and all_authorized says whether every row is excepted", async () => {
    const planner = await cli('classification', ['check-access', 'planner', 'read_file'], 'check_access');
    expect(planner).toMatchObject({ verdict: 'DENY', all_authorized: true });
    expect(planner.deny_evidence).toEqual([expect.objectContaining({ classification: 'authorized_but_governed', exception_reason: 'planner is the PII data owner; reads are by design' })]);
    const bot = await cli('classification', ['check-access', 'support-bot', 'read_file'], 'check_access');
    expect(bot).toMatchObject({ verdict: 'DENY', all_authorized: false });
    expect(bot.deny_evidence.map((e: any) => e.classification)).toEqual(['violation']);
    expect(bot.deny_evidence[0]).not.toHaveProperty('exception_reason');
  });
});

describe('tests/test_provenance.py: provenance on every row, on the CLI', () => {
  const cited = { source: 'operator_asserted', confidence: 'high', evidence: 'manifest.yaml#L42' };

  it('a binding that cites evidence adds policy_provenance to the deny row; a bare policy id does not', async () => {
    const [bound] = (await cli('provenance-binding', ['check-access', 'planner', 'read_file'], 'check_access')).deny_evidence;
    expect(bound.provenance.evidence).toBe('manifest.yaml#L42');
    expect(bound.policy_provenance.evidence).toBe('ops/policy/pii.md#binding');
    const [bare] = (await cli('provenance-bare', ['check-access', 'planner', 'read_file'], 'check_access')).deny_evidence;
    expect(bare).not.toHaveProperty('policy_provenance');
  });

  it('check_access, unsafe_callable_tools and blast_radius rows carry the data access provenance', async () => {
    const check = await cli('provenance-bare', ['check-access', 'planner', 'read_file'], 'check_access');
    expect(check.verdict).toBe('DENY');
    expect(check.deny_evidence.map((e: any) => e.provenance)).toEqual([cited]);
    expect((await cli('provenance-bare', ['unsafe-tools', 'planner'], 'unsafe_callable_tools')).tools.map((r: any) => r.provenance.evidence)).toEqual(['manifest.yaml#L42']);
    const blast = await cli('provenance-bare', ['blast-radius', CSV], 'blast_radius');
    expect(blast.impacted.length).toBeGreaterThan(0);
    for (const row of blast.impacted) expect(row.provenance.evidence).toBe('manifest.yaml#L42');
  });
});

describe('tests/test_completion_fixes.py: the found flags and unknown names, on the CLI', () => {
  it('check_access sets agent_found on every branch; blast_radius is found: false for an unknown URI or policy id', async () => {
    for (const [agent, tool, verdict, found] of [['planner', 'read_file', 'DENY', true], ['support-bot', 'write_file', 'NOT_GRANTED', true], ['planner', 'no_such_tool', 'TOOL_NOT_FOUND', true], ['planer', 'read_file', 'AGENT_NOT_FOUND', false]] as const) {
      expect(await cli('queries', ['check-access', agent, tool], 'check_access'), `${agent} ${tool}`).toMatchObject({ verdict, agent_found: found });
    }
    expect(await cli('queries', ['blast-radius', 'file:///does/not/exist'], 'blast_radius')).toEqual({ kind: 'resource', node: 'file:///does/not/exist', found: false, impacted: [] });
    expect(await cli('queries', ['blast-radius', 'no-such-policy'], 'blast_radius')).toEqual({ kind: 'policy', node: 'no-such-policy', found: false, impacted: [] });
  });

  it('unsafe-tools for an unknown agent: AGENT_NOT_FOUND on stderr, exit 1', async () => {
    const r = await runCli(['unsafe-tools', 'planer', '--compat', 'toolgraph', ...estate('queries')], { cwd: REPO });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
  });

  it('test_blast_radius_falls_back_to_policy_for_uri_shaped_policy_id: a URI-shaped id no resource has is the policy', async () => {
    const r = await cli('uri-shaped-policy', ['blast-radius', 'urn:secret'], 'blast_radius');
    expect(r).toMatchObject({ kind: 'policy', found: true });
    expect(r.impacted.some((x: any) => x.via === 'tool')).toBe(true);
  });
});

describe('tests/test_selector.py: the selector surface and its regression criteria', () => {
  const s = served('selector');
  const CANDIDATES = ['alpha::git_status', 'read_file', 'alpha::read_file', 'alpha::export_data', 'alpha::ghost_tool', 'alpha::free_tool', 'alpha::unbacked', 'alpha::loose_tool', 'alpha::no_such_tool'];
  const reasons = (r: any) => Object.fromEntries(r.rejected.map((x: any) => [x.candidate, x.reason]));

  it('rank_features keeps input order, scores by the fixed table and carries the facts', async () => {
    const got = await call(s.client(), 'rank_features', { agent: 'planner', candidates: CANDIDATES });
    expect(got.agent_found).toBe(true);
    expect(got.features.map((f: any) => f.candidate)).toEqual(CANDIDATES);
    const by = Object.fromEntries(got.features.map((f: any) => [f.candidate, f]));
    expect(Object.fromEntries(Object.entries(by).map(([k, f]: [string, any]) => [k, f.risk_score]))).toMatchObject({
      'alpha::read_file': 1,
      'alpha::ghost_tool': 0.8,
      'alpha::free_tool': 0.6,
      'alpha::unbacked': 0.4,
      'alpha::export_data': 0.2,
      'alpha::git_status': 0,
      read_file: null,
      'alpha::no_such_tool': null,
    });
    expect(by['alpha::read_file']).toMatchObject({ verdict: 'DENY', classification: 'violation', destructive_hint: null });
    expect(by['alpha::read_file'].deny_paths.some((d: any) => d.path.includes('pii-deny'))).toBe(true);
    expect(by['alpha::export_data']).toMatchObject({ classification: 'authorized_but_governed', destructive_hint: true });
    expect(by.read_file).toMatchObject({ found: true, ambiguous: true, tool_key: null, candidates: ['alpha::read_file', 'beta::read_file'] });
    expect(by['alpha::no_such_tool']).toMatchObject({ found: false, ambiguous: false, permitted: null, verdict: 'TOOL_NOT_FOUND', deny_paths: [] });
  });

  it('rank_features for an unknown agent aborts selection: no features', async () => {
    expect(split(await call(s.client(), 'rank_features', { agent: 'nobody', candidates: CANDIDATES }))[0]).toEqual({ agent: 'nobody', agent_found: false, features: [] });
  });

  it('the profile matrix: strict passes only a clean ALLOW, review exceptions and unmapped, explore all but resolution, grant and drift', async () => {
    const strict = await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: CANDIDATES, profile: 'strict' });
    expect(strict.eligible).toEqual(['alpha::git_status', 'alpha::unbacked']);
    expect(reasons(strict)).toEqual({
      read_file: 'AMBIGUOUS_TOOL',
      'alpha::read_file': 'DENY_VIOLATION',
      'alpha::export_data': 'DENY_GOVERNED',
      'alpha::ghost_tool': 'DRIFTED',
      'alpha::free_tool': 'UNMAPPED',
      'alpha::loose_tool': 'NOT_GRANTED',
      'alpha::no_such_tool': 'TOOL_NOT_FOUND',
    });
    const review = await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: CANDIDATES, profile: 'review' });
    expect(review.eligible).toEqual(['alpha::git_status', 'alpha::export_data', 'alpha::free_tool', 'alpha::unbacked']);
    expect(reasons(review)['alpha::read_file']).toBe('DENY_VIOLATION');
    const explore = await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: CANDIDATES, profile: 'explore' });
    expect(explore.eligible).toEqual(['alpha::git_status', 'alpha::read_file', 'alpha::export_data', 'alpha::free_tool', 'alpha::unbacked']);
    expect(new Set(Object.keys(reasons(explore)))).toEqual(new Set(['read_file', 'alpha::ghost_tool', 'alpha::loose_tool', 'alpha::no_such_tool']));
  });

  it('an ambiguous bare name and a drifted tool are rejected under every profile', async () => {
    for (const profile of ['strict', 'review', 'explore']) {
      const amb = await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: ['read_file'], profile });
      expect(amb.eligible).toEqual([]);
      expect(amb.rejected).toEqual([{ candidate: 'read_file', tool_key: null, reason: 'AMBIGUOUS_TOOL', candidates: ['alpha::read_file', 'beta::read_file'] }]);
      expect((await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: ['alpha::ghost_tool'], profile })).rejected[0].reason).toBe('DRIFTED');
    }
  });

  it('test_deny_rejections_carry_policy_evidence_paths: the exact path string', async () => {
    const [row] = (await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: ['alpha::read_file'], profile: 'strict' })).rejected;
    expect(row.paths).toEqual(['(read_file) -READS-> (file:///secrets.env) -GOVERNED_BY-> (pii-deny:DENY)']);
  });

  it('unsafe_callable_tools: violations by default; include_authorized adds the excepted row with its reason and the binding provenance it cites', async () => {
    const ev = { source: 'operator_asserted', confidence: 'high', evidence: 'runbook.md:1' };
    const violation = { tool_key: 'alpha::read_file', tool: 'read_file', server: 'alpha', via: 'resource', mode: 'READS', resource: 'file:///secrets.env', policy: 'pii-deny', path: '(read_file) -READS-> (file:///secrets.env) -GOVERNED_BY-> (pii-deny:DENY)', provenance: ev, policy_provenance: ev, classification: 'violation' };
    const excepted = { tool_key: 'alpha::export_data', tool: 'export_data', server: 'alpha', via: 'resource', mode: 'WRITES', resource: 'export:///sink', policy: 'export-deny', path: '(export_data) -WRITES-> (export:///sink) -GOVERNED_BY-> (export-deny:DENY)', provenance: ev, policy_provenance: ev, classification: 'authorized_but_governed', exception_reason: 'quarterly export is by design' };
    expect(split(await call(s.client(), 'unsafe_callable_tools', { agent: 'planner' }))[0]).toEqual({ agent: 'planner', agent_found: true, count: 1, tools: [violation] });
    // Ordered by the tool's name: export_data before read_file.
    expect((await call(s.client(), 'unsafe_callable_tools', { agent: 'planner', include_authorized: true })).tools).toEqual([excepted, violation]);
    expect(split(await call(s.client(), 'unsafe_callable_tools', { agent: 'nobody' }))[0]).toEqual({ agent: 'nobody', agent_found: false, count: 0, tools: [] });
    const check = await call(s.client(), 'check_access', { agent: 'planner', tool: 'alpha::export_data' });
    expect(check).toMatchObject({ verdict: 'DENY', permitted: true, all_authorized: true });
  });

  it('selection_explain: decision and risk score under the profile (strict by default)', async () => {
    expect(await call(s.client(), 'selection_explain', { agent: 'planner', tool: 'alpha::git_status' })).toMatchObject({ profile: 'strict', decision: 'eligible', risk_score: 0 });
    const rejected = await call(s.client(), 'selection_explain', { agent: 'planner', tool: 'alpha::read_file' });
    expect(rejected.decision).toBe('rejected');
    expect(rejected.reasons.some((r: string) => r.includes('pii-deny'))).toBe(true);
    const excepted = await call(s.client(), 'selection_explain', { agent: 'planner', tool: 'alpha::export_data', profile: 'review' });
    expect(excepted).toMatchObject({ profile: 'review', decision: 'eligible' });
    expect(excepted.reasons.some((r: string) => r.includes('quarterly export is by design'))).toBe(true);
    const unknown = split(await call(s.client(), 'selection_explain', { agent: 'nobody', tool: 'alpha::git_status' }))[0];
    expect(unknown).toMatchObject({ agent: 'nobody', tool: 'alpha::git_status', tool_key: null, agent_found: false, profile: 'strict', decision: 'rejected' });
    expect(unknown).not.toHaveProperty('risk_score');
    expect(await call(s.client(), 'selection_explain', { agent: 'planner', tool: 'nope' })).toMatchObject({ tool_key: null, found: false, decision: 'rejected', risk_score: null });
  });

  it('the CLI: eligible-tools prints the MCP answer; an unknown agent leaves stdout empty and exits 1; an unknown profile exits 2', async () => {
    const mcp = await call(s.client(), 'eligible_tools', { agent: 'planner', candidates: CANDIDATES, profile: 'review' });
    expect(await cli('selector', ['eligible-tools', 'planner', ...CANDIDATES, '--profile', 'review'], 'eligible_tools')).toEqual(split(mcp)[0]);
    for (const cmd of [['rank-features', 'nobody', 'alpha::git_status'], ['eligible-tools', 'nobody', 'alpha::git_status'], ['selection-explain', 'nobody', 'alpha::git_status']]) {
      const r = await runCli([...cmd, '--compat', 'toolgraph', ...estate('selector')], { cwd: REPO });
      expect(r.code, cmd.join(' ')).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('AGENT_NOT_FOUND');
    }
    expect((await runCli(['eligible-tools', 'planner', 'alpha::git_status', '--profile', 'prod', '--compat', 'toolgraph', ...estate('selector')], { cwd: REPO })).code).toBe(2);
  });
});

describe('tests/test_negative_truth.py and tests/test_annotations.py: the audits, on the CLI', () => {
  it('unmapped_tools: the granted tool with no data access; only_granted=false adds every crawled tool', async () => {
    expect((await cli('unmapped', ['unmapped-tools'], 'unmapped_tools')).tools).toEqual([{ tool_key: 'sample::write_file', tool: 'write_file', server: 'sample', granted_to: ['planner'] }]);
    expect((await cli('no-governance', ['unmapped-tools', '--all'], 'unmapped_tools')).tools.map((t: any) => t.tool_key)).toEqual(['sample::ping', 'sample::read_file', 'sample::write_file']);
    expect(await cli('no-governance', ['unmapped-tools'], 'unmapped_tools')).toEqual({ count: 0, tools: [] });
  });

  it('orphan_policies: only the policy no agent reaches', async () => {
    expect((await cli('orphan', ['orphan-policies'], 'orphan_policies')).policies).toEqual([{ policy: 'orphan', effect: 'DENY', scope: 'nothing', resources_governed: [], tools_governed_directly: [] }]);
  });

  it('unbacked_edges: CAN_CALL only with include_grants, the evidenced grant never; a binding that cites evidence is backed', async () => {
    const sig = (r: any) => r.edges.map((e: any) => `${e.edge_type} ${e.src} ${e.dst}`);
    const narrow = sig(await cli('unbacked', ['unbacked-edges'], 'unbacked_edges'));
    expect(narrow).toContain(`READS sample::read_file ${CSV}`);
    expect(narrow).toContain(`GOVERNED_BY ${CSV} pii`);
    expect(narrow.filter((e: string) => e.startsWith('CAN_CALL'))).toEqual([]);
    const wide = sig(await cli('unbacked', ['unbacked-edges', '--include-grants'], 'unbacked_edges'));
    expect(wide).toContain('CAN_CALL planner sample::read_file');
    expect(wide).not.toContain('CAN_CALL planner sample::write_file');
    const binding = await cli('unbacked-binding', ['unbacked-edges'], 'unbacked_edges');
    expect(binding.edges.filter((e: any) => e.edge_type === 'GOVERNED_BY').map((e: any) => [e.src, e.dst])).toEqual([[CSV, 'other']]);
  });

  it('drifted_tools: the governed tool the re-crawl dropped, with its callers and data access (empty, not placeholders)', async () => {
    expect((await cli('drift', ['drift'], 'drifted_tools')).tools).toEqual([{ tool_key: 'sample::write_file', tool: 'write_file', server: 'sample', granted_to: ['planner'], data_access: [{ mode: 'WRITES', resource: CSV }] }]);
    expect((await cli('drift-grant-only', ['drift'], 'drifted_tools')).tools).toEqual([{ tool_key: 'sample::write_file', tool: 'write_file', server: 'sample', granted_to: ['planner'], data_access: [] }]);
  });

  it('destructive_unsafeguarded: the hinted, ungoverned tool with its self-claim provenance; a policy on its resource or on it clears it', async () => {
    const [row, ...more] = (await cli('destructive', ['destructive-unsafeguarded'], 'destructive_unsafeguarded')).tools;
    expect(more).toEqual([]);
    expect(row).toMatchObject({ tool_key: 'sample::write_file', granted_to: ['support-bot'], data_access: [], annotation_claim: 'destructiveHint: true', annotation_provenance: { source: 'crawled', confidence: 'medium' } });
    expect(typeof row.annotation_provenance.evidence).toBe('string');
    expect((await cli('destructive-via-resource', ['destructive-unsafeguarded'], 'destructive_unsafeguarded')).tools).toEqual([]);
    expect((await cli('destructive-direct', ['destructive-unsafeguarded'], 'destructive_unsafeguarded')).tools).toEqual([]);
  });

  it('a policy bound to the tool itself: deny rows via the tool, unsafe rows with null mode and resource, blast_radius rows naming the caller', async () => {
    const direct = { via: 'tool', policy: 'pii-deny', path: '(write_file) -GOVERNED_BY-> (pii-deny:DENY)', provenance: asserted, classification: 'violation' };
    expect((await cli('destructive-direct', ['check-access', 'support-bot', 'sample::write_file'], 'check_access')).deny_evidence).toEqual([direct]);
    expect((await cli('destructive-direct', ['unsafe-tools', 'support-bot'], 'unsafe_callable_tools')).tools).toEqual([{ tool_key: 'sample::write_file', tool: 'write_file', server: 'sample', via: 'tool', mode: null, resource: null, policy: 'pii-deny', path: direct.path, provenance: asserted, classification: 'violation' }]);
    expect(await cli('destructive-direct', ['blast-radius', 'pii-deny'], 'blast_radius')).toEqual({
      kind: 'policy',
      node: 'pii-deny',
      found: true,
      impacted: [{ via: 'tool', resource: null, agent: 'support-bot', tool_key: 'sample::write_file', tool: 'write_file', mode: null, path: '(support-bot) -CAN_CALL-> (write_file) [GOVERNED_BY pii-deny]', provenance: asserted }],
    });
    // Not scheme-prefixed: the peer looks for a policy only.
    expect(await cli('destructive-direct', ['blast-radius', 'no-such-policy'], 'blast_radius')).toEqual({ kind: 'policy', node: 'no-such-policy', found: false, impacted: [] });
  });

  it('annotation_contradictions: both provenances cited', async () => {
    const [row, ...more] = (await cli('contradiction', ['annotation-contradictions'], 'annotation_contradictions')).contradictions;
    expect(more).toEqual([]);
    expect(row).toMatchObject({ tool_key: 'sample::read_file', tool: 'read_file', server: 'sample', resource: CSV, annotation_claim: 'readOnlyHint: true', authored_claim: `WRITES ${CSV}` });
    expect(row.annotation_provenance.confidence).toBe('medium');
    expect(row.authored_provenance).toEqual({ source: 'operator_asserted', confidence: 'high', evidence: 'audit/2026-06-runbook.md:12' });
  });
});
