import { describe, it, expect } from 'vitest';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { digestHex } from '../../../src/canonical/digest.ts';
import {
  buildGraph,
  decodeGraph,
  diffConnectomes,
  encodeDiff,
  encodeGraph,
  encodeSidecar,
  erlangShortFloat,
  nodeFromIdentity,
  toDot,
  toGraphML,
  type ConnectomeEdge,
} from '../../../src/connectome/index.ts';

const dir = join(import.meta.dirname, 'fixtures');
const fixture = (name: string): Buffer => readFileSync(join(dir, name));
const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const tmp = mkdtempSync(join(tmpdir(), 'toolgate-golden-'));

/** sha256sum/sha384sum/sha512sum over a file, as a blind verifier would run it. */
function shaSum(alg: 'sha256' | 'sha384' | 'sha512', bytes: Uint8Array, name: string): string {
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  return execFileSync(`${alg}sum`, [p], { encoding: 'utf8' }).split(' ')[0]!;
}

/** Asserts `ours` is `theirs` with schema_version 3 -> 4 and nothing else. */
function onlyVersionDiffers(ours: Uint8Array, theirs: Uint8Array): void {
  expect(ours.length).toBe(theirs.length);
  const diffs: number[] = [];
  for (let i = 0; i < ours.length; i++) if (ours[i] !== theirs[i]) diffs.push(i);
  expect(diffs).toHaveLength(1);
  const at = diffs[0]!;
  expect(text(theirs.subarray(0, at + 1)).endsWith('"schema_version":3')).toBe(true);
  expect(String.fromCharCode(ours[at]!)).toBe('4');
}

describe('golden envelope (golden.json, version 3)', () => {
  const bytes = fixture('golden.json');

  it('hashes to e442feaa... by sha256sum over the file', () => {
    const want = 'e442feaaccd752ddfe3a907a88bcfb19c1d31f4be3fc20a3125ba7b85584caf7';
    expect(execFileSync('sha256sum', [join(dir, 'golden.json')], { encoding: 'utf8' }).startsWith(want)).toBe(true);
    expect(digestHex(bytes, 'sha256')).toBe(want);
  });

  it('is read in and written as version 4; the only byte that differs is the version', () => {
    const d = decodeGraph(bytes);
    expect(d.readVersion).toBe(3);
    expect(d.algorithm).toBe('sha256');
    const ours = encodeGraph(d.graph);
    onlyVersionDiffers(ours, bytes);
    expect(shaSum('sha256', ours, 'golden.v4.json')).toBe(digestHex(ours, 'sha256'));
  });

  it('reproduces golden.sha384 and golden.sha512 with the algorithm member changed', () => {
    for (const alg of ['sha384', 'sha512'] as const) {
      const theirs = new TextEncoder().encode(text(bytes).replace('"algorithm":"sha256"', `"algorithm":"${alg}"`));
      const want = fixture(`golden.${alg}`).toString('utf8').trim();
      expect(shaSum(alg, theirs, `golden.${alg}.json`)).toBe(want);
      const ours = encodeGraph(decodeGraph(bytes).graph, { algorithm: alg });
      onlyVersionDiffers(ours, theirs);
      expect(digestHex(new TextEncoder().encode(text(ours).replace('"schema_version":4', '"schema_version":3')), alg)).toBe(want);
    }
  });

  it('decodes the same graph from any key order and spacing', () => {
    const v = JSON.parse(bytes.toString('utf8')) as { nodes: Record<string, unknown>[]; edges: Record<string, unknown>[] };
    const shuffled = {
      edges: [...v.edges].reverse().map((e) => Object.fromEntries(Object.entries(e).reverse())),
      nodes: [...v.nodes].reverse().map((n) => Object.fromEntries(Object.entries(n).reverse())),
      algorithm: 'sha256',
      schema_version: 4,
    };
    const ours = encodeGraph(decodeGraph(JSON.stringify(shuffled, null, 3)).graph);
    onlyVersionDiffers(ours, bytes);
  });

  it('renders golden.dot and golden.graphml (0.4.0 signs read unset; DOT label attribute names quoted)', () => {
    const g = decodeGraph(bytes).graph;
    const dot = fixture('golden.dot').toString('utf8').replaceAll('sign="unknown"', 'sign="unset"').replace(/ label_(\w+)=/g, ' "label_$1"=');
    expect(toDot(g)).toBe(dot);
    expect(toGraphML(g)).toBe(fixture('golden.graphml').toString('utf8').replaceAll('>unknown<', '>unset<'));
  });

  it('writes golden.sidecar.json for the weighted observed edges (version 4)', () => {
    const g = decodeGraph(bytes).graph;
    const weights: Record<string, number> = { 'srv/module/Enum': 1, 'srv/tool/\u00e9cho|read': 3 };
    const edges: ConnectomeEdge[] = g.edges.map((e) => {
      const w = e.kind === 'message' ? weights['srv/module/Enum'] : e.kind === 'read' ? weights['srv/tool/\u00e9cho|read'] : undefined;
      return w === undefined ? e : { ...e, weight: w };
    });
    const weighted = buildGraph({ nodes: g.nodes, edges });
    const theirs = fixture('golden.sidecar.json');
    const ours = encodeSidecar(weighted);
    onlyVersionDiffers(ours, theirs);
    // Weights never touch the hashed bytes.
    expect(encodeGraph(weighted)).toEqual(encodeGraph(g));
  });
});

describe('worked example of connectome-canonical.md', () => {
  const g = buildGraph({
    nodes: [nodeFromIdentity({ tag: 'server', server: 's' }), nodeFromIdentity({ tag: 'tool', server: 's', name: 't' }, { mode: 'read_only' })],
    edges: [{ from: 's/server', to: 's/tool/t', kind: 'invoke', provenance: 'declared', sign: 'unset' }],
  });
  const line = (alg: string, v: number): string =>
    `{"schema_version":${v},"algorithm":"${alg}","nodes":[{"id":"s/server","kind":"server","labels":{},"level":"server"},{"id":"s/tool/t","kind":"tool","labels":{"mode":"read_only"},"level":"server"}],"edges":[{"from":"s/server","kind":"invoke","provenance":"declared","sign":"unset","to":"s/tool/t"}]}`;
  const want = {
    sha256: 'a401cd47f0f0410d17248538eb8a3ef00018f6a31bf6fb6a7b9b0ba3377f570e',
    sha384: 'f5b9b2f4fe21a4bfe88721d804f4f82d167f73f7dd59b1a64ae0196f4cf78f05a6b9a3efa6d02e7362469796dbba53dd',
    sha512: '26cacb025eeaeabb0c441a293882ab81ec2436b80559618fd700dc494f9a5d2e2c6d46cee69a68cbdc84746aa9d64a4a11da027df7b0bc733ba1091031ee2e78',
  } as const;
  for (const alg of ['sha256', 'sha384', 'sha512'] as const) {
    it(`reproduces the ${alg} of the page's line, and ours differs only in the version`, () => {
      const theirs = new TextEncoder().encode(line(alg, 3));
      expect(shaSum(alg, theirs, `worked.${alg}.json`)).toBe(want[alg]);
      const ours = encodeGraph(g, { algorithm: alg });
      expect(text(ours)).toBe(line(alg, 4));
      onlyVersionDiffers(ours, theirs);
    });
  }
});

describe('worked example of connectome-diff.md', () => {
  const nodes = [nodeFromIdentity({ tag: 'server', server: 'srv' }), ...['a', 'b', 'c'].map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }))];
  const e = (f: string, t: string, provenance: 'declared' | 'observed', sign: ConnectomeEdge['sign'] = 'unset'): ConnectomeEdge => ({
    from: `srv/tool/${f}`,
    to: `srv/tool/${t}`,
    kind: 'invoke',
    provenance,
    sign,
  });
  const declared = buildGraph({ nodes, edges: [e('a', 'b', 'declared'), e('a', 'c', 'declared'), e('c', 'a', 'declared', 'allow'), e('b', 'a', 'declared', 'allow')] });
  const observed = buildGraph({ nodes, edges: [e('a', 'b', 'observed'), e('b', 'c', 'observed'), e('c', 'a', 'observed', 'deny'), e('b', 'a', 'observed')] });
  const window = { ended_at: '2026-09-14T01:00:00Z', started_at: '2026-09-14T00:00:00Z' };
  const expected =
    '{"algorithm":"sha256","classes":{"changed_sign":[{"declared_sign":"allow","from":"srv/tool/c","kind":"invoke","observed_sign":"deny","to":"srv/tool/a"}],"declared_and_observed":[{"from":"srv/tool/a","kind":"invoke","to":"srv/tool/b"},{"from":"srv/tool/b","kind":"invoke","to":"srv/tool/a"}],"declared_never_observed":[{"from":"srv/tool/a","kind":"invoke","to":"srv/tool/c"}],"observed_but_undeclared":[{"from":"srv/tool/b","kind":"invoke","to":"srv/tool/c"}]},"coverage":{"declared_and_observed":3,"declared_edges":4,"declared_endpoint_covered":4,"declared_nodes":4,"declared_sign_only":1,"nodes_in_both":4,"observed_edges":4,"observed_endpoint_declared":4,"observed_nodes":4,"observed_sign_only":0},"schema_version":3,"window":{"ended_at":"2026-09-14T01:00:00Z","started_at":"2026-09-14T00:00:00Z"}}';

  it('writes the 800 bytes and both digests', () => {
    const bytes = encodeDiff(diffConnectomes(declared, observed, { window }));
    expect(bytes.length).toBe(800);
    expect(text(bytes)).toBe(expected);
    expect(shaSum('sha256', bytes, 'diff.json')).toBe('a8a4206fb65febc83ed099be8b7408b6938795efc8a92f7cac1f53781c4312e1');
    const b384 = encodeDiff(diffConnectomes(declared, observed, { window, algorithm: 'sha384' }));
    expect(text(b384)).toBe(expected.replace('"sha256"', '"sha384"'));
    expect(shaSum('sha384', b384, 'diff384.json')).toBe(
      '2efccb9b6852b3d4088b170987fd7e51c52d474a81522e3203d9420eda199fd2d872aebbd1e60e44b5c9b2b1e0b0090e',
    );
  });
});

describe('sidecar float placement (Erlang short form)', () => {
  it('writes the page examples', () => {
    const cases: [number, string][] = [
      [0.1, '0.1'], [0.0001, '0.0001'], [999999999999999.0, '999999999999999.0'], [1e15, '1.0e15'], [1e-5, '1.0e-5'],
      [1e20, '1.0e20'], [9.99e14, '9.99e14'], [3e6, '3.0e6'], [1.23456e-4, '1.23456e-4'], [0.001234, '0.001234'],
      [12340.0, '12340.0'], [0, '0.0'], [-0, '-0.0'],
    ];
    for (const [x, s] of cases) expect(erlangShortFloat(x), String(x)).toBe(s);
  });
});
