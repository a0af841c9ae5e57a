/**
 * beam_mcp's connectome contracts (connectome-canonical.md, connectome-diff.md, connectome-reach.md
 * and the golden fixtures), checked from outside through the CLI: the canonical envelope bytes and
 * their sha256/384/512 digests, the verifier's version rule, the DOT/GraphML exports, the diff
 * record's worked example, and reachability's worked example.
 */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../helpers/cli.ts';
import { allPaths, buildGraph, decodeGraph, dominates, encodeGraph, encodeSidecar, mandatoryPass, nodeFromIdentity, reachable, reachableWithout, type ConnectomeEdge } from '../../../src/connectome/index.ts';
import { scratch } from './peer-helpers.ts';

const GOLDEN = fileURLToPath(new URL('../../golden/connectome/fixtures/', import.meta.url));
const golden = (name: string) => join(GOLDEN, name);
const bytesOf = (name: string) => readFileSync(golden(name));
const shaSum = (alg: string, file: string) => execFileSync(`${alg}sum`, [file], { encoding: 'utf8' }).split(' ')[0]!;
const tg = (dir: string, ...argv: string[]) => runCli(argv, { cwd: dir });

describe('the canonical envelope (golden.json, schema_version 3)', () => {
  const dir = scratch({});

  it('digest prints the sha256sum of the file; --algorithm sha384/sha512 give golden.sha384/.sha512', async () => {
    expect((await tg(dir, 'digest', golden('golden.json'))).stdout.trim()).toBe(shaSum('sha256', golden('golden.json')));
    expect(shaSum('sha256', golden('golden.json'))).toBe('e442feaaccd752ddfe3a907a88bcfb19c1d31f4be3fc20a3125ba7b85584caf7');
    for (const alg of ['sha384', 'sha512']) {
      const r = await tg(dir, 'digest', golden('golden.json'), '--algorithm', alg);
      expect([alg, r.stdout.trim()]).toEqual([alg, bytesOf(`golden.${alg}`).toString('utf8').trim()]);
    }
  });

  it('graph export --format json writes the file back byte for byte, and under sha384 changes only the algorithm member', async () => {
    const r = await tg(dir, 'graph', 'export', '--graph', golden('golden.json'), '--format', 'json', '--out', 'again.json');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'again.json')).equals(bytesOf('golden.json'))).toBe(true);
    await tg(dir, 'graph', 'export', '--graph', golden('golden.json'), '--format', 'json', '--algorithm', 'sha384', '--out', 'g384.json');
    expect(readFileSync(join(dir, 'g384.json'), 'utf8')).toBe(bytesOf('golden.json').toString('utf8').replace('"algorithm":"sha256"', '"algorithm":"sha384"'));
    expect(shaSum('sha384', join(dir, 'g384.json'))).toBe(bytesOf('golden.sha384').toString('utf8').trim());
  });

  it('reads any key order, spacing and a decomposed (non-NFC) id into the same bytes', async () => {
    const v = JSON.parse(bytesOf('golden.json').toString('utf8'));
    const nfd = (s: string) => s.normalize('NFD');
    const messy = {
      edges: [...v.edges].reverse().map((e: Record<string, string>) => ({ to: nfd(e.to!), sign: e.sign, provenance: e.provenance, kind: e.kind, from: nfd(e.from!) })),
      nodes: [...v.nodes].reverse().map((n: Record<string, unknown>) => ({ level: n.level, labels: n.labels, kind: n.kind, id: nfd(n.id as string) })),
      algorithm: 'sha256',
      schema_version: 3,
    };
    expect(JSON.stringify(messy)).not.toBe(bytesOf('golden.json').toString('utf8'));
    writeFileSync(join(dir, 'messy.json'), JSON.stringify(messy, null, 2));
    const r = await tg(dir, 'graph', 'export', '--graph', 'messy.json', '--format', 'json');
    expect(r.stdout).toBe(bytesOf('golden.json').toString('utf8'));
  });

  it("toolgate's own version (4) differs from it only in the version byte", async () => {
    const r = await tg(dir, 'graph', 'export', '--graph', golden('golden.json'), '--format', 'json', '--schema-version', '4');
    expect(r.stdout).toBe(bytesOf('golden.json').toString('utf8').replace('"schema_version":3', '"schema_version":4'));
  });

  it('the weight sidecar of the golden graph is golden.sidecar.json at version 3', () => {
    const g = decodeGraph(bytesOf('golden.json')).graph;
    const weight = (e: ConnectomeEdge) => (e.kind === 'message' ? 1 : e.kind === 'read' ? 3 : undefined);
    const weighted = buildGraph({ nodes: g.nodes, edges: g.edges.map((e) => (weight(e) === undefined ? e : { ...e, weight: weight(e)! })) });
    expect(Buffer.from(encodeSidecar(weighted, { schemaVersion: 3 })).equals(bytesOf('golden.sidecar.json'))).toBe(true);
    // Weights are not hashed: the declared bytes are unchanged by them.
    expect(Buffer.from(encodeGraph(weighted, { schemaVersion: 3 })).equals(bytesOf('golden.json'))).toBe(true);
  });

  it('a graph with a resource_template (a kind version 3 lacks) has no version-3 bytes: refused, exit 1', async () => {
    const d = scratch({ 'catalog.json': { servers: [{ name: 's', tools: [{ name: 't' }], resourceTemplates: [{ uriTemplate: 'file:///{path}', name: 'files' }] }] } });
    const v3 = await tg(d, 'graph', 'build', '--catalog', 'catalog.json', '--schema-version', '3');
    expect([v3.code, v3.stdout]).toEqual([1, '']);
    expect(v3.stderr).toContain('GRAPH_INVALID');
    expect((await tg(d, 'graph', 'build', '--catalog', 'catalog.json')).stdout).toMatch(/^\{"schema_version":4,/);
  });
});

describe('the worked example of connectome-canonical.md', () => {
  const line = (alg: string) =>
    `{"schema_version":3,"algorithm":"${alg}","nodes":[{"id":"s/server","kind":"server","labels":{},"level":"server"},{"id":"s/tool/t","kind":"tool","labels":{"mode":"read_only"},"level":"server"}],"edges":[{"from":"s/server","kind":"invoke","provenance":"declared","sign":"unset","to":"s/tool/t"}]}`;
  const want = {
    sha256: 'a401cd47f0f0410d17248538eb8a3ef00018f6a31bf6fb6a7b9b0ba3377f570e',
    sha384: 'f5b9b2f4fe21a4bfe88721d804f4f82d167f73f7dd59b1a64ae0196f4cf78f05a6b9a3efa6d02e7362469796dbba53dd',
    sha512: '26cacb025eeaeabb0c441a293882ab81ec2436b80559618fd700dc494f9a5d2e2c6d46cee69a68cbdc84746aa9d64a4a11da027df7b0bc733ba1091031ee2e78',
  };
  it.each(Object.keys(want) as (keyof typeof want)[])('%s: digest and verify give the page, and the line is its own canonical form', async (alg) => {
    const dir = scratch({ 'w.json': line(alg) });
    expect((await tg(dir, 'digest', 'w.json')).stdout.trim()).toBe(want[alg]);
    expect((await tg(dir, 'verify', 'w.json', '--digest', want[alg])).code).toBe(0);
    expect((await tg(dir, 'graph', 'export', '--graph', 'w.json', '--format', 'json')).stdout).toBe(line(alg));
    // The same graph built from its identities, as a host would: the page's line.
    const g = buildGraph({
      nodes: [nodeFromIdentity({ tag: 'server', server: 's' }), nodeFromIdentity({ tag: 'tool', server: 's', name: 't' }, { mode: 'read_only' })],
      edges: [{ from: 's/server', to: 's/tool/t', kind: 'invoke', provenance: 'declared', sign: 'unset' }],
    });
    expect(new TextDecoder().decode(encodeGraph(g, { algorithm: alg, schemaVersion: 3 }))).toBe(line(alg));
  });
});

describe("the verifier's version rule", () => {
  const dir = scratch({});
  it('versions 1 and 2 are SHA-256 over the bytes as held: golden.v2.json verifies against golden.v2.sha256', async () => {
    const r = await tg(dir, 'verify', golden('golden.v2.json'), '--digest', bytesOf('golden.v2.sha256').toString('utf8').trim());
    expect(r.code).toBe(0);
  });
  it('a version-2 record naming an algorithm, a version-3 one naming none, and an unknown name are refused (exit 1)', async () => {
    const v2 = bytesOf('golden.v2.json').toString('utf8');
    const v3 = bytesOf('golden.json').toString('utf8');
    const cases = {
      'v2-alg.json': v2.replace('"schema_version":2,', '"schema_version":2,"algorithm":"sha256",'),
      'v3-none.json': v3.replace('"algorithm":"sha256",', ''),
      'v3-md5.json': v3.replace('"algorithm":"sha256"', '"algorithm":"md5"'),
    };
    for (const [name, text] of Object.entries(cases)) {
      writeFileSync(join(dir, name), text);
      const digest = execFileSync('sha256sum', [join(dir, name)], { encoding: 'utf8' }).split(' ')[0]!;
      expect([name, (await tg(dir, 'verify', name, '--digest', digest)).code]).toEqual([name, 1]);
    }
  });
  it('a one-byte change is a mismatch: exit 1', async () => {
    const r = await tg(dir, 'verify', golden('golden.json'), '--digest', 'e442feaaccd752ddfe3a907a88bcfb19c1d31f4be3fc20a3125ba7b85584caf8');
    expect(r.code).toBe(1);
  });
});

describe('the exports (not canonical, not hashed)', () => {
  const dir = scratch({});
  it('DOT: golden.dot, with the 0.4.0 sign `unknown` as `unset` and label attribute names quoted (the newer page)', async () => {
    const want = bytesOf('golden.dot').toString('utf8').replaceAll('sign="unknown"', 'sign="unset"').replace(/ label_(\w+)=/g, ' "label_$1"=');
    expect((await tg(dir, 'graph', 'export', '--graph', golden('golden.json'), '--format', 'dot')).stdout).toBe(want);
  });
  it('GraphML: golden.graphml, with `unknown` as `unset`', async () => {
    const want = bytesOf('golden.graphml').toString('utf8').replaceAll('>unknown<', '>unset<');
    expect((await tg(dir, 'graph', 'export', '--graph', golden('golden.json'), '--format', 'graphml')).stdout).toBe(want);
  });
});

describe('the worked example of connectome-diff.md, through toolgate diff', () => {
  it('writes the 800 bytes, SHA-256 a8a4206f..., and under sha384 only the algorithm member changes', async () => {
    const nodes = [nodeFromIdentity({ tag: 'server', server: 'srv' }), ...['a', 'b', 'c'].map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }))];
    const e = (f: string, t: string, provenance: 'declared' | 'observed', sign: ConnectomeEdge['sign'] = 'unset'): ConnectomeEdge => ({ from: `srv/tool/${f}`, to: `srv/tool/${t}`, kind: 'invoke', provenance, sign });
    const declared = buildGraph({ nodes, edges: [e('a', 'b', 'declared'), e('a', 'c', 'declared'), e('c', 'a', 'declared', 'allow'), e('b', 'a', 'declared', 'allow')] });
    const observed = buildGraph({ nodes, edges: [e('a', 'b', 'observed'), e('b', 'c', 'observed'), e('c', 'a', 'observed', 'deny'), e('b', 'a', 'observed')] });
    const dir = scratch({
      'declared.json': new TextDecoder().decode(encodeGraph(declared, { schemaVersion: 3 })),
      'observed.json': new TextDecoder().decode(encodeGraph(observed, { schemaVersion: 3 })),
      'window.json': '{"started_at": "2026-09-14T00:00:00Z", "ended_at": "2026-09-14T01:00:00Z"}',
    });
    const args = ['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json'];
    const r = await tg(dir, ...args, '--out', 'diff.json');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(dir, 'diff.json')).length).toBe(800);
    expect(shaSum('sha256', join(dir, 'diff.json'))).toBe('a8a4206fb65febc83ed099be8b7408b6938795efc8a92f7cac1f53781c4312e1');
    expect((await tg(dir, 'verify', 'diff.json', '--digest', 'a8a4206fb65febc83ed099be8b7408b6938795efc8a92f7cac1f53781c4312e1')).code).toBe(0);
    await tg(dir, ...args, '--algorithm', 'sha384', '--out', 'diff384.json');
    expect(readFileSync(join(dir, 'diff384.json'), 'utf8')).toBe(readFileSync(join(dir, 'diff.json'), 'utf8').replace('"algorithm":"sha256"', '"algorithm":"sha384"'));
    expect(shaSum('sha384', join(dir, 'diff384.json'))).toBe('2efccb9b6852b3d4088b170987fd7e51c52d474a81522e3203d9420eda199fd2d872aebbd1e60e44b5c9b2b1e0b0090e');
  });
});

describe('the diff refusals, in the page order: options, declared, observed, window', () => {
  const nodes = '[{"id":"srv/server","kind":"server","labels":{},"level":"server"},{"id":"srv/tool/a","kind":"tool","labels":{},"level":"server"},{"id":"srv/tool/b","kind":"tool","labels":{},"level":"server"}]';
  const graph = (p: string) => `{"schema_version":3,"algorithm":"sha256","nodes":${nodes},"edges":[{"from":"srv/tool/a","kind":"invoke","provenance":"${p}","sign":"unset","to":"srv/tool/b"}]}`;
  const dir = scratch({ 'd.json': graph('declared'), 'o.json': graph('observed'), 'float.json': '{"started_at":"x","rate":0.5}', 'empty.json': '{}' });
  const diff = (d: string, o: string, w?: string) => tg(dir, 'diff', '--declared', d, '--observed', o, ...(w ? ['--window', w] : []));

  it('no window is refused by name (bad usage, exit 2); an empty window is a window, written {}', async () => {
    expect((await diff('d.json', 'o.json')).code).toBe(2);
    const r = await diff('d.json', 'o.json', 'empty.json');
    expect(r.code).toBe(0);
    expect(r.stdout.endsWith('"schema_version":3,"window":{}}')).toBe(true);
  });
  it('a window with a float has no canonical bytes: DIFF_REFUSED naming the window', async () => {
    const r = await diff('d.json', 'o.json', 'float.json');
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toMatch(/DIFF_REFUSED.*window/);
  });
  it('a graph with the other side\'s provenance is refused before the window is looked at', async () => {
    const declared = await diff('o.json', 'o.json', 'float.json');
    expect(declared.stderr).toMatch(/DIFF_REFUSED.*declared/);
    const observed = await diff('d.json', 'd.json', 'float.json');
    expect(observed.stderr).toMatch(/DIFF_REFUSED.*observed/);
    expect([declared.code, observed.code]).toEqual([1, 1]);
  });
});

describe('the worked example of connectome-reach.md (library: toolgate has no reach command)', () => {
  const nodes = [nodeFromIdentity({ tag: 'server', server: 'srv' }), ...['a', 'b', 'g', 'x'].map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }))];
  const id = (n: string) => (n === 'srv' ? 'srv/server' : `srv/tool/${n}`);
  const edge = (f: string, t: string): ConnectomeEdge => ({ from: id(f), to: id(t), kind: 'invoke', provenance: 'declared', sign: 'unset' });
  const gate = buildGraph({ nodes, edges: [edge('srv', 'a'), edge('srv', 'b'), edge('a', 'g'), edge('b', 'g'), edge('g', 'x')] });
  const bypass = buildGraph({ nodes, edges: [...gate.edges, edge('a', 'x')] });

  it('the gate fixture: x is reached only through g', () => {
    expect(reachable(gate, id('srv'), id('x'))).toBe(true);
    expect(dominates(gate, id('g'), id('x'))).toBe(true);
    expect(reachableWithout(gate, id('srv'), id('x'), [id('g')])).toBe(false);
    expect([...mandatoryPass(gate, id('x'))].sort()).toEqual([id('srv'), id('g')]);
  });
  it('with the bypass a->x: the witness srv->a->x, g no longer dominates, only the server is mandatory', () => {
    const w = reachableWithout(bypass, id('srv'), id('x'), [id('g')]);
    expect(w).not.toBe(false);
    const path = w as { nodes: readonly string[]; edges: readonly ConnectomeEdge[] };
    expect(path.nodes).toEqual([id('srv'), id('a'), id('x')]);
    expect(path.edges.map((e) => [e.from, e.to])).toEqual([[id('srv'), id('a')], [id('a'), id('x')]]);
    expect(dominates(bypass, id('g'), id('x'))).toBe(false);
    expect([...mandatoryPass(bypass, id('x'))]).toEqual([id('srv')]);
    for (const n of ['a', 'b']) expect(dominates(bypass, id(n), id('x'))).toBe(false);
  });

  it('refuses by name: all paths always, an unknown node, an option the question cannot use, unreachable dominance', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return [(e as { code?: string }).code, (e as Error).message];
      }
      return ['answered'];
    };
    expect(code(() => allPaths())[0]).toBe('REACH_REFUSED');
    expect(code(() => reachable(gate, id('srv'), 'srv/tool/nope'))).toEqual(['REACH_REFUSED', expect.stringContaining('srv/tool/nope')]);
    expect(code(() => dominates(gate, id('g'), id('x'), { max_hops: 2 } as never))).toEqual(['REACH_REFUSED', expect.stringContaining('max_hops')]);
    const island = buildGraph({ nodes: [...nodes, nodeFromIdentity({ tag: 'tool', server: 'srv', name: 'z' })], edges: gate.edges });
    expect(code(() => mandatoryPass(island, 'srv/tool/z'))[0]).toBe('REACH_REFUSED');
  });
});
