/** OPA semantics the regorus corpus review turned up (each case checked against OPA's behaviour). */
import { describe, expect, it } from 'vitest';
import { compileModules, fromJSON, toJSON } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

describe('null-valued documents', () => {
  it('a rule whose value is null stays null when read again (not undefined)', () => {
    const m = 'package t\nfoo := input.a\nn := count(foo)\nm := foo == null\n';
    expect(err(() => run(m, 'x := data.t', { input: fromJSON({ a: null }), strict: true })).message).toContain(
      'count: operand 1 must be one of {array, object, set, string} but got null',
    );
    expect(run(m, 'x := data.t', { input: fromJSON({ a: null }) })).toEqual([{ x: { foo: null, m: true } }]);
  });

  it('a function returning null is memoised as null', () => {
    const m = 'package t\nf(_) := null\np := [f(1), f(1)]\n';
    expect(run(m, 'x := data.t.p')).toEqual([{ x: [null, null] }]);
  });
});

describe("parsing as OPA's parser does", () => {
  it('unary minus in front of a numeric literal or a name (OPA v1.22: minus(0, name)), nothing else', () => {
    expect(run('package t\nx := - 1\ny := -   # c\n  2\n', 'a := [data.t.x, data.t.y]')).toEqual([{ a: [-1, -2] }]);
    expect(run('package t\ny := 1\nx := - y\n', 'a := data.t.x')).toEqual([{ a: -1 }]);
    for (const src of ['package t\nx := - -1\n', 'package t\nx := -(1)\n']) {
      expect(err(() => run(src, 'x := 1')).regoCode).toBe('rego_parse_error');
    }
  });

  it('binary operators continue an expression on the next line', () => {
    const m = 'package t\np if {\n  input.x\n    == 5\n  input.y == 6\n}\nq := 1\n  + 2\n';
    expect(run(m, 'x := data.t', { input: fromJSON({ x: 5, y: 6 }) })).toEqual([{ x: { p: true, q: 3 } }]);
  });

  it('a comprehension needs a single-term head followed by |', () => {
    const m = `package t
x := {1}
y := {2}
a := [x | y, 5]
b := [x - {10} | y, 5 in {5}]
c := [(x - {10}) | y; 5 in {5}]
d := [1 | {3}]
q := {4}
e := [q & {1} | {true}]
f := [(q & {1}) | {true}]
g := {(1) | 1}
h := {({1} | {2})}
`;
    expect(run(m, 'x := data.t')).toEqual([
      {
        x: { x: [1], y: [2], q: [4], a: [[1, 2], 5], b: [[1, 2], true], c: [[1]], d: [1], e: [[true]], f: [[]], g: [1], h: [[1, 2]] },
      },
    ]);
  });

  it('`if` followed by a literal that is not a set literal: `p if { 1 | 1 }` is a comprehension', () => {
    const m = 'package t\nx if { 1 | 1 }\ny := v if { { 1 | 1 } = v }\nz if { 1:2 | some p in [1,2] }\nw if { false }\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { x: true, y: [1], z: true } }]);
  });

  it('v0 `p.q { ... }` and a bare `p.q` are partial sets; v0 `p[x] if` is a single-value (object) rule', () => {
    const m = 'package t\nold.style { true }\nr["s"] p1 { true }\no[x] if { x := "k" }\n';
    expect(run(m, 'x := data.t', { v0: true })).toEqual([{ x: { old: ['style'], r: ['s'], p1: true, o: { k: true } } }]);
    expect(err(() => run('package t\np.q\n', 'x := 1')).regoCode).toBe('rego_parse_error');
  });
});

describe('compile-time checks OPA makes', () => {
  it('unifications of literals whose shapes can never match are type errors, or leave their vars unsafe', () => {
    expect(err(() => run('package t\np if { [x, 1] = [2, "a"] }\n', 'x := 1')).regoCode).toBe('rego_type_error');
    // OPA's safety check comes first: these shapes bind nothing (or nothing under the unmatched keys)
    for (const [body, v] of [['[x] = {"key": 1}', 'x'], ['[x, y] = [1, 2, 3]', 'x'], ['{"a": x, "b": y} = {"a": 1, "c": 2}', 'y']]) {
      expect(err(() => run(`package t\np if { ${body} }\n`, 'x := 1')).regoMessage).toBe(`var ${v} is unsafe`);
    }
    // shapes that may match are fine, whatever the values
    expect(run('package t\np if { [x, 2] = [1, 3] }\nq if { {"a": x} = {"a": 1} }\n', 'x := data.t')).toEqual([{ x: { q: true } }]);
  });

  it('some ... in over a scalar, or with a pattern no element can match, is a type error', () => {
    for (const body of ['some _ in null', 'some _ in false', 'some _ in 0', 'some _ in ""', 'some [x, y] in [[1, 2, 3]]', 'some [1] in [1]']) {
      expect(err(() => run(`package t\np if { ${body} }\n`, 'x := 1')).regoCode).toBe('rego_type_error');
    }
    expect(run('package t\np if { some [1] in [[1, 2], [1]] }\n', 'x := data.t.p')).toEqual([{ x: true }]);
  });

  it('some cannot declare a variable assigned or referenced earlier in the same body', () => {
    expect(err(() => run('package t\np if {\n  v := 0\n  some v in [1, 2]\n}\n', 'x := 1')).regoCode).toBe('rego_compile_error');
    expect(err(() => run('package t\np if {\n  v = 0\n  some v in [1, 2]\n}\n', 'x := 1')).regoCode).toBe('rego_compile_error');
    // a comprehension is a new scope
    expect(run('package t\np := [v | some v in [1, 2]] if { v := 0; v == 0 }\n', 'x := data.t.p')).toEqual([{ x: [1, 2] }]);
  });

  it('a variable object key in a pattern must be bound first: the binding literal runs before', () => {
    const m = `package t
r := [t, c] if {
  source := {"target": {"v": 1}, "alt": {"v": 2}}
  {"target": {"v": t}, chosen: {"v": c}} = source
  chosen = "alt"
}
`;
    expect(run(m, 'x := data.t.r')).toEqual([{ x: [1, 2] }]);
  });
});

describe('default rules at ref-head paths', () => {
  it('defaults at distinct constant keys fill the keys no rule defined', () => {
    const m = 'package t\ndefault c[true] := "t"\ndefault c[false] := "f"\nc[false] := "rule" if input.x\nc["h"] := "w"\n';
    const r = compileModules([{ name: 'm.rego', text: m }], { regoVersion: 'v0' }).prepareQuery('x := data.t.c').evaluate({ input: fromJSON({ x: true }) });
    const c = r[0]?.bindings.get('x');
    expect(c && toJSON(c)).toEqual({ true: 't', false: 'rule', h: 'w' });
    expect(err(() => run('package t\ndefault c[true] := 1\ndefault c[true] := 2\n', 'x := 1')).regoCode).toBe('rego_type_error');
  });
});

describe("arithmetic as OPA's big.Float path computes it", () => {
  it('non-integer results are rounded to a 64-bit mantissa and kept as the shortest decimal', () => {
    const m = `package t
r := [0.1 + 0.2, 0.3 - 0.2, 0.1 * 0.2, 0.3 / 0.1, 15.3 / 3, 13 / 4, 1 / 3, -1 / 3, 2 / 1e18, 6 / 3, 0 / 5, 1.5 + 1]
`;
    expect(run(m, 'x := data.t.r')).toEqual([
      { x: [0.3, 0.1, 0.02, 3, 5.1, 3.25, 0.3333333333333333, -0.3333333333333333, 2e-18, 2, 0, 2.5] },
    ]);
    // the JS doubles above hide the 20th digit: compare the exact texts
    const ok = run(`${m}ok := [r[1] == 0.1, r[1] == 0.10000000000000000001, r[6] == 0.3333333333333333, r[6] == 0.33333333333333333334, r[0] == 0.3]\n`, 'x := data.t.ok');
    expect(ok).toEqual([{ x: [false, true, false, true, true] }]);
  });

  it('integers stay exact at any size', () => {
    const m = 'package t\nr := [sprintf("%v", [x]) | some x in [1e30 + 1, 9223372036854775807 + 1, 2147483647 * 2147483647]]\n';
    expect(run(m, 'x := data.t.r')).toEqual([{ x: ['1000000000000000000000000000001', '9223372036854775808', '4611686014132420609'] }]);
  });
});
