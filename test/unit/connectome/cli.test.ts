import { describe, it, expect } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { main } from '../../../src/cli/main.ts';
import type { CliIo } from '../../../src/cli/command.ts';
import { buildGraph, diffConnectomes, encodeDiff, encodeGraph, nodeFromIdentity } from '../../../src/connectome/index.ts';

const fixtures = join(import.meta.dirname, '..', '..', 'golden', 'connectome', 'fixtures');

async function run(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t), cwd, env: process.env, stdin: async () => '' };
  const code = await main(argv, io);
  return { code, out, err };
}

describe('connectome CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ servers: [{ name: 'srv', tools: [{ name: 'a' }, { name: 'b' }] }] }));
  writeFileSync(join(dir, 'events.jsonl'), '{"server":"srv","kind":"invoke","target":"a"}\n{"server":"srv","kind":"invoke","target":"c"}\n{"server":"srv","kind":"invoke","target":"c"}\n');

  it('graph build writes canonical bytes and an envelope signed by --signer', async () => {
    const r = await run(['graph', 'build', '--catalog', 'catalog.json', '--out', 'declared.json', '--envelope', 'declared.env.json', '--signer', 'sha256sum | cut -c1-8', '--key-id', 'k1'], dir);
    expect(r.code).toBe(0);
    const bytes = readFileSync(join(dir, 'declared.json'));
    const env = JSON.parse(readFileSync(join(dir, 'declared.env.json'), 'utf8')) as Record<string, unknown>;
    const sum = execFileSync('sha256sum', [join(dir, 'declared.json')], { encoding: 'utf8' }).split(' ')[0];
    expect(env).toEqual({ algorithm: 'sha256', digest: sum, key_id: 'k1', scheme: null, signature: sum!.slice(0, 8), size: bytes.length });
    expect(bytes.toString('utf8').endsWith('}')).toBe(true);
  });

  it('observe, then diff; the record goes to stdout without --out, no trailing newline', async () => {
    expect((await run(['observe', '--events', 'events.jsonl', '--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z', '--out', 'observed.json', '--sidecar', 'observed.sidecar.json', '--window-out', 'window.json'], dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'observed.sidecar.json'), 'utf8')).toContain('"to":"srv/tool/c","weight":2');
    const r = await run(['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json'], dir);
    expect(r.code).toBe(0);
    const rec = JSON.parse(r.out) as { classes: Record<string, unknown[]>; coverage: Record<string, number>; window: unknown };
    expect(r.out.endsWith('}')).toBe(true);
    expect(rec.classes.observed_but_undeclared).toEqual([{ from: 'srv/server', kind: 'invoke', to: 'srv/tool/c' }]);
    expect(rec.classes.declared_never_observed).toEqual([{ from: 'srv/server', kind: 'invoke', to: 'srv/tool/b' }]);
    expect(rec.window).toEqual({ ended_at: '2026-01-02T00:00:00Z', started_at: '2026-01-01T00:00:00Z' });
    expect((await run(['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json', '--out', 'diff.json', '--algorithm', 'sha512'], dir)).code).toBe(0);
    const v = await run(['verify', 'diff.json', '--digest', execFileSync('sha512sum', [join(dir, 'diff.json')], { encoding: 'utf8' }).split(' ')[0]!], dir);
    expect(v.code).toBe(0);
  });

  it('diff streams a record of several chunks, with multi-byte ids, to --out and to stdout as encodeDiff writes it', async () => {
    const nodes = Array.from({ length: 2000 }, (_, i) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: `outil_é${i}_\u{1F600}` }));
    const edges = (provenance: 'declared' | 'observed', shift: number) =>
      Array.from({ length: 9000 }, (_, k) => ({ from: nodes[k % 2000]!.id, to: nodes[(k + 1 + shift + Math.floor(k / 2000)) % 2000]!.id, kind: 'invoke' as const, provenance, sign: 'unset' as const }));
    const declared = buildGraph({ nodes, edges: edges('declared', 0) });
    const observed = buildGraph({ nodes, edges: edges('observed', 3) });
    writeFileSync(join(dir, 'big.declared.json'), encodeGraph(declared));
    writeFileSync(join(dir, 'big.observed.json'), encodeGraph(observed));
    const expected = Buffer.from(encodeDiff(diffConnectomes(declared, observed, { window: { ended_at: '2026-01-02T00:00:00Z', started_at: '2026-01-01T00:00:00Z' } })));
    expect(expected.length).toBeGreaterThan(1 << 20);
    const args = ['diff', '--declared', 'big.declared.json', '--observed', 'big.observed.json', '--window', 'window.json'];
    expect((await run([...args, '--out', 'big.diff.json'], dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'big.diff.json')).equals(expected)).toBe(true);
    const r = await run(args, dir);
    expect(Buffer.from(r.out, 'utf8').equals(expected)).toBe(true);
  });

  it('diff refuses the declared and observed graphs swapped (wrong provenance), writing nothing', async () => {
    const r = await run(['diff', '--declared', 'observed.json', '--observed', 'declared.json', '--window', 'window.json', '--out', 'swapped.json'], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain('DIFF_REFUSED');
    expect(existsSync(join(dir, 'swapped.json'))).toBe(false);
  });

  it('observe refuses a payload line, writing nothing', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), '{"server":"srv","kind":"invoke","target":"a","arguments":{"q":"x"}}\n');
    const r = await run(['observe', '--events', 'bad.jsonl', '--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z', '--out', 'never.json'], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain('OBSERVATION_INVALID');
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
  });

  it('digest re-encodes at the version read (--schema-version 4 for ours); verify checks the bytes as held and exits 1 on mismatch', async () => {
    const golden = join(fixtures, 'golden.json');
    expect((await run(['digest', golden], dir)).out.trim()).toBe(execFileSync('sha256sum', [golden], { encoding: 'utf8' }).split(' ')[0]);
    const d = await run(['digest', golden, '--schema-version', '4'], dir);
    const v4 = readFileSync(golden, 'utf8').replace('"schema_version":3', '"schema_version":4');
    writeFileSync(join(dir, 'golden.v4.json'), v4);
    expect(d.out.trim()).toBe(execFileSync('sha256sum', [join(dir, 'golden.v4.json')], { encoding: 'utf8' }).split(' ')[0]);
    expect((await run(['verify', golden, '--digest', 'e442feaaccd752ddfe3a907a88bcfb19c1d31f4be3fc20a3125ba7b85584caf7'], dir)).code).toBe(0);
    expect((await run(['verify', golden, '--digest', '74495cc3cf4c6c4a3453d6dad0fefeb5313c5009f0866794f45d81e96fd4ed73'], dir)).code).toBe(1);
    const v2 = readFileSync(join(fixtures, 'golden.v2.sha256'), 'utf8').trim();
    expect((await run(['verify', join(fixtures, 'golden.v2.json'), '--digest', v2], dir)).code).toBe(0);
    expect((await run(['digest', golden, '--algorithm', 'md5'], dir)).code).toBe(2);
  });

  it('graph export renders dot, graphml and json; graph collapse takes groups', async () => {
    const golden = join(fixtures, 'golden.json');
    expect((await run(['graph', 'export', '--graph', golden, '--format', 'dot'], dir)).out).toContain('digraph connectome {');
    expect((await run(['graph', 'export', '--graph', golden, '--format', 'graphml'], dir)).out).toContain('<graphml');
    const c = await run(['graph', 'collapse', '--graph', golden, '--level', 'server'], dir);
    expect(c.code).toBe(1);
    expect(c.err).toContain('no container');
    writeFileSync(join(dir, 'groups.json'), JSON.stringify({ 'srv/module/Enum': 'srv/server', 'srv/boundary/application/beam_mcp': 'srv/server' }));
    const ok = await run(['graph', 'collapse', '--graph', golden, '--level', 'server', '--groups', 'groups.json'], dir);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('{"from":"srv/server","kind":"message","provenance":"observed","sign":"unset","to":"srv/server"}');
    writeFileSync(join(dir, 'typo.json'), JSON.stringify({ 'srv/module/Enum': 'srv/server', 'srv/boundary/application/beam_mcp': 'srv/server', 'srv/module/Enumm': 'srv/server' }));
    const typo = await run(['graph', 'collapse', '--graph', golden, '--level', 'server', '--groups', 'typo.json'], dir);
    expect(typo.code).toBe(1);
    expect(typo.err).toMatch(/typo\.json.*"srv\/module\/Enumm": not a node of the graph/);
    expect(typo.out).toBe('');
  });
});
