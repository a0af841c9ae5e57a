import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, statSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { runCli } from '../../helpers/cli.ts';
import { toolContractDigest } from '../../../src/compile/digests.ts';

const EPOCH = { SOURCE_DATE_EPOCH: '1767225600' };
const tmp = () => mkdtempSync(join(tmpdir(), 'toolgate-compile-'));

async function compile(args: string[], env: Record<string, string> = EPOCH) {
  const out = tmp();
  const r = await runCli(['compile', ...args, '--out', out], { env });
  return { ...r, out };
}

function tarNames(gz: Uint8Array): string[] {
  const tar = gunzipSync(gz);
  const names: string[] = [];
  for (let off = 0; off + 512 <= tar.length; ) {
    const name = tar.subarray(off, off + 100).toString('utf8').replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(tar.subarray(off + 124, off + 136).toString('utf8').replace(/\0.*$/s, '').trim(), 8);
    names.push(name);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

describe('toolgate compile', () => {
  it('writes the four artifacts for the quickstart, and SHA256SUMS verifies with sha256sum', async () => {
    const r = await compile(['--example', 'quickstart']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(r.out).sort()).toEqual([
      'SHA256SUMS', 'bundle.tar.gz', 'connectome.digest.json', 'connectome.dot', 'connectome.graphml', 'connectome.json', 'data.json', 'policy-bundle.json',
    ]);
    const check = execFileSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: r.out, encoding: 'utf8' });
    expect(check).toContain('policy-bundle.json: OK');
    expect(check).toContain('bundle.tar.gz: OK');
    expect(statSync(join(r.out, 'data.json')).mode & 0o777).toBe(0o600);
  });

  it('is byte-identical across runs and output folders (independent of TZ)', async () => {
    const a = await compile(['--example', 'quickstart']);
    const b = await compile(['--example', 'quickstart'], { ...EPOCH, TZ: 'Asia/Kolkata' });
    for (const f of readdirSync(a.out)) {
      expect(readFileSync(join(b.out, f)).equals(readFileSync(join(a.out, f))), f).toBe(true);
    }
  });

  it('packs .manifest, toolgate/data.json, toolgate/authz.rego and the gateway entrypoints (no tests) with fixed metadata', async () => {
    const r = await compile(['--example', 'quickstart']);
    const gz = readFileSync(join(r.out, 'bundle.tar.gz'));
    expect(tarNames(gz)).toEqual(['.manifest', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego']);
    const listing = execFileSync('tar', ['-tzvf', join(r.out, 'bundle.tar.gz')], { encoding: 'utf8' });
    expect(listing).toMatch(/-rw-r--r-- 0\/0 .* 1970-01-01 00:00 \.manifest/);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', join(r.out, 'bundle.tar.gz'), '.manifest'], { encoding: 'utf8' }));
    expect(manifest).toMatchObject({ roots: ['toolgate'], rego_version: 1, revision: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const inner = JSON.parse(execFileSync('tar', ['-xzOf', join(r.out, 'bundle.tar.gz'), 'toolgate/data.json'], { encoding: 'utf8' }));
    const outer = JSON.parse(readFileSync(join(r.out, 'data.json'), 'utf8'));
    expect(inner).toEqual(outer.toolgate);
  });

  it('writes the declared connectome, its digest envelope, and its edges into the data document', async () => {
    const r = await compile(['--example', 'quickstart', '--algorithm', 'sha384', '--scheme', 'ed25519', '--key-id', 'release-2026']);
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(join(r.out, 'connectome.json'));
    expect(bytes.toString('utf8')).toMatch(/^\{"schema_version":4,"algorithm":"sha384","nodes":\[/);
    expect(bytes[bytes.length - 1]).not.toBe(10);
    const env = JSON.parse(readFileSync(join(r.out, 'connectome.digest.json'), 'utf8'));
    expect(env).toMatchObject({ algorithm: 'sha384', scheme: 'ed25519', key_id: 'release-2026', signature: null, size: bytes.length });
    expect(env.digest).toBe(execFileSync('sha384sum', [join(r.out, 'connectome.json')], { encoding: 'utf8' }).slice(0, 96));
    const data = JSON.parse(readFileSync(join(r.out, 'data.json'), 'utf8')).toolgate;
    expect(data.digests.connectome).toBe(env.digest);
    expect(data.connectome.edges).toContainEqual({ from: 'git/server', to: 'git/tool/git_show', kind: 'invoke', provenance: 'declared', sign: 'unset' });
    expect(data.connectome.edges.every((e: { sign: string }) => e.sign === 'unset')).toBe(true);
    const bad = await compile(['--example', 'quickstart', '--algorithm', 'md5']);
    expect(bad.code).toBe(2); // an unknown --algorithm is bad usage (the exit-code contract)
    expect(bad.stderr).toContain('DIGEST_ALGORITHM_UNSUPPORTED');
    expect(readdirSync(bad.out)).toEqual([]);
  });

  it('writes a sparse bundle: granted pairs only, NOT_GRANTED stated once as the default', async () => {
    const r = await compile(['--example', 'quickstart']);
    const bundle = JSON.parse(readFileSync(join(r.out, 'policy-bundle.json'), 'utf8'));
    expect(bundle).toMatchObject({ kind: 'toolgate.policy-bundle', schema_version: 1, created_at: '2026-01-01T00:00:00Z', default: { decision: 'rejected', reason: 'NOT_GRANTED' } });
    expect(bundle.tools.map((t: { tool_key: string }) => t.tool_key)).toEqual([
      'filesystem::list_directory', 'filesystem::read_file', 'filesystem::write_file', 'git::git_log', 'git::git_show', 'git::git_status', 'notes::publish_note', 'notes::read_note',
    ]);
    expect(Object.keys(bundle.agents['ci-bot'].tools)).toEqual(['filesystem::list_directory', 'git::git_log', 'git::git_show']);
    expect(bundle.agents['ci-bot'].tools['git::git_show']).toMatchObject({ decision: 'rejected', reason: 'DENY_VIOLATION', risk_score: 1 });
    const data = JSON.parse(readFileSync(join(r.out, 'data.json'), 'utf8')).toolgate;
    expect(data.agents['ci-bot'].tools['git::git_status']).toBeUndefined();
    expect(data.tools['filesystem::write_file'].annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
    expect(data.policies['secrets-deny']).toMatchObject({ effect: 'DENY' });
  });

  it.each([
    ['strict', { 'ops-agent': 'DENY_GOVERNED', 'ci-bot': 'DENY_VIOLATION', listdir: 'eligible' }],
    ['review', { 'ops-agent': 'eligible', 'ci-bot': 'DENY_VIOLATION', listdir: 'eligible' }],
    ['explore', { 'ops-agent': 'eligible', 'ci-bot': 'eligible', listdir: 'eligible' }],
  ])('profile %s rejects what the peer profile rejects', async (profile, want) => {
    const r = await compile(['--example', 'quickstart', '--profile', profile]);
    const agents = JSON.parse(readFileSync(join(r.out, 'policy-bundle.json'), 'utf8')).agents;
    const show = (d: { decision: string; reason?: string }) => d.reason ?? d.decision;
    expect(show(agents['ops-agent'].tools['filesystem::read_file'])).toBe(want['ops-agent']);
    expect(show(agents['ci-bot'].tools['git::git_show'])).toBe(want['ci-bot']);
    expect(show(agents['ci-bot'].tools['filesystem::list_directory'])).toBe(want.listdir);
  });

  it('rejects UNMAPPED under strict only, and DRIFTED under every profile', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ servers: [{ name: 's', tools: [{ name: 'bare' }] }] }));
    writeFileSync(join(dir, 'g.yaml'), 'agents: [x]\ngrants: [{agent: x, tool: "s::bare"}, {agent: x, tool: "s::gone"}]\n');
    for (const [profile, bare] of [['strict', 'UNMAPPED'], ['review', 'eligible'], ['explore', 'eligible']] as const) {
      const r = await compile(['--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'catalog.json'), '--profile', profile]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain('DRIFT');
      const tools = JSON.parse(readFileSync(join(r.out, 'policy-bundle.json'), 'utf8')).agents.x.tools;
      expect(tools['s::bare'].reason ?? tools['s::bare'].decision).toBe(bare);
      expect(tools['s::gone']).toMatchObject({ decision: 'rejected', reason: 'DRIFTED', risk_score: 0.8 });
    }
  });

  it('exports the toolgraph-v1 single-agent bundle that validates against the peer schema', async () => {
    const ajv = new Ajv2020({ strict: false });
    (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
    const validate = ajv.compile(JSON.parse(readFileSync(new URL('../../vectors/toolgraph-policy-bundle.schema.json', import.meta.url), 'utf8')));
    for (const [example, agent] of [['quickstart', 'ci-bot'], ['quickstart', 'publisher'], ['fleet', 'reader']]) {
      const r = await compile(['--example', example!, '--format', 'toolgraph-v1', '--agent', agent!, '--profile', 'review']);
      expect(r.code, r.stderr).toBe(0);
      const bundle = JSON.parse(readFileSync(join(r.out, 'policy-bundle.json'), 'utf8'));
      expect(validate(bundle), JSON.stringify(validate.errors)).toBe(true);
      expect(bundle.agent).toBe(agent);
      const keys = bundle.tools.map((t: { tool_key: string }) => t.tool_key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('refuses toolgraph-v1 for an unknown agent and writes nothing', async () => {
    const r = await compile(['--example', 'quickstart', '--format', 'toolgraph-v1', '--agent', 'nobody']);
    expect(r.code).toBe(1);
    expect(readdirSync(r.out)).toEqual([]);
  });

  it('keeps graph_state for unchanged inputs and raises the generation only when they change', async () => {
    const dir = tmp();
    cpSync(new URL('../../../examples/quickstart/', import.meta.url), dir, { recursive: true });
    const out = join(dir, 'out');
    const args = ['compile', '--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json'), '--out', out];
    const state = () => JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')).graph_state;
    await runCli(args, { env: EPOCH });
    const first = state();
    expect(first.generation).toBe(1);
    await runCli(args, { env: {} }); // no SOURCE_DATE_EPOCH: unchanged inputs keep created_at too
    expect(state()).toEqual(first);
    expect(JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')).created_at).toBe('2026-01-01T00:00:00Z');
    writeFileSync(join(dir, 'governance.yaml'), `${readFileSync(join(dir, 'governance.yaml'), 'utf8')}\n# a comment changes no digest\n`);
    await runCli(args, { env: EPOCH });
    expect(state()).toEqual(first);
    writeFileSync(join(dir, 'governance.yaml'), readFileSync(join(dir, 'governance.yaml'), 'utf8').replace('ci-bot\n', 'ci-bot\n').replace('- id: publisher', '- id: publisher\n  - id: auditor'));
    await runCli(args, { env: EPOCH });
    expect(state()).toEqual({ instance_id: first.instance_id, generation: 2 });
  });
});

describe('reconciling a re-crawl', () => {
  it('reports governed tools that vanished (DRIFT) and new tools nothing governs', async () => {
    const dir = tmp();
    cpSync(new URL('../../../examples/quickstart/', import.meta.url), dir, { recursive: true });
    const out = join(dir, 'out');
    const args = ['compile', '--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json'), '--out', out];
    expect((await runCli(args, { env: EPOCH })).code).toBe(0);
    const catalog = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    const git = catalog.servers.find((s: { name: string }) => s.name === 'git');
    git.tools = git.tools.filter((t: { name: string }) => t.name !== 'git_show');
    catalog.servers.find((s: { name: string }) => s.name === 'notes').tools.push({ name: 'delete_note', annotations: { destructiveHint: true } });
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const r = await runCli(args, { env: EPOCH });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().reconcile).toEqual({ appeared: ['notes::delete_note'], vanished: ['git::git_show'], governed_vanished: ['git::git_show'], new_ungoverned: ['notes::delete_note'] });
    expect(r.stderr).toContain('DRIFT: governed tool git::git_show vanished');
    expect(r.stderr).toContain('UNGOVERNED: new tool notes::delete_note');
    expect(r.json().graph_state.generation).toBe(2);
  });
});

describe('toolContractDigest', () => {
  it("reproduces the peer's tool-contract test vector", () => {
    const v = JSON.parse(readFileSync(new URL('../../vectors/toolgraph-tool-contract-v1.json', import.meta.url), 'utf8'));
    const c = v.contract;
    const tool = {
      name: c.name,
      description: c.description,
      inputSchema: c.input_schema,
      annotations: { readOnlyHint: c.read_only_hint, destructiveHint: c.destructive_hint, openWorldHint: c.open_world_hint },
    };
    expect(toolContractDigest(c.server, tool)).toBe(v.expected_digest);
  });
});
