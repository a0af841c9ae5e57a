/**
 * The peer's `toolgraph.preflight` v1 (contracts/preflight.schema.json and its fixtures), produced
 * by `toolgate preflight` for the estate each fixture describes, and read back as `--state`.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { scratch, sha256, validates, vectorJson, vectorPath } from './peer-helpers.ts';

const SCHEMA = 'toolgraph-preflight/preflight.schema.json';
const fixture = (name: string) => vectorJson(`toolgraph-preflight/${name}.json`);

/**
 * The graph the fixtures describe: codex may call mem_search (clean) and mem_add (writes chunks,
 * under a DENY), shared_read is exposed by two servers, legacy::old_tool is granted but no longer
 * exposed. The policy's id is `policy:deny-agent-writes`, so the peer's path reads as the fixture's.
 */
const estate = () =>
  scratch({
    'catalog.json': {
      servers: [
        { name: 'memtomem', tools: [{ name: 'mem_search' }, { name: 'mem_add' }] },
        { name: 'syncmill', tools: [{ name: 'shared_read' }] },
        { name: 'mirror', tools: [{ name: 'shared_read' }] },
      ],
    },
    'governance.yaml': `instance_id: test-instance
agents: [codex]
policies:
  - {id: "policy:deny-agent-writes", effect: DENY}
grants:
  - {agent: codex, tool: "memtomem::mem_search"}
  - {agent: codex, tool: "memtomem::mem_add"}
  - {agent: codex, tool: "syncmill::shared_read"}
  - {agent: codex, tool: "legacy::old_tool"}
data_access:
  - {tool: "memtomem::mem_search", resource: "memtomem://search-index", mode: READS}
  - {tool: "memtomem::mem_add", resource: "memtomem://chunks", mode: WRITES}
  - {tool: "syncmill::shared_read", resource: "syncmill://shared", mode: READS}
governed_by:
  "memtomem://chunks": ["policy:deny-agent-writes"]
`,
    'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
  });

const RUN = fixture('preflight-warn').run_id as string;
const preflight = (dir: string, ...argv: string[]) => runCli(['preflight', 'codex', ...argv, '--run-id', RUN, '--profile', 'review'], { cwd: dir });

/** Every field of the fixture in ours: created_at as the same instant, graph_generation as an integer (the fixture's is a later graph's), ambiguous candidates as a set. */
function sameAsFixture(ours: any, theirs: any) {
  for (const [k, v] of Object.entries(theirs)) {
    if (k === 'created_at') expect(Number.isNaN(Date.parse(ours[k]))).toBe(false);
    else if (k === 'graph_generation') expect(Number.isInteger(ours[k])).toBe(true);
    else if (k === 'rejected') {
      const norm = (rows: any[]) => rows.map((r) => (r.candidates ? { ...r, candidates: [...r.candidates].sort() } : r));
      expect(norm(ours[k])).toEqual(norm(v as any[]));
    } else expect([k, ours[k]]).toEqual([k, v]);
  }
}

describe('the peer preflight fixtures', () => {
  it.each(['preflight-allow', 'preflight-warn', 'preflight-drift', 'preflight-unknown-tool', 'preflight-unresolved-identity', 'preflight-additive'])('%s validates', (name) => {
    expect(validates(SCHEMA, fixture(name))).toBe(true);
  });
  it('preflight-v2 does not (an unknown major version)', () => {
    expect(validates(SCHEMA, fixture('preflight-v2'))).not.toBe(true);
  });
});

describe('toolgate preflight produces each fixture for its graph', () => {
  const dir = estate();

  it('warn: a DENY violation with its path, an ambiguous bare name with its candidates, a drifted tool (--compat toolgraph)', async () => {
    const r = await preflight(dir, 'memtomem::mem_search', 'memtomem::mem_add', 'shared_read', 'legacy::old_tool', '--compat', 'toolgraph');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('DRIFT'); // the notice, on stderr only
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    sameAsFixture(v, fixture('preflight-warn'));
  });

  it('warn in toolgate spelling: the same rows, paths written as the governance graph path', async () => {
    const v = (await preflight(dir, 'memtomem::mem_search', 'memtomem::mem_add', 'shared_read', 'legacy::old_tool')).json();
    expect(validates(SCHEMA, v)).toBe(true);
    expect(v.rejected.map((r: any) => [r.candidate, r.reason])).toEqual(fixture('preflight-warn').rejected.map((r: any) => [r.candidate, r.reason]));
    expect(v.rejected[0].paths).toEqual(['(codex)-[:CAN_CALL]->(memtomem::mem_add)-[:WRITES]->(memtomem://chunks)-[:GOVERNED_BY]->(policy:deny-agent-writes)']);
  });

  it.each([
    ['preflight-drift', ['legacy::old_tool']],
    ['preflight-unknown-tool', ['legacy::missing']],
  ])('%s', async (name, candidates) => {
    const v = (await preflight(dir, ...candidates, '--compat', 'toolgraph')).json();
    expect(validates(SCHEMA, v)).toBe(true);
    sameAsFixture(v, fixture(name));
  });

  it('unresolved identity: an unknown agent lists nothing, exit 0, AGENT_NOT_FOUND on stderr (never a false allow)', async () => {
    const r = await runCli(['preflight', 'kimi-code', 'memtomem::mem_search', '--run-id', RUN, '--profile', 'review'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    sameAsFixture(v, { ...fixture('preflight-unresolved-identity'), run_id: RUN });
  });

  it('allow, stamped with graph_state and graph_instance_id; --state continues a graph_state (generation 42 kept while the inputs are unchanged)', async () => {
    const first = await preflight(dir, 'memtomem::mem_search', 'syncmill::shared_read', '--out', 'first.json');
    expect(first.code).toBe(0);
    const earlier = JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8'));
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ ...earlier, graph_state: { instance_id: 'test-instance', generation: 42 }, graph_generation: 42 }));
    const r = await preflight(dir, 'memtomem::mem_search', 'syncmill::shared_read', '--state', 'state.json');
    expect(r.code).toBe(0);
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    sameAsFixture(v, { ...fixture('preflight-allow'), run_id: RUN });
    expect(v.graph_generation).toBe(42);
  });

  it('--out writes the artifact privately and prints its digest: sha256 of the exact file bytes', async () => {
    const r = await preflight(dir, 'memtomem::mem_search', '--out', 'pf.json');
    const bytes = readFileSync(join(dir, 'pf.json'));
    expect(r.json().artifact_digest).toBe(`sha256:${sha256(bytes)}`);
    expect(statSync(join(dir, 'pf.json')).mode & 0o777).toBe(0o600);
    expect(validates(SCHEMA, JSON.parse(bytes.toString('utf8')))).toBe(true);
  });

  it('refuses a --state artifact of an unknown major version (preflight-v2 with a graph_state): exit 1', async () => {
    const first = JSON.parse(readFileSync(join(dir, 'first.json'), 'utf8'));
    writeFileSync(join(dir, 'v2.json'), JSON.stringify({ ...first, schema_version: 2 }));
    const r = await preflight(dir, 'memtomem::mem_search', '--state', 'v2.json');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('schema_version 2');
    expect(r.stdout).toBe('');
  });

  it('refuses a --state file with no graph_state (the peer fixture itself carries no digests): exit 1', async () => {
    const r = await preflight(dir, 'memtomem::mem_search', '--state', vectorPath('toolgraph-preflight/preflight-allow.json'));
    expect(r.code).toBe(1);
  });

  it('scrubs userinfo, query and fragment from resource URIs in the evidence it writes', async () => {
    const uri = 'https://user:secretpw@db.example.com/rows?token=abc123#frag';
    const d = scratch({
      'catalog.json': { servers: [{ name: 's', tools: [{ name: 't' }] }] },
      'governance.yaml': `agents: [a]\npolicies:\n  - {id: p, effect: DENY}\ngrants:\n  - {agent: a, tool: "s::t"}\ndata_access:\n  - {tool: "s::t", resource: "${uri}", mode: READS}\ngoverned_by:\n  "${uri}": [p]\n`,
      'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
    });
    for (const compat of [[], ['--compat', 'toolgraph'], ['--features'], ['--features', '--compat', 'toolgraph']]) {
      const r = await runCli(['preflight', 'a', 's::t', '--run-id', 'r', ...compat], { cwd: d });
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/secretpw|token|abc123|frag|user:/);
      expect(r.json().rejected[0].paths[0]).toContain('https://db.example.com/rows');
    }
  });

  it('--features adds the full selector rows, one per candidate; without it features is empty', async () => {
    const plain = (await preflight(dir, 'memtomem::mem_search', 'memtomem::mem_add')).json();
    expect(plain.features).toEqual([]);
    const full = (await preflight(dir, 'memtomem::mem_search', 'memtomem::mem_add', '--features')).json();
    expect(validates(SCHEMA, full)).toBe(true);
    const ranked = (await runCli(['rank-features', 'codex', 'memtomem::mem_search', 'memtomem::mem_add'], { cwd: dir })).json().rows;
    expect(full.features).toEqual(ranked);
  });

  it('without --run-id it is bad usage: exit 2, nothing on stdout', async () => {
    const r = await runCli(['preflight', 'codex', 'memtomem::mem_search'], { cwd: dir });
    expect([r.code, r.stdout]).toEqual([2, '']);
  });
});
