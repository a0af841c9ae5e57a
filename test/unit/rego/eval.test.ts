import { describe, expect, it } from 'vitest';
import { fromJSON, ObjectValue, RegoError, type Value } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

const pkg = 'package t\n';

describe('rules', () => {
  it('complete, default, partial set, partial object, functions', () => {
    const m = `${pkg}
default allow := false
allow if input.user == "bob"
s contains x if some x in [3, 1, 2]
o[k] := v if some k, v in {"a": 1, "b": 2}
f(x) := x * 2
f2(x) := y if { y := x + 1 }
r := [f(2), f2(2)]
`;
    expect(run(m, 'x := data.t', { input: fromJSON({ user: 'bob' }) })).toEqual([
      { x: { allow: true, s: [1, 2, 3], o: { a: 1, b: 2 }, r: [4, 3] } },
    ]);
    expect(run(m, 'x := data.t.allow', { input: fromJSON({ user: 'al' }) })).toEqual([{ x: false }]);
  });

  it('distinguishes undefined from false', () => {
    const m = `${pkg}p if false\nq := false`;
    expect(run(m, 'x := data.t.p')).toEqual([]);
    expect(run(m, 'x := data.t.q')).toEqual([{ x: false }]);
    expect(run(m, 'data.t.q')).toEqual([]);
    expect(run(m, 'not data.t.p')).toEqual([{}]);
  });

  it('ref heads build nested objects and sets', () => {
    const m = `${pkg}
a.b[x] := 1 if some x in ["k", "l"]
c.d[x] contains y if { some x in ["m"]; some y in [1, 2] }
`;
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: { b: { k: 1, l: 1 } }, c: { d: { m: [1, 2] } } } }]);
  });

  it('else chains and multiple function definitions', () => {
    const m = `${pkg}
g(x) := "neg" if x < 0
else := "zero" if x == 0
else := "pos"
h(1) := "one"
h(2) := "two"
`;
    expect(run(m, 'x := [data.t.g(-1), data.t.g(0), data.t.g(5), data.t.h(2)]')).toEqual([{ x: ['neg', 'zero', 'pos', 'two'] }]);
    expect(run(m, 'x := data.t.h(3)')).toEqual([]);
  });

  it('raises eval_conflict_error for complete rules and functions with several values', () => {
    expect(err(() => run(`${pkg}p := 1\np := 2`, 'x := data.t.p')).regoCode).toBe('eval_conflict_error');
    expect(err(() => run(`${pkg}f(_) := 1\nf(_) := 2`, 'x := data.t.f(0)')).regoCode).toBe('eval_conflict_error');
    expect(err(() => run(`${pkg}o[k] := v if { some k in ["a"]; some v in [1, 2] }`, 'x := data.t.o')).regoCode).toBe(
      'eval_conflict_error',
    );
  });

  it('merges base and virtual documents under data', () => {
    const m = `package a.b\nq := 1`;
    expect(run(m, 'x := data.a', { data: fromJSON({ a: { c: 2 } }) })).toEqual([{ x: { b: { q: 1 }, c: 2 } }]);
    expect(run(m, 'data.a[k]', { data: fromJSON({ a: { c: 2 } }) }).map((r) => (r as { k: string }).k).sort()).toEqual(['b', 'c']);
  });
});

describe('expressions', () => {
  it('unification binds both sides and destructures', () => {
    expect(run(pkg, '[x, {"a": y}] = [1, {"a": 2}]')).toEqual([{ x: 1, y: 2 }]);
    expect(run(pkg, '[1, x] = [y, 2]')).toEqual([{ x: 2, y: 1 }]);
    expect(run(pkg, '[x, 2] = [1, 3]')).toEqual([]);
  });

  it('iterates refs with variables and orders literals for safety', () => {
    expect(run(pkg, 'x > 1; x = [1, 2, 3][_]')).toEqual([{ x: 2 }, { x: 3 }]);
    expect(run(pkg, 'a := {"k": [10, 20]}; a[k][i] = v')).toEqual([
      { a: { k: [10, 20] }, k: 'k', i: 0, v: 10 },
      { a: { k: [10, 20] }, k: 'k', i: 1, v: 20 },
    ]);
  });

  it('comprehensions, negation, every, some in', () => {
    expect(run(pkg, 'x := {y | some y in [1, 2, 2]}')).toEqual([{ x: [1, 2] }]);
    expect(run(pkg, 'x := {k: v | some k, v in ["a", "b"]}')).toEqual([{ x: { '0': 'a', '1': 'b' } }]);
    expect(run(pkg, 'every x in [1, 2] { x > 0 }')).toEqual([{}]);
    expect(run(pkg, 'every x in [1, -2] { x > 0 }')).toEqual([]);
    expect(run(pkg, 'not 1 in [2, 3]')).toEqual([{}]);
    expect(run(pkg, 'x := 2 in {1, 2}')).toEqual([{ x: true }]);
  });

  it('set operators and arithmetic with big integers and exact decimals', () => {
    expect(run(pkg, 'x := {1, 2} | {3}; y := {1, 2} & {2}; z := {1, 2} - {1}')).toEqual([{ x: [1, 2, 3], y: [2], z: [2] }]);
    const r = run(pkg, 'x := 9223372036854775807 + 1; y := 0.1 + 0.2') as { x: bigint; y: number }[];
    expect(r[0]?.x).toBe(9223372036854775808n);
    expect(r[0]?.y).toBe(0.3);
  });

  it('with replaces input, data, functions and builtins for one expression', () => {
    const m = `${pkg}
p := input.a
q := data.d.e
f(x) := x
r := count([1, 2])
s := f(1)
`;
    expect(run(m, 'x := data.t.p with input.a as 5; y := data.t.q with data.d.e as 6')).toEqual([{ x: 5, y: 6 }]);
    expect(run(m, 'x := data.t.r with count as 42')).toEqual([{ x: 42 }]);
    expect(run(`${m}g(x) := 7`, 'x := data.t.s with data.t.f as data.t.g')).toEqual([{ x: 7 }]);
    expect(run(m, 'x := data.t.p', { input: fromJSON({ a: 1 }) })).toEqual([{ x: 1 }]);
  });

  it('builtin errors are undefined unless strict', () => {
    expect(run(pkg, 'x := 1 / 0')).toEqual([]);
    expect(err(() => run(pkg, 'x := 1 / 0', { strict: true })).regoCode).toBe('eval_builtin_error');
    expect(err(() => run(pkg, 'x := 1 + input.a', { strict: true, input: fromJSON({ a: 'a' }) })).regoCode).toBe('eval_type_error');
    // a constant operand of the wrong type is OPA's compile-time type error, strict or not
    expect(err(() => run(pkg, 'x := 1 + "a"')).regoCode).toBe('rego_type_error');
    expect(err(() => run(pkg, 'x := 1 + "a"')).regoMessage).toBe('plus: invalid argument(s)');
  });

  it('supports v0 syntax on request', () => {
    const m = `package t\np[x] { x := 1 }\nq { true }\nr = 3 { true }`;
    expect(run(m, 'x := data.t', { v0: true })).toEqual([{ x: { p: [1], q: true, r: 3 } }]);
  });
});

describe('compile errors', () => {
  it('unsafe variables, recursion, unknown functions and arity carry OPA codes and locations', () => {
    const unsafe = err(() => run(`${pkg}p if { x > 1 }`, 'data.t.p'));
    expect(unsafe.regoCode).toBe('rego_unsafe_var_error');
    expect(unsafe.at[0]).toMatchObject({ file: 'm0.rego', line: 2 });
    expect(err(() => run(`${pkg}p if q\nq if p`, 'data.t.p')).regoCode).toBe('rego_recursion_error');
    expect(err(() => run(`${pkg}p := nope(1)`, 'data.t.p')).regoCode).toBe('rego_type_error');
    expect(err(() => run(`${pkg}f(x) := x\np := f(1, 2, 3)`, 'data.t.p')).regoCode).toBe('rego_type_error');
    expect(err(() => run(`${pkg}p if { x := 1; x := 2 }`, 'data.t.p')).regoCode).toBe('rego_compile_error');
  });
});

describe('limits', () => {
  it('a step budget ends evaluation with a clear error', () => {
    const e = err(() => run(pkg, 'x := [i | some i in numbers.range(1, 100000)]', { maxSteps: 1000 }));
    expect(e.regoCode).toBe('eval_cancel_error');
    expect(e.code).toBe('REGO_LIMIT_EXCEEDED');
  });

  it('a deadline ends evaluation with a clear error', () => {
    const m = `${pkg}p := count([1 | some i in numbers.range(1, 3000); some j in numbers.range(1, 3000)])`;
    const e = err(() => run(m, 'x := data.t.p', { deadlineMs: 20 }));
    expect(e.regoCode).toBe('eval_cancel_error');
  });

  it('deep rule chains and deeply nested values never overflow the JS stack', () => {
    const n = 3000;
    const rules = Array.from({ length: n }, (_, i) => `p${i} := p${i + 1}`).join('\n');
    const e = err(() => run(`${pkg}${rules}\np${n} := 1`, 'x := data.t.p0'));
    expect(e.code).toBe('REGO_LIMIT_EXCEEDED');
    // two distinct deeply nested values, compared element by element
    const nest = (): unknown => {
      let v: unknown = 1;
      for (let i = 0; i < 100000; i++) v = [v];
      return v;
    };
    const r = (() => {
      try {
        return run(pkg, 'input == data.v', { input: nest() as Value, data: new ObjectValue([['v', nest() as Value]]) });
      } catch (x) {
        return x;
      }
    })();
    if (Array.isArray(r)) expect(r).toEqual([{}]);
    else expect(r instanceof RegoError && r.code === 'REGO_LIMIT_EXCEEDED').toBe(true);
  });
});

describe('terms with one value, computed without continuations', () => {
  // The evaluator computes constants, bound vars, refs through constant or bound keys and
  // deterministic builtins over them directly; everything else takes the general path. These
  // cases hold both paths to the same answers.
  const m = `${pkg}
p if input.a.b > 1
q if 1 / input.z > 0
s contains input.m[k] if some k in ["x", "y", "q"]
u contains upper(x.n) if some x in input.items
c if count(input.l) > 1
w contains y if y := input.l[_]
`;
  it('statements: defined, false and undefined refs', () => {
    expect(run(m, 'x := data.t.p', { input: fromJSON({ a: { b: 2 } }) })).toEqual([{ x: true }]);
    expect(run(m, 'x := data.t.p', { input: fromJSON({ a: { b: 1 } }) })).toEqual([]);
    expect(run(m, 'x := data.t.p', { input: fromJSON({ a: {} }) })).toEqual([]);
    expect(run(m, 'x := data.t.p', { input: fromJSON({ a: [1] }) })).toEqual([]);
    expect(run(m, 'x := data.t.p')).toEqual([]);
  });

  it('a builtin error is undefined, or raised at the call in strict mode', () => {
    expect(run(m, 'x := data.t.q', { input: fromJSON({ z: 0 }) })).toEqual([]);
    const e = err(() => run(m, 'x := data.t.q', { input: fromJSON({ z: 0 }), strict: true }));
    expect(e.regoCode).toBe('eval_builtin_error');
    expect([e.loc?.file, e.loc?.line]).toEqual(['m0.rego', 4]);
    expect(err(() => run(m, 'x := data.t.q', { input: fromJSON({ z: 'a' }), strict: true })).regoCode).toBe('eval_type_error');
  });

  it('partial-set heads: refs through a bound key, builtins over refs, iteration', () => {
    const input = fromJSON({ m: { x: 1, y: 2 }, items: [{ n: 'a' }, { n: 'b' }, { m: 'c' }], l: [3, 4, 3] });
    expect(run(m, 'x := data.t.s', { input })).toEqual([{ x: [1, 2] }]);
    expect(run(m, 'x := data.t.u', { input })).toEqual([{ x: ['A', 'B'] }]);
    expect(run(m, 'x := data.t.w', { input })).toEqual([{ x: [3, 4] }]);
  });

  it('a builtin replaced with `with` takes the general path', () => {
    const input = fromJSON({ l: [1] });
    expect(run(m, 'x := data.t.c', { input })).toEqual([]);
    expect(run(m, 'x := data.t.c with count as 5', { input })).toEqual([{ x: true }]);
    expect(run(m, 'x := data.t.u with upper as lower', { input: fromJSON({ items: [{ n: 'A' }] }) })).toEqual([{ x: ['a'] }]);
  });
});
