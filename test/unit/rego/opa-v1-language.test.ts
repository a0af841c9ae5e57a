/**
 * Language of OPA v1.22.3 beyond the visible corpus, each answer as the pinned `opa eval` gives it:
 * `and` / `or` and `not { body }`, template strings, keywords as ref heads, `k, v in xs` in
 * parentheses, numbers written `.5`, the conflict wording, and ref-head rules meeting at one key.
 * The whole of OPA's own corpus for these runs in opa-corpus.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { fromJSON } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

describe('and / or (import future.keywords.and / or, rego.v2)', () => {
  it('each operand holds at most once and keeps its bindings to itself', () => {
    const m = `package t
import future.keywords.and
import future.keywords.or
a if { x := 1; x > 0 } and { x := 2; x > 1 }
b if input.n > 5 or input.n < 0
c := [y | some y in [1, 2, 3]; y > 2 or y < 2]
d := count([1 | { some z in [1, 2, 3] } or true])
`;
    expect(run(m, 'x := data.t', { input: fromJSON({ n: -1 }) })).toEqual([{ x: { a: true, b: true, c: [1, 3], d: 1 } }]);
  });

  it('`and` binds tighter than `or`; parentheses group; `with` after the chain applies to all of it', () => {
    const m = `package t
import rego.v2
p if false and true or true
q if false and (true or true)
r if input.a or input.b with input as {"b": true}
`;
    expect(run(m, 'x := data.t')).toEqual([{ x: { p: true, r: true } }]);
  });

  it('`and` / `or` are keywords only in a module that imports them', () => {
    const ms = ['package t\nimport rego.v2\np if input.a or input.b\n', 'package t\nq := or if { or := 1 }\n'];
    expect(run(ms, 'x := data.t', { input: fromJSON({ b: true }) })).toEqual([{ x: { p: true, q: 1 } }]);
  });

  it('the right side of `or` is not evaluated when the left holds', () => {
    const m = 'package t\nimport future.keywords.or\np if true or to_number("x")\nq if false or to_number("x")\n';
    expect(run(m, 'x := data.t.p', { strict: true })).toEqual([{ x: true }]);
    expect(err(() => run(m, 'x := data.t.q', { strict: true })).regoCode).toBe('eval_builtin_error');
  });
});

describe('not { body } (import future.keywords.not)', () => {
  it('negates a whole body with its own locals', () => {
    const m = 'package t\nimport future.keywords.not\np if not { some x in [1, 2]; x > 5 }\nq if not { some x in [1, 2]; x > 1 }\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { p: true } }]);
  });
});

describe('template strings', () => {
  it('joins text and values, strings raw and the rest in Rego syntax, `<undefined>` for no value', () => {
    const m = 'package t\na := "foo"\np := $"{a} {1 + 2} {[1, "b"]} {{"k": set()}} {input.missing} \\{x}"\nq := $`multi\n{a}`\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: 'foo', p: 'foo 3 [1, "b"] {"k": set()} <undefined> {x}', q: 'multi\nfoo' } }]);
  });

  it('a `with` inside the braces applies to that expression alone', () => {
    const m = 'package t\nv := input.v\np := $"{v with input.v as 1} {v}"\n';
    expect(run(m, 'x := data.t.p', { input: fromJSON({ v: 2 }) })).toEqual([{ x: '1 2' }]);
  });
});

describe('a template string as a function parameter', () => {
  it('is built from the vars the body binds', () => {
    const m = 'package t\np := f("foo bar")\nq := g("a-1")\nr := f("x bar")\nf($"{x} {input.y}") := 42 if { x = "foo" }\ng($"{a}-{b}") := [a, b] if { some a in ["a"]; some b in [1, 2] }\n';
    expect(run(m, 'x := data.t', { input: fromJSON({ y: 'bar' }) })).toEqual([{ x: { p: 42, q: ['a', 1] } }]);
  });
});

describe('keywords as ref heads', () => {
  it('true.foo, not.x and if.a are rules named after keywords', () => {
    const m = 'package t\ntrue.foo := 1\nnot.x := 2\nif.a contains 3\np if {\n  true.foo == 1\n  not.x == 2\n  if.a == {3}\n}\n';
    expect(run(m, 'x := data.t.p')).toEqual([{ x: true }]);
  });
});

describe('terms', () => {
  it('`k, v in xs` inside parentheses, and `k, v in xs in ys`', () => {
    expect(run('package t\n', 'x := [(0, 2 in [2]), (1, 2 in [2]) in [false]]')).toEqual([{ x: [true, true] }]);
  });

  it('a number may start with its decimal point', () => {
    // (OPA keeps the literal's text `.5`, which its JSON output then refuses; computed with, it is 0.5)
    expect(run('package t\n', 'x := [.5 + 0, -.25 * 1, 1 + .5]')).toEqual([{ x: [0.5, -0.25, 1.5] }]);
  });

  it('unary minus before a name is minus(0, term); a parenthesized term must close', () => {
    const m = 'package t\na := x if { b := 1; x := -b }\nc := -input.n\nd := [- 3, 2 - -input.n, -count([1, 2])]\n';
    expect(run(m, 'x := data.t', { input: fromJSON({ n: 4 }) })).toEqual([{ x: { a: -1, c: -4, d: [-3, 6, -2] } }]);
    expect(err(() => run('package t\ndefault a = -b\n', 'x := 1')).regoMessage).toBe('illegal default rule (value cannot contain call)');
    expect(err(() => run('package t\ndefault a = (x = 5)\n', 'x := 1')).regoMessage).toBe('non-terminated expression');
  });

  it('a dot without a name after it is `unexpected <token> token: expected identifier`', () => {
    expect(err(() => run('package foo.', 'x := 1')).regoMessage).toBe('unexpected eof token: expected identifier');
    expect(err(() => run('package t\np := input.[1]\n', 'x := 1')).regoMessage).toBe('unexpected [ token: expected identifier');
  });
});

describe('a call whose ref argument binds a var another argument uses', () => {
  it('runs the ref first (`foo == input.foos[foo]`)', () => {
    const m = 'package t\np := foo if {\n  some foo\n  foo == input.foos[foo]\n}\n';
    expect(run(m, 'x := data.t.p', { input: fromJSON({ foos: { a: 'a', b: 1 } }) })).toEqual([{ x: 'a' }]);
  });
});

describe('recursion through a ref with a variable key', () => {
  it('counts only the rules its later constant keys reach', () => {
    expect(run('package t\np := data[x].q if x := "t"\nq := 1\n', 'x := data.t.p')).toEqual([{ x: 1 }]);
    expect(err(() => run('package t\np := data[x].p if x := "t"\n', 'x := 1')).regoMessage).toBe('rule data.t.p is recursive: data.t.p -> data.t.p');
  });
});

describe('negation', () => {
  it('every var of a negated expression must be bound first (a closure inside it has its own)', () => {
    const input = fromJSON({ a: [2, 3] });
    for (const [b, v] of [['not input.a[i] == 1', 'i'], ['not input.a[_] == 1', '_'], ['not input.a[i]', 'i']]) {
      expect(err(() => run(`package t\np if { ${b} }\n`, 'x := data.t.p', { input })).regoMessage).toBe(`var ${v} is unsafe`);
    }
    expect(run('package t\np if { i := 0; not input.a[i] == 1 }\nq if { not [x | x := input.a[i]][0] == 1 }\n', 'x := data.t', { input })).toEqual([{ x: { p: true, q: true } }]);
  });
});

describe('http.send, refused, still checks its request first', () => {
  it("unknown or missing keys are OPA's type errors", () => {
    const q = (req: string) => err(() => run('package t\n', `x := http.send(${req})`, { strict: true }));
    expect(q('{"method": "get", "url": "http://x", "bad_key": 1, "a": 2}').regoMessage).toBe('http.send: operand 1 invalid request parameters(s): {"a", "bad_key"}');
    expect(q('{"method": "get"}').regoMessage).toBe('http.send: operand 1 missing required request parameters(s): {"url"}');
    expect(q('{"method": "get", "url": "http://x"}').regoMessage).toContain('not supported by the builtin Rego engine');
  });
});

describe('calling a rule that is not a function', () => {
  it('is an arity error, also through an import and for a rule named like a builtin, an operator\'s too', () => {
    const ms = ['package lib\nx := 1\n', 'package t\nimport data.lib\np := lib.x(1)\n'];
    expect(err(() => run(ms, 'x := 1')).regoMessage).toBe('function data.lib.x has arity 0, got 1 argument');
    expect(err(() => run('package t3\ncount := 1\np := count([1])\n', 'x := 1')).regoMessage).toBe('function data.t3.count has arity 0, got 1 argument');
    expect(err(() => run('package t\nlt := 1\np := 1 < 2\n', 'x := 1')).regoMessage).toBe('function data.t.lt has arity 0, got 2 arguments');
  });
});

describe('conflicts, worded as OPA v1.22.3', () => {
  it('a complete rule lists the first value and each later one that differs, with its line', () => {
    const m = 'package test\n\np := 1 if true\np := 2 if true\np := 1 if true\np := 2 if true\np := 3 if true\n';
    expect(err(() => run(m, 'x := data.test.p')).regoMessage).toBe(
      'rule data.test.p produced conflicting values:\n  1 at m0.rego:3\n  2 at m0.rego:4\n  2 at m0.rego:6\n  3 at m0.rego:7',
    );
  });

  it('a function says so for the same inputs; an else branch is located at its else', () => {
    const f = 'package test\n\nf(x) := 1 if true\nf(x) := 2 if true\nf(x) := 3 if true\ng := f(1)\n';
    expect(err(() => run(f, 'x := data.test.g')).regoMessage).toBe(
      'function data.test.f produced conflicting values for the same inputs:\n  1 at m0.rego:3\n  2 at m0.rego:4\n  3 at m0.rego:5',
    );
    const e = 'package test\n\np := 1 if false\nelse := 2\n\np := 3 if true\n';
    expect(err(() => run(e, 'x := data.test.p')).regoMessage).toBe('rule data.test.p produced conflicting values:\n  2 at m0.rego:4\n  3 at m0.rego:6');
  });
});

describe('ref-head rules meeting at one key', () => {
  it('a variable ref and a constant ref join their sets and merge their paths', () => {
    expect(run('package t\np[k] contains 1 if k := "a"\np.a contains 2\n', 'x := data.t.p')).toEqual([{ x: { a: [1, 2] } }]);
    expect(run('package t\np[k].y := 2 if k := "a"\np.a.z := 3\n', 'x := data.t.p')).toEqual([{ x: { a: { y: 2, z: 3 } } }]);
  });

  it('they conflict where they disagree or one reaches inside another rule’s whole value', () => {
    expect(err(() => run('package t\np.a := {"x": 1}\np[k].y := 2 if k := "a"\n', 'x := data.t.p')).regoCode).toBe('eval_conflict_error');
    expect(err(() => run('package t\np[k].v := {"a": 1} if k := "x"\np[j].v.b := 2 if j := "x"\n', 'x := data.t.p')).regoCode).toBe('eval_conflict_error');
    expect(err(() => run('package t\np[q].r.s := i if q := ["a", "b"][i]\np.a.r := 42\n', 'x := data.t.p')).regoCode).toBe('eval_conflict_error');
  });
});
