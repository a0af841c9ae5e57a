/**
 * Rule documents shared across evaluations (SharedDocs in src/rego/eval.ts, found by
 * src/rego/data-only.ts, used by the builtin engine): which rules count as data-only, and
 * that sharing never changes an answer — not across inputs, not under `with`, not after the data
 * document is replaced, not for rules that fail.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { compileModules, fromJSON, toJSON, type Value } from '../../../src/rego/index.ts';
import type { SharedDocs } from '../../../src/rego/eval.ts';
import { dataOnlyNodes } from '../../../src/rego/data-only.ts';
import { loadBuiltin } from '../../../src/engines/builtin.ts';

function dataOnly(text: string, extra: string[] = []): string[] {
  const p = compileModules([{ name: 'p.rego', text }, ...extra.map((t, i) => ({ name: `x${i}.rego`, text: t }))]);
  return [...dataOnlyNodes(p.compiled)].map((n) => n.path.join('.')).sort();
}

describe('dataOnlyNodes', () => {
  it('keeps rules that read only data and other data-only rules, or call pure functions', () => {
    const text = `package p
import rego.v1
a contains k if { some k, v in data.d; v == true }
b := count(a)
up(s) := upper(s)
c := up("x")
d[k] := v if some k, v in data.d`;
    expect(dataOnly(text)).toEqual(['p.a', 'p.b', 'p.c', 'p.d']);
  });

  it('drops rules that read input, directly or through a rule or function', () => {
    const text = `package p
import rego.v1
i := input.x
j := i
f(x) := y if { y := input.y }
k := f(1)
g(x) := x
l := g(input.z)
ok := 1`;
    expect(dataOnly(text)).toEqual(['p.ok']);
  });

  it('drops rules using with, and rules calling builtins whose result depends on the evaluation', () => {
    const text = `package p
import rego.v1
base := 1
w := x if { x := base with data.d as 2 }
t := time.now_ns()
r := rand.intn("s", 10)
u := uuid.rfc4122("s")
pr if print("hi")
ok := base`;
    expect(dataOnly(text)).toEqual(['p.base', 'p.ok']);
  });

  it('drops a rule reading a subtree (a data ref with a variable step) that holds an input-dependent rule', () => {
    const text = `package p
import rego.v1
s := {k | some k; data.q[k]}
t := {k | some k; data.r[k]}`;
    const q = `package q
import rego.v1
x := input.x
y := 1`;
    const r = `package r
import rego.v1
z := 1`;
    expect(dataOnly(text, [q, r])).toEqual(['p.t', 'q.y', 'r.z']);
  });

  it('drops a rule that reads all of data, and a parent document holding an input-dependent child', () => {
    const text = `package p
import rego.v1
all := data
n := 1`;
    const child = `package p.sub
import rego.v1
x := input.x`;
    expect(dataOnly(text, [child])).toEqual(['p.n']);
  });

  it('finds the data-only sets of the example sign policies', () => {
    expect(dataOnly(readFileSync('examples/quickstart/signs.rego', 'utf8'))).toContain('toolgate.signs.violated');
    expect(dataOnly(readFileSync('examples/fleet/signs.rego', 'utf8'))).toEqual(
      expect.arrayContaining(['toolgate.signs.violated', 'toolgate.signs.held', 'toolgate.signs.eligible']),
    );
    expect(dataOnly(readFileSync('examples/fleet/signs.rego', 'utf8'))).not.toContain('toolgate.signs.sign');
    expect(dataOnly(readFileSync('examples/fleet/signs.rego', 'utf8'))).not.toContain('toolgate.signs.tool');
  });
});

const POLICY = `package p
import rego.v1
hot contains k if { some k, v in data.d; v == true }
answer := "hot" if { input.k in hot } else := "cold"
scoped := x if { x := hot with data.d as {"w": true} }
bad := 1 if data.flag
bad := 2 if data.flag`;

describe('SharedDocs in the evaluator', () => {
  const policy = compileModules([{ name: 'p.rego', text: POLICY }]);
  const nodes = dataOnlyNodes(policy.compiled);
  const ask = (ref: string, input: unknown, data: Value, shared?: SharedDocs) =>
    toJSON(policy.evalRule(ref, { input: fromJSON(input), data, ...(shared ? { shared } : {}) }) ?? null);

  it('computes a data-only document once and serves it to later evaluations with the same data', () => {
    const data = fromJSON({ d: { a: true, b: false, c: true } });
    const shared: SharedDocs = { nodes, data, docs: new Map() };
    expect(ask('data.p.answer', { k: 'a' }, data, shared)).toBe('hot');
    expect([...shared.docs.keys()].map((n) => n.path.join('.'))).toEqual(['p.hot']);
    for (const k of ['a', 'b', 'c', 'z']) expect(ask('data.p.answer', { k }, data, shared)).toBe(ask('data.p.answer', { k }, data));
  });

  it('ignores a SharedDocs made for another data value (identity, not equality)', () => {
    const d1 = fromJSON({ d: { a: true } });
    const shared: SharedDocs = { nodes, data: d1, docs: new Map() };
    expect(ask('data.p.answer', { k: 'a' }, d1, shared)).toBe('hot');
    const d2 = fromJSON({ d: { a: false } });
    expect(ask('data.p.answer', { k: 'a' }, d2, shared)).toBe('cold');
    expect(ask('data.p.answer', { k: 'a' }, fromJSON({ d: { a: true } }), shared)).toBe('hot');
  });

  it('never serves a shared document under with', () => {
    const data = fromJSON({ d: { a: true } });
    const shared: SharedDocs = { nodes, data, docs: new Map() };
    expect(ask('data.p.hot', {}, data, shared)).toEqual(['a']);
    expect(ask('data.p.scoped', {}, data, shared)).toEqual(['w']);
    expect(ask('data.p.hot', {}, data, shared)).toEqual(['a']);
  });

  it('caches no failure: a conflicting rule fails on every evaluation', () => {
    const data = fromJSON({ flag: true });
    const shared: SharedDocs = { nodes, data, docs: new Map() };
    expect(() => ask('data.p.bad', {}, data, shared)).toThrow();
    expect(() => ask('data.p.bad', {}, data, shared)).toThrow();
  });
});

describe('the builtin engine', () => {
  it('answers from the new data document after setData', () => {
    const policy = loadBuiltin([{ name: 'p.rego', text: POLICY }]);
    policy.setData({ d: { a: true } });
    expect(policy.evaluate({ k: 'a' }, 'data.p.answer')).toMatchObject({ value: 'hot' });
    policy.setData({ d: { a: false } });
    expect(policy.evaluate({ k: 'a' }, 'data.p.answer')).toMatchObject({ value: 'cold' });
  });

  it('gives the same signs with and without sharing on the example policies over many inputs', () => {
    for (const example of ['quickstart', 'fleet']) {
      const text = readFileSync(`examples/${example}/signs.rego`, 'utf8');
      const plain = compileModules([{ name: 's.rego', text }]);
      const engine = loadBuiltin([{ name: 's.rego', text }]);
      // A data document in the compile's shape: tools with claims, agents with decisions.
      const doc = {
        toolgate: {
          tools: Object.fromEntries(Array.from({ length: 12 }, (_, t) => [`s${t % 3}::t${t}`, { server: `s${t % 3}`, name: `t${t}`, annotations: t % 4 === 0 ? { destructiveHint: true } : {} }])),
          agents: Object.fromEntries(
            Array.from({ length: 4 }, (_, a) => [
              `a${a}`,
              { tools: Object.fromEntries(Array.from({ length: 12 }, (_, t) => t).filter((t) => (t + a) % 3 === 0).map((t) => [`s${t % 3}::t${t}`, { allow: t % 5 !== 0, reason: t % 5 === 0 ? (t % 2 ? 'DENY_VIOLATION' : 'DENY_GOVERNED') : null }])) },
            ]),
          ),
        },
      };
      engine.setData(doc);
      const d = fromJSON(doc);
      for (let t = 0; t < 14; t++) {
        for (const kind of ['invoke', 'read']) {
          const input = { edge: { from: 'x/server', to: `s${t % 3}/tool/t${t}`, kind, provenance: 'declared' }, from: { kind: 'server' }, to: { kind: kind === 'invoke' ? 'tool' : 'prompt' } };
          const want = toJSON(plain.evalRule('data.toolgate.signs.sign', { input: fromJSON(input), data: d })!);
          expect(engine.evaluate(input, 'data.toolgate.signs.sign'), `${example} ${kind} t${t}`).toMatchObject({ defined: true, value: want });
        }
      }
    }
  });
});
