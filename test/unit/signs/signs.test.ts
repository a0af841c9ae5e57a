/**
 * Sign slots: the quickstart consumer policy through `sign` and `compile --signs`, every refusal
 * (other string, set, non-string, several values, conflict) with nothing written, and the rule that
 * a sign never drops, hides or reorders an edge.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { runCli } from '../../helpers/cli.ts';
import { graphFromJSON, buildGraph, SIGNS, type Graph } from '../../../src/connectome/index.ts';
import { loadPolicy, type Evaluation, type LoadedPolicy } from '../../../src/engines/engine.ts';
import { signEdges, signOf } from '../../../src/signs/index.ts';
import { abiFixtureWasm } from '../engines/abi-fixture.ts';

const env = { SOURCE_DATE_EPOCH: '0' };
let dir: string;
let graph: Graph;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-signs-'));
  const r = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'base')], { env });
  expect(r.code, r.stderr).toBe(0);
  graph = graphFromJSON(readFileSync(join(dir, 'base', 'connectome.json')));
});

function signAt(g: Graph, to: string): string | undefined {
  return g.edges.find((e) => e.to === to)?.sign;
}

describe('toolgate sign with examples/quickstart/signs.rego', () => {
  it('denies violated tools, holds destructive ones, allows eligible ones, marks the rest ungoverned', async () => {
    const out = join(dir, 'signed.json');
    const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', 'examples/quickstart/signs.rego', '--data', join(dir, 'base/data.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const g = graphFromJSON(readFileSync(out));
    expect(signAt(g, 'git/tool/git_show')).toBe('deny');
    expect(signAt(g, 'notes/tool/publish_note')).toBe('deny');
    expect(signAt(g, 'filesystem/tool/write_file')).toBe('hold');
    expect(signAt(g, 'git/tool/git_log')).toBe('allow');
    expect(signAt(g, 'filesystem/tool/list_directory')).toBe('allow');
    expect(signAt(g, 'git/tool/git_status')).toBe('ungoverned');
    expect(signAt(g, 'notes/resource/notes:%2F%2Fdrafts')).toBe('ungoverned');
    expect(r.json().signs).toEqual({ allow: 2, deny: 2, hold: 1, ungoverned: 8, unset: 0 });
    // Same nodes and edges, same order: only the signs changed.
    expect(g.nodes.map((n) => n.id)).toEqual(graph.nodes.map((n) => n.id));
    expect(g.edges.map((e) => [e.from, e.to, e.kind, e.provenance])).toEqual(graph.edges.map((e) => [e.from, e.to, e.kind, e.provenance]));
  });

  it('compile --signs writes the same signed connectome, with a digest stable across runs, into connectome.json and data.json', async () => {
    const digests: string[] = [];
    for (const n of [1, 2]) {
      const out = join(dir, `signed-compile-${n}`);
      const r = await runCli(['compile', '--example', 'quickstart', '--signs', 'examples/quickstart/signs.rego', '--out', out], { env });
      expect(r.code, r.stderr).toBe(0);
      digests.push(r.json().connectome_digest);
      const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8'));
      const edge = data.toolgate.connectome.edges.find((e: { to: string }) => e.to === 'git/tool/git_show');
      expect(edge.sign).toBe('deny');
    }
    expect(digests[0]).toBe(digests[1]);
    const viaSign = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', 'examples/quickstart/signs.rego', '--data', join(dir, 'base/data.json'), '--out', join(dir, 'again.json')]);
    expect(viaSign.json().digest).toBe(digests[0]);
    expect(readFileSync(join(dir, 'signed-compile-1', 'connectome.json'))).toEqual(readFileSync(join(dir, 'again.json')));
  });

  it('runs OPA-compiled wasm through --engine wasm (ABI fixture: invoke edges hold, others undefined -> unset)', async () => {
    const wasmPath = join(dir, 'fixture.wasm');
    writeFileSync(wasmPath, await abiFixtureWasm());
    const out = join(dir, 'wasm-signed.json');
    const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', wasmPath, '--entrypoint', 'fixture/sign', '--data', join(dir, 'base/data.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().engine).toBe('wasm');
    const g = graphFromJSON(readFileSync(out));
    for (const e of g.edges) expect(e.sign).toBe(e.kind === 'invoke' ? 'hold' : 'unset');
  });
});

describe('refusals: nothing is written, the edge and value are named', () => {
  const cases: [string, string][] = [
    ['another string', 'sign := "maybe"'],
    ['a set', 'sign contains "deny"'],
    ['a number', 'sign := 1'],
    ['an object', 'sign := {"s": "deny"}'],
    ['a conflict', 'sign := "deny" if input.edge.kind == "invoke"\nsign := "allow" if input.to.kind == "tool"'],
  ];
  it.each(cases)('refuses %s', async (_name, body) => {
    const policy = join(dir, `bad-${_name.replace(/ /g, '-')}.rego`);
    writeFileSync(policy, `package toolgate.signs\nimport rego.v1\n${body}\n`);
    const out = join(dir, `never-${_name.replace(/ /g, '-')}.json`);
    const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', policy, '--data', join(dir, 'base/data.json'), '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SIGN_VALUE_INVALID');
    expect(r.stderr).toMatch(/edge \S+ -invoke\/declared-> \S+/);
    expect(existsSync(out)).toBe(false);
  });
  it('refuses several results from a wasm policy', async () => {
    const p = await loadPolicy({ kind: 'wasm', bytes: await abiFixtureWasm() });
    expect(() => signEdges(graph, p, { entrypoint: 'fixture/multi' })).toThrow(expect.objectContaining({ code: 'SIGN_VALUE_INVALID' }));
    expect(() => signEdges(graph, p, { entrypoint: 'fixture/bad' })).toThrow(expect.objectContaining({ code: 'SIGN_VALUE_INVALID', details: expect.arrayContaining([expect.stringContaining('"maybe"')]) }));
  });
  it('compile --signs with a refused policy writes no artifact', async () => {
    const policy = join(dir, 'bad-compile.rego');
    writeFileSync(policy, 'package toolgate.signs\nsign := "maybe"\n');
    const out = join(dir, 'no-compile');
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', policy, '--out', out], { env });
    expect(r.code).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});

describe('signOf', () => {
  it('accepts exactly the five sign names and undefined', () => {
    for (const s of SIGNS) expect(signOf({ defined: true, value: s, type: 'string' })).toEqual({ sign: s });
    expect(signOf({ defined: false })).toEqual({ sign: 'unset' });
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const ev: Evaluation = { defined: true, value: v, type: typeof v === 'string' ? 'string' : 'object' };
        const r = signOf(ev);
        return (SIGNS as readonly unknown[]).includes(v) ? 'sign' in r : 'fault' in r;
      }),
    );
  });
});

describe('a sign never drops, hides or reorders an edge', () => {
  it('keeps every edge in order for any assignment of signs', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...SIGNS, undefined), { minLength: graph.edges.length, maxLength: graph.edges.length }), (assigned) => {
        let i = 0;
        const policy: LoadedPolicy = {
          engine: 'builtin',
          entrypoints: [],
          setData() {},
          evaluate(): Evaluation {
            const s = assigned[i++];
            return s === undefined ? { defined: false } : { defined: true, value: s, type: 'string' };
          },
        };
        const signed = signEdges(graph, policy).graph;
        expect(signed.edges.length).toBe(graph.edges.length);
        signed.edges.forEach((e, k) => {
          expect([e.from, e.to, e.kind, e.provenance]).toEqual([graph.edges[k]!.from, graph.edges[k]!.to, graph.edges[k]!.kind, graph.edges[k]!.provenance]);
          expect(e.sign).toBe(assigned[k] ?? 'unset');
        });
        expect(buildGraph({ nodes: signed.nodes, edges: signed.edges }).edges.length).toBe(graph.edges.length);
      }),
      { numRuns: 50 },
    );
  });
});
