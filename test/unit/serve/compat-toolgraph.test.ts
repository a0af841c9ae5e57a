/**
 * `toolgate serve --compat toolgraph` through a real MCP client over stdio, used as a consumer
 * written for the peer toolgraph uses it (memtomem-stm consults eligible_tools and rank_features):
 * the peer's tool and argument names, unwrapped results with graph_generation, rejected rows that
 * validate against the peer's contracts/preflight.schema.json row, the peer's path strings, and the
 * backend_unavailable envelope for an input that cannot be read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { runCli } from '../../helpers/cli.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const preflight = JSON.parse(readFileSync(join(REPO, 'test/vectors/toolgraph-preflight/preflight.schema.json'), 'utf8'));
ajv.addSchema(preflight, 'preflight');
const rejectedRow = ajv.getSchema('preflight#/$defs/rejectedRow')!;
const qualifiedKey = ajv.getSchema('preflight#/$defs/qualifiedToolKey')!;
const profileOk = ajv.getSchema('preflight#/properties/profile')!;
const generationOk = ajv.getSchema('preflight#/properties/graph_generation')!;
const compat = new Ajv2020({ strict: true, allErrors: true });
compat.addSchema(JSON.parse(readFileSync(join(REPO, 'schemas/results/compat-toolgraph.schema.json'), 'utf8')), 'compat');

// The peer README's tool list ("Tools: ..."): all thirteen, in its order; none of toolgate's others.
const PEER_TOOLS = ['check_access', 'unsafe_callable_tools', 'blast_radius', 'unmapped_tools', 'orphan_policies', 'unbacked_edges', 'drifted_tools', 'destructive_unsafeguarded', 'annotation_contradictions', 'audit_report', 'rank_features', 'eligible_tools', 'selection_explain'];
// What the peer stamps beside every MCP answer (ADR-0004; its server's with_graph_state: generation, instance id, the pair as graph_state, verified).
const STAMP = ['graph_generation', 'graph_instance_id', 'graph_state', 'graph_state_verified'];
const unstamped = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !STAMP.includes(k)));
// The peer's evidence path spelling (its query layer and selector tests): (tool) -KIND-> (node) ... -GOVERNED_BY-> (ID:DENY).
const PEER_PATH = /^\([^()]+\)( -[A-Z_]+-> \([^()]+\))* -GOVERNED_BY-> \([^:()]+:DENY\)$/;

const connect = (args: string[]) => connectServe(['--compat', 'toolgraph', ...args], 'peer-consumer');

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.structuredContent)).not.toBe(true);
  return r.structuredContent as Record<string, any>;
}

describe('toolgate serve --compat toolgraph (stdio) on the quickstart', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(['--example', 'quickstart']);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it("lists the peer's tools under its names, read-only, with its argument names", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(PEER_TOOLS);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    expect(Object.keys(byName.get('unsafe_callable_tools')!.inputSchema.properties!)).toEqual(['agent', 'include_authorized']);
    expect(Object.keys(byName.get('check_access')!.inputSchema.properties!)).toEqual(['agent', 'tool']);
    expect(Object.keys(byName.get('blast_radius')!.inputSchema.properties!)).toEqual(['node']);
    expect(Object.keys(byName.get('eligible_tools')!.inputSchema.properties!)).toEqual(['agent', 'candidates', 'profile']);
    expect(Object.keys(byName.get('rank_features')!.inputSchema.properties!)).toEqual(['agent', 'candidates']);
  });

  it('eligible_tools answers as the peer: unwrapped, eligible as tool keys, rejected rows of the preflight contract, graph_generation', async () => {
    const candidates = ['git::git_show', 'git::git_log', 'filesystem::read_file', 'no_such_tool'];
    for (const profile of ['strict', 'review', 'explore']) {
      const r = await call(client, 'eligible_tools', { agent: 'ci-bot', candidates, profile });
      expect(Object.keys(r).sort()).toEqual(['agent', 'agent_found', 'eligible', 'graph_generation', 'graph_instance_id', 'graph_state', 'graph_state_verified', 'profile', 'rejected']);
      expect(r.graph_state_verified).toBe(true);
      expect(r).toMatchObject({ agent: 'ci-bot', agent_found: true, profile });
      expect(profileOk(r.profile)).toBe(true);
      expect(generationOk(r.graph_generation), JSON.stringify(r.graph_generation)).toBe(true);
      for (const k of r.eligible) expect(qualifiedKey(k), k).toBe(true);
      for (const row of r.rejected) expect(rejectedRow(row), JSON.stringify(rejectedRow.errors)).toBe(true);
      for (const row of r.rejected) for (const p of row.paths ?? []) expect(p).toMatch(PEER_PATH);
      // The same split as toolgate's own CLI answer.
      const own = (await runCli(['eligible-tools', 'ci-bot', ...candidates, '--profile', profile, '--example', 'quickstart'], { cwd: REPO })).json();
      expect(r.eligible).toEqual(own.eligible.map((e: any) => e.tool_key));
      expect(r.rejected.map((x: any) => [x.candidate, x.reason])).toEqual(own.rejected.map((x: any) => [x.candidate, x.reason]));
    }
    const deny = (await call(client, 'eligible_tools', { agent: 'ci-bot', candidates: ['git::git_show'] })).rejected[0];
    expect(deny.paths).toEqual(['(git_show) -READS-> (file:///srv/app/.env) -GOVERNED_BY-> (secrets-deny:DENY)']);
  });

  it('rank_features answers unwrapped with graph_generation, rows under features, peer path strings; an unknown agent is agent_found: false', async () => {
    const r = await call(client, 'rank_features', { agent: 'ci-bot', candidates: ['git::git_show', 'git::git_log'] });
    expect(r).toMatchObject({ agent: 'ci-bot', agent_found: true });
    expect(generationOk(r.graph_generation)).toBe(true);
    expect(r.features.map((x: any) => [x.tool_key, x.verdict, x.classification, x.risk_score])).toEqual([
      ['git::git_show', 'DENY', 'violation', 1],
      ['git::git_log', 'ALLOW', null, 0],
    ]);
    expect(r.features[0].deny_paths[0].path).toMatch(PEER_PATH);
    expect(await call(client, 'rank_features', { agent: 'nobody', candidates: ['git::git_log'] })).toMatchObject({ agent_found: false, features: [] });
  });

  it("takes the peer's argument names and refuses ours as a normal MCP error", async () => {
    const all = await call(client, 'unsafe_callable_tools', { agent: 'ci-bot', include_authorized: true });
    expect(all).toMatchObject({ agent: 'ci-bot', agent_found: true });
    expect(await call(client, 'blast_radius', { node: 'secrets-deny' })).toMatchObject({ found: true });
    await expect(client.callTool({ name: 'unsafe_callable_tools', arguments: { agent: 'ci-bot', all: true } })).rejects.toThrow(/unknown argument "all"/);
    await expect(client.callTool({ name: 'drift', arguments: {} })).rejects.toThrow(/unknown tool "drift"/);
    expect(Object.keys(await call(client, 'drifted_tools', {})).sort()).toEqual(['count', ...STAMP, 'tools'].sort());
  });

  it("the audit tools and unsafe_callable_tools answer with the peer's field lists, rows under its keys", async () => {
    const lists: [string, Record<string, unknown>, string[]][] = [
      ['unsafe_callable_tools', { agent: 'ci-bot' }, ['agent', 'agent_found', 'count', 'tools']],
      ['unmapped_tools', {}, ['count', 'tools']],
      ['orphan_policies', {}, ['count', 'policies']],
      ['unbacked_edges', { include_grants: true }, ['count', 'edges']],
      ['drifted_tools', {}, ['count', 'tools']],
      ['destructive_unsafeguarded', {}, ['count', 'tools']],
      ['annotation_contradictions', {}, ['count', 'contradictions']],
    ];
    for (const [tool, args, fields] of lists) {
      const r = await call(client, tool, args);
      expect(Object.keys(r).sort(), tool).toEqual([...fields, ...STAMP].sort());
      const rows = r[fields.at(-1)!] as Record<string, unknown>[];
      expect(r.count, tool).toBe(rows.length);
      for (const row of rows) if (typeof row.tool_key === 'string') expect(`${row.server}::${row.tool}`, tool).toBe(row.tool_key);
    }
    const violations = await call(client, 'unsafe_callable_tools', { agent: 'ci-bot' });
    expect(violations.tools.map((t: any) => [t.tool, t.server, t.classification])).toEqual([['git_show', 'git', 'violation']]);
    expect(violations.tools[0].path).toMatch(PEER_PATH);
    // only_granted (default true) is the peer's inverse of our --all.
    const granted = await call(client, 'unmapped_tools', {});
    expect(await call(client, 'unmapped_tools', { only_granted: true })).toEqual(granted);
    const everyTool = await call(client, 'unmapped_tools', { only_granted: false });
    expect(everyTool.count).toBeGreaterThanOrEqual(granted.count);
    const own = await runCli(['unmapped-tools', '--all', '--example', 'quickstart'], { cwd: REPO });
    expect(everyTool.count).toBe(own.json().count);
  });

  it('the CLI with --compat toolgraph prints the same answer, without graph_generation', async () => {
    const candidates = ['git::git_show', 'git::git_log', 'filesystem::read_file'];
    const mcp = unstamped(await call(client, 'eligible_tools', { agent: 'ci-bot', candidates, profile: 'review' }));
    const c = await runCli(['eligible-tools', 'ci-bot', ...candidates, '--profile', 'review', '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO });
    expect(c.code, c.stderr).toBe(0);
    expect(c.json()).toEqual(mcp);
    const rank = unstamped(await call(client, 'rank_features', { agent: 'ci-bot', candidates }));
    expect((await runCli(['rank-features', 'ci-bot', ...candidates, '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO })).json()).toEqual(rank);
    expect((await runCli(['rank-features', 'ci-bot', 'git::git_log', '--compat', 'other', '--example', 'quickstart'], { cwd: REPO })).code).toBe(2);
  });

  it('audit_report answers as the peer: include_grants, status, summary and findings, unwrapped and stamped, peer path strings', async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'audit_report')!;
    expect(Object.keys(tool.inputSchema.properties!)).toEqual(['include_grants']);
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
    for (const include_grants of [false, true]) {
      const r = await call(client, 'audit_report', { include_grants });
      expect(Object.keys(r).sort()).toEqual(['findings', 'status', 'summary', ...STAMP].sort());
      expect(r.graph_state_verified).toBe(true);
      expect(generationOk(r.graph_generation)).toBe(true);
      expect(r.summary.include_grants).toBe(include_grants);
      // The quickstart's ci-bot and publisher reach DENY policies no exception covers: blocking, so the gate fails.
      expect(r.status).toBe('fail');
      expect(r.summary.blocking_findings).toEqual(['unsafe_violations']);
      expect(r.findings.unsafe_violations.map((f: any) => [f.agent, f.tool_key, f.classification])).toEqual([
        ['ci-bot', 'git::git_show', 'violation'],
        ['publisher', 'notes::publish_note', 'violation'],
      ]);
      expect(r.findings.authorized_but_governed.map((f: any) => [f.agent, f.tool_key])).toEqual([
        ['ops-agent', 'filesystem::read_file'],
        ['ops-agent', 'filesystem::write_file'],
        ['publisher', 'notes::read_note'],
      ]);
      for (const f of [...r.findings.unsafe_violations, ...r.findings.authorized_but_governed]) expect(f.path).toMatch(PEER_PATH);
      for (const [k, rows] of Object.entries(r.findings)) expect(r.summary.counts[k], k).toBe((rows as unknown[]).length);
      const c = await runCli(['audit-report', ...(include_grants ? ['--include-grants'] : []), '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO });
      expect(c.code, c.stderr).toBe(0);
      expect(c.json()).toEqual(unstamped(r));
    }
    const grants = await call(client, 'audit_report', { include_grants: true });
    const without = await call(client, 'audit_report', {});
    expect(grants.summary.counts.unbacked_edges).toBeGreaterThanOrEqual(without.summary.counts.unbacked_edges);
  });

  it('the generation is the same integer while the estate is unchanged', async () => {
    const a = await call(client, 'eligible_tools', { agent: 'ci-bot', candidates: ['git::git_log'] });
    const b = await call(client, 'rank_features', { agent: 'ci-bot', candidates: ['git::git_log'] });
    expect(b.graph_generation).toBe(a.graph_generation);
  });
});

// Each peer tool asked on each example, with arguments that reach its interesting rows.
const SWEEP: Record<string, { agent: string; tools: string[]; node: string }> = {
  quickstart: { agent: 'ci-bot', tools: ['git::git_show', 'git::git_log', 'filesystem::write_file', 'read_file', 'no_such_tool'], node: 'file:///srv/app/.env' },
  fleet: { agent: 'reader', tools: ['memtomem-stm::langchain__search_docs_by_lang_chain', 'filesystem::read_file', 'everything::echo', 'no_such_tool'], node: 'sandbox-secrets-deny' },
};

for (const [example, { agent, tools, node }] of Object.entries(SWEEP)) {
  describe(`toolgate serve --compat toolgraph (stdio) on the ${example}: every tool in the peer's shape`, () => {
    let client: Client;
    beforeAll(async () => {
      client = await connect(['--example', example]);
    }, 30_000);
    afterAll(async () => {
      await client?.close();
    });

    it("each of the thirteen answers validates against schemas/results/compat-toolgraph.schema.json, stamped over MCP and not on the CLI, and the two agree", async () => {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(PEER_TOOLS);
      const asks: [string, Record<string, unknown>, string[]][] = [
        ...tools.map((tool): [string, Record<string, unknown>, string[]] => ['check_access', { agent, tool }, ['check-access', agent, tool]]),
        ['unsafe_callable_tools', { agent, include_authorized: true }, ['unsafe-tools', agent, '--all']],
        ['blast_radius', { node }, ['blast-radius', node]],
        ['unmapped_tools', { only_granted: false }, ['unmapped-tools', '--all']],
        ['orphan_policies', {}, ['orphan-policies']],
        ['unbacked_edges', { include_grants: true }, ['unbacked-edges', '--include-grants']],
        ['drifted_tools', {}, ['drift']],
        ['destructive_unsafeguarded', {}, ['destructive-unsafeguarded']],
        ['annotation_contradictions', {}, ['annotation-contradictions']],
        ['audit_report', {}, ['audit-report']],
        ['rank_features', { agent, candidates: tools }, ['rank-features', agent, ...tools]],
        ['eligible_tools', { agent, candidates: tools, profile: 'review' }, ['eligible-tools', agent, ...tools, '--profile', 'review']],
        ['selection_explain', { agent, tool: tools[0] }, ['selection-explain', agent, tools[0]!]],
      ];
      for (const [tool, args, argv] of asks) {
        const r = await call(client, tool, args);
        const own = unstamped(r);
        const v = compat.getSchema(`compat#/$defs/${tool}`)!;
        expect(v(own), `${tool} ${JSON.stringify(args)}: ${compat.errorsText(v.errors)}`).toBe(true);
        const stamp = compat.getSchema('compat#/$defs/graph_stamp')!;
        expect(stamp(Object.fromEntries(STAMP.map((k) => [k, r[k]]))), compat.errorsText(stamp.errors)).toBe(true);
        const c = await runCli([...argv, '--compat', 'toolgraph', '--example', example], { cwd: REPO });
        expect(c.code, c.stderr).toBe(0);
        expect(c.json(), argv.join(' ')).toEqual(own);
      }
    });
  });
}

describe("--compat toolgraph on the CLI: the peer's artifacts and check_access", () => {
  const controlSchema = JSON.parse(readFileSync(join(REPO, 'test/vectors/toolgraph-control/control-preflight.schema.json'), 'utf8'));
  const validPreflight = ajv.getSchema('preflight')!;
  const validControl = ajv.compile(controlSchema);
  const env = { SOURCE_DATE_EPOCH: '1784592000' };

  it('preflight: the peer contract, its path strings and a +00:00 created_at', async () => {
    const c = await runCli(['preflight', 'ci-bot', 'git::git_show', 'git::git_log', 'no_such_tool', '--run-id', 'run-1', '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO, env });
    expect(c.code, c.stderr).toBe(0);
    const p = c.json();
    expect(validPreflight(p), JSON.stringify(validPreflight.errors)).toBe(true);
    expect(p.created_at).toBe('2026-07-21T00:00:00+00:00');
    expect(p.rejected[0].paths).toEqual(['(git_show) -READS-> (file:///srv/app/.env) -GOVERNED_BY-> (secrets-deny:DENY)']);
    const own = (await runCli(['preflight', 'ci-bot', 'git::git_show', 'git::git_log', 'no_such_tool', '--run-id', 'run-1', '--example', 'quickstart'], { cwd: REPO, env })).json();
    expect(own.created_at).toBe('2026-07-21T00:00:00Z');
    expect(p.eligible).toEqual(own.eligible);
    // --features: the peer's rank_features rows, in candidate order.
    const f = (await runCli(['preflight', 'ci-bot', 'git::git_show', 'no_such_tool', '--run-id', 'run-1', '--features', '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO, env })).json();
    expect(validPreflight(f), JSON.stringify(validPreflight.errors)).toBe(true);
    const feature = compat.getSchema('compat#/$defs/feature')!;
    for (const row of f.features) expect(feature(row), compat.errorsText(feature.errors)).toBe(true);
    expect(f.features.map((x: any) => [x.candidate, x.verdict, x.classification, x.risk_score])).toEqual([
      ['git::git_show', 'DENY', 'violation', 1],
      ['no_such_tool', 'TOOL_NOT_FOUND', null, null],
    ]);
  });

  it('control-preflight: the peer contract and a +00:00 created_at', async () => {
    for (const plan of ['control-plan-v1.json', 'control-plan-exposure-v1.json']) {
      const c = await runCli(['control-preflight', join(REPO, 'test/vectors/toolgraph-control', plan), '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO, env });
      expect(c.code, c.stderr).toBe(0);
      expect(validControl(c.json()), JSON.stringify(validControl.errors)).toBe(true);
      expect(c.json().created_at).toBe('2026-07-21T00:00:00+00:00');
    }
  });

  it('check-access names the bare tool, its server and permitted, as the peer answers', async () => {
    const cases: [string, string, boolean | undefined][] = [
      ['git::git_show', 'DENY', true],
      ['git::git_log', 'ALLOW', true],
      ['filesystem::write_file', 'NOT_GRANTED', false],
      ['no_such_tool', 'TOOL_NOT_FOUND', undefined],
    ];
    for (const [tool, verdict, permitted] of cases) {
      const r = (await runCli(['check-access', 'ci-bot', tool, '--compat', 'toolgraph', '--example', 'quickstart'], { cwd: REPO })).json();
      expect(r.verdict, tool).toBe(verdict);
      expect(r.permitted, tool).toBe(permitted);
      if (permitted !== undefined) expect(`${r.server}::${r.tool}`).toBe(tool);
    }
  });
});

describe('toolgate serve --compat toolgraph: an input that cannot be read', () => {
  it('is the typed backend_unavailable envelope, retryable, and nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-compat-'));
    for (const f of ['governance.yaml', 'catalog.json']) copyFileSync(join(REPO, 'examples/quickstart', f), join(dir, f));
    const client = await connect(['--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json')]);
    try {
      renameSync(join(dir, 'catalog.json'), join(dir, 'catalog.moved'));
      const r = await client.callTool({ name: 'eligible_tools', arguments: { agent: 'ci-bot', candidates: ['git::git_log'] } });
      expect(r.isError).toBe(true);
      expect(Object.keys(r.structuredContent as object).sort()).toEqual(['error_kind', 'message', 'retryable']);
      expect(r.structuredContent).toMatchObject({ error_kind: 'backend_unavailable', retryable: true });
      renameSync(join(dir, 'catalog.moved'), join(dir, 'catalog.json'));
      expect(await call(client, 'eligible_tools', { agent: 'ci-bot', candidates: ['git::git_log'] })).toMatchObject({ eligible: ['git::git_log'] });
    } finally {
      await client.close();
    }
  }, 30_000);

  it('an unknown dialect is bad usage', async () => {
    const r = await runCli(['serve', '--compat', 'other', '--example', 'quickstart'], { cwd: REPO });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--compat must be one of toolgraph');
  });
});
