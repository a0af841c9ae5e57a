/**
 * Disagreements with OPA v1.22.3 that the differential test (differential-opa.test.ts) found, each
 * answer as OPA gave it.
 */
import { describe, expect, it } from 'vitest';
import { fromJSON } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

describe('declared vars must be used (OPA: rego_compile_error "declared var x unused")', () => {
  it('a `some x` declaration nothing uses', () => {
    expect(err(() => run('package t\np if { some x; y := 1 }\n', 'x := data.t')).regoCode).toBe('rego_compile_error');
    expect(err(() => run('package t\np := [1 | some x; true]\n', 'x := data.t')).regoCode).toBe('rego_compile_error');
  });

  it('an `every` key or value its body does not use', () => {
    expect(err(() => run('package t\np if { every x in [1] { true } }\n', 'x := data.t')).regoCode).toBe('rego_compile_error');
    expect(err(() => run('package t\np if { every k, v in [1] { v } }\n', 'x := data.t')).regoCode).toBe('rego_compile_error');
  });

  it('a use in a nested body, the head, or `some x in` counts', () => {
    const m = 'package t\na if { every x in [1] { [1 | x] } }\nb := x if { some x; x = 1 }\nc if { some x in [1] }\nd if { some x; y := [1 | x = 1] }\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: true, b: 1, c: true, d: true } }]);
  });
});

describe('scopes', () => {
  it('each `else` body has its own variables (the arguments are shared)', () => {
    const m = 'package t\np := x if { x := 1; false } else := x if { x := 2 }\nf(a) := x if { x := a; false } else := x if { x := a + 1 }\nq := f(1)\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { p: 2, q: 2 } }]);
  });

  it('a var bound only inside an `every` body by unification, declared outside with `some`', () => {
    expect(run('package t\np if { some x; every y in [1] { x = y } }\n', 'x := data.t')).toEqual([{ x: { p: true } }]);
  });
});

describe('to_number errors (strict)', () => {
  it('what Go ParseFloat refuses is eval_builtin_error, Inf/NaN eval_type_error', () => {
    const q = (s: string) => err(() => run('package t\n', `x := to_number(${JSON.stringify(s)})`, { strict: true })).regoCode;
    expect(q('b')).toBe('eval_builtin_error');
    expect(q('')).toBe('eval_builtin_error');
    expect(q('1e400')).toBe('eval_builtin_error');
    expect(q('Inf')).toBe('eval_type_error');
    expect(q('NaN')).toBe('eval_type_error');
  });
});

describe('`a == b` as a statement is type-checked as `a = b`', () => {
  it('sides that can never be equal are a rego_type_error, also through a var assigned a literal', () => {
    for (const b of ['1 == "a"', 'x := 1; x == "a"', 'not true == {"a": 1}', 'x := {1}; x == {"a"}']) {
      expect(err(() => run(`package t\np if { ${b} }\n`, 'x := data.t')).regoCode).toBe('rego_type_error');
    }
  });

  it('as a value it is just false', () => {
    expect(run('package t\np := 1 == "a"\n', 'x := data.t')).toEqual([{ x: { p: false } }]);
  });
});

describe("a negated call's ref and call operands are evaluated outside the negation", () => {
  const m = `package t
a if { not count(input.n) > 0 }
b if { not startswith(input.s, "a") }
c if { not input.n == 1 }
d if { not input.n in {1} }
f(x) := x
g if { not f(input.n) }
h if { not is_array([input.n]) }
j if { not count([1 | input.n]) > 0 }
k if { not input.n }
o if { not is_array(r) }
r := input.n
`;

  it('an undefined operand makes the literal fail (OPA v1.22.3 without `future.keywords.not`)', () => {
    expect(run(m, 'x := data.t', { input: fromJSON({}) })).toEqual([{ x: { c: true, j: true, k: true } }]);
    expect(run('package t\n', 'not is_array(input.n)', { input: fromJSON({}) })).toEqual([]);
  });

  it('with `import future.keywords.not` (or all of future.keywords) the operands stay inside', () => {
    const m2 = m.replace('package t\n', 'package t\nimport future.keywords.not\n');
    expect(run(m2, 'x := data.t', { input: fromJSON({}) })).toEqual([{ x: { a: true, b: true, c: true, d: true, g: true, h: true, j: true, k: true, o: true } }]);
  });
});

describe('parsing', () => {
  it('`not` followed by a parenthesised expression is a negation', () => {
    expect(run('package t\np if { not (1 + 1) in {1} }\nq if { not(1) == 2 }\n', 'x := data.t')).toEqual([{ x: { p: true, q: true } }]);
  });
});

describe('builtins', () => {
  it('object.get: a key whose value is null is present', () => {
    const q = 'x := [object.get({"s": null}, "s", "none"), object.get({"s": [null]}, ["s", 0], "none"), object.get({"s": [null]}, ["s", 1], "none")]';
    expect(run('package t\n', q)).toEqual([{ x: [null, null, 'none'] }]);
  });

  it('sprintf names an extra integer argument int64, as Go sees OPA\'s numbers', () => {
    expect(run('package t\n', 'x := [sprintf("%v", [1, 2]), sprintf("%s", [1])]')).toEqual([{ x: ['1%!(EXTRA int64=2)', '%!s(int64=1)'] }]);
  });
});

describe("OPA's rule index decides which bodies run (strict builtin errors)", () => {
  // Answers from OPA v1.22.3 (`opa eval --strict-builtin-errors`): a body whose indexed conditions
  // fail is never evaluated, whatever the literal order, so its builtin errors are never raised.
  const m = `package t

f(a, b) := a

a := f(to_number("x"), input.n)

b if {
	to_number("x") > 1
	input.t == "k"
}

d := 1 if {
	false
} else := 2 if {
	to_number("x") > 1
	input.missing
} else := 3

e contains 1 if {
	to_number("x") > 1
	x := input.t
	x == "k"
}

h(s) := 1 if {
	to_number("x") > 1
	s == "k"
}

i := [h("j")]

default g(_) := 0

g(s) := 1 if {
	startswith(s, "a")
}
`;

  it('an undefined ref (also a hoisted call operand), a failing `ref == value` or argument test skips the body', () => {
    expect(run(m, 'x := data.t', { input: fromJSON({ t: 'j' }), strict: true })).toEqual([{ x: { d: 3, e: [] } }]);
  });

  it('when the conditions hold the body runs and raises', () => {
    for (const r of ['b', 'e']) expect(err(() => run(m, `x := data.t.${r}`, { input: fromJSON({ t: 'k' }), strict: true })).regoCode).toBe('eval_builtin_error');
  });

  it('an affix test on a function argument is not indexed', () => {
    expect(err(() => run(m, 'x := data.t.g(3)', { strict: true })).regoCode).toBe('eval_type_error');
  });
});

describe('nested calls are evaluated before the refs beside them (OPA hoists calls first)', () => {
  // OPA v1.22.3: each of these raises to_number's eval_builtin_error under --strict-builtin-errors
  // although input.missing is undefined; without strict mode they are empty.
  const m = `package t

a := [[input.missing, to_number("a")] | true]

b := [{input.missing: to_number("a")} | true]

c := {input.missing: to_number("a") | true}

d := [x | x := object.get(input.missing, "k", to_number("a"))]
`;

  it('strict: the call raises first', () => {
    for (const r of ['a', 'b', 'c', 'd']) expect(err(() => run(m, `x := data.t.${r}`, { strict: true })).regoCode).toBe('eval_builtin_error');
  });

  it('non-strict: undefined as before', () => {
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: [], b: [], c: {}, d: [] } }]);
  });
});

describe("a comprehension in another comprehension's head sees the vars its body binds", () => {
  it('was rego_unsafe_var_error; OPA v1.22.3 answers', () => {
    const m = `package t

a := {count([x1 | true]) | some x1 in [[1], [1, 2]]}

b := {x: [y | y := x + 1] | some x in [1, 2]}

c := [[x | some z in [1]] | some x in [1]]
`;
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: [1], b: { '1': [2], '2': [3] }, c: [[1]] } }]);
  });
});

describe('a key defined by a variable head and by a constant head', () => {
  it('different values conflict, equal values merge (OPA v1.22.3)', () => {
    const m = 'package t\n\nr2[data.d.ss[1]] := 5 if { true }\n\nr2[""] := 1 if { true }\n\nr3[data.d.ss[1]] := 1 if { true }\n\nr3[""] := 1 if { true }\n';
    const data = fromJSON({ d: { ss: [null, ''] } });
    expect(err(() => run(m, 'x := data.t.r2', { data })).regoCode).toBe('eval_conflict_error');
    expect(run(m, 'x := data.t.r3', { data })).toEqual([{ x: { '': 1 } }]);
  });
});

describe('an object literal that repeats a key term keeps the last value (OPA parser)', () => {
  it('the dropped value is never evaluated', () => {
    const m = 'package t\n\na := [k | some k, _ in {"a": (input.n % input.n), "a": 1, "b": 0.5}]\n\nf := [k | x := "a"; some k, _ in {x: input.n, x: 2}]\n\ng := {"a": input.n, "a": 3}\n';
    expect(run(m, 'x := data.t')).toEqual([{ x: { a: ['a', 'b'], f: ['a'], g: { a: 3 } } }]);
  });
});

describe("a function call continues the caller's body on its first value (OPA evalFunc)", () => {
  // OPA v1.22.3, --strict-builtin-errors: `a` is the conflict; in `b` the substring error after the
  // inner call comes first, the conflict among f4's definitions would only be seen after it.
  const m = `package t

f4(a0, a1) := a0 if {
	a0 < 100
	false
} else := 5

f4(a0, a1) := input.n if {
	a0 != 100
	input.b
}

f4(a0, a1) := a0 if {
	a0 < 0.5
	true
	x11 = a1
} else := -1

a := f4(-1, "")

b := f4(f4(-1, ""), substring(" x ", -1, 1))
`;
  const input = fromJSON({ n: { q: 1 }, s: 'b,a', b: true });

  it('the conflict when nothing fails after the call, else the later error', () => {
    expect(err(() => run(m, 'x := data.t.a', { input, strict: true })).regoCode).toBe('eval_conflict_error');
    expect(err(() => run(m, 'x := data.t.b', { input, strict: true })).regoCode).toBe('eval_builtin_error');
  });
});

describe('compile errors come from the first failing OPA stage', () => {
  it('an unsafe var is reported, not a type error of the later CheckTypes stage', () => {
    expect(err(() => run('package t\n\np if {\n\t1 == "a"\n}\n\nq if {\n\tzz > 1\n}\n', 'x := data.t')).regoCode).toBe('rego_unsafe_var_error');
  });

  it('a local-var error (RewriteLocalVars) before an unsafe var (CheckSafetyRuleBodies)', () => {
    expect(err(() => run('package t\n\np if {\n\tzz > 1\n}\n\nq if {\n\tx := 1\n\tx := 2\n}\n', 'x := data.t')).regoCode).toBe('rego_compile_error');
  });
});

describe('definitions that all have one constant value stop at the first that holds (OPA early exit)', () => {
  // OPA v1.22.3 --strict-builtin-errors: r and s are defined, u (values 1, 2, 1) raises.
  const m = `package t

r if {
	true
}

r if {
	to_number("a")
}

s := 1 if {
	true
}

s := 1 if {
	to_number("a")
}

u := 1 if {
	true
}

u := 2 if {
	false
}

u := 1 if {
	to_number("a")
}

g(x) := 1 if {
	true
}

g(x) := 1 if {
	to_number("a")
}
`;
  it('the later bodies are not evaluated', () => {
    expect(run(m, 'x := data.t.r', { strict: true })).toEqual([{ x: true }]);
    expect(run(m, 'x := data.t.s', { strict: true })).toEqual([{ x: 1 }]);
    expect(run(m, 'x := data.t.g(1)', { strict: true })).toEqual([{ x: 1 }]);
    expect(err(() => run(m, 'x := data.t.u', { strict: true })).regoCode).toBe('eval_builtin_error');
  });
});

describe('`every` bodies are not type-checked (OPA v1.22.3)', () => {
  it('a never-matching `==` or a bad operand inside one compiles', () => {
    for (const b of ['every x in [1] { x; 1 == "a" }', 'every x in [1] { contains(x, x); {"a": 1} == {} }', 'every x in set() { x; [1] = [1, 2] }']) {
      expect(run(`package t\n\np if {\n\t${b}\n}\n`, 'x := data.t')).toHaveLength(1);
    }
  });
});

describe("an object literal's entries are evaluated in OPA's key order", () => {
  it('sorted keys (numbers, strings, then calls), calls before refs', () => {
    // OPA v1.22.3 --strict-builtin-errors: the rem and count errors, not to_number's
    const m = 'package t\n\np := [x | x := {" x ": 1.5, type_name(input.b): to_number("a"), "1": (input.arr % 1)}]\n\nq := [x | x := {"b": to_number("a"), "a": count(input.num)}]\n';
    const input = fromJSON({ b: true, arr: [1], num: 1 });
    expect(err(() => run(m, 'x := data.t.p', { input, strict: true })).message).toContain('rem: operand 1');
    expect(err(() => run(m, 'x := data.t.q', { input, strict: true })).message).toContain('count: operand 1');
  });

  it('two call keys by their operator, segment by segment (concat before json.marshal)', () => {
    // OPA v1.22.3 --strict-builtin-errors: indexof's error, though json.marshal's key is undefined
    const m = 'package t\n\nr := [k | some k, _ in {json.marshal(input.xs): 1, concat("", ["a"]): indexof(input.s, "")}]\n';
    expect(err(() => run(m, 'x := data.t.r', { input: fromJSON({ s: 'b,a' }), strict: true })).message).toContain('indexof: empty search character');
  });
});

describe("a ref's ref and call keys are evaluated before its head", () => {
  it('input.missing[f(1)] still calls f (OPA v1.22.3, strict)', () => {
    const m = 'package t\n\nf(x) := 1 if {\n\tto_number("a")\n}\n\np := [y | y := input.missing[f(1)]]\n\nq := [y | y := input.o[r]]\n\nr := s if {\n\ts := to_number("b")\n}\n';
    for (const r of ['p', 'q']) {
      expect(err(() => run(m, `x := data.t.${r}`, { strict: true })).regoCode).toBe('eval_builtin_error');
      expect(run(m, `x := data.t.${r}`)).toEqual([{ x: [] }]);
    }
  });
});

describe('`some x in a in b` is `some (x in a) in b` (OPA parser)', () => {
  it('also across a line starting with `-`; the element call binds nothing: unsafe var', () => {
    for (const m of ['package t\n\np if {\n\tsome x7 in {"a"}\n\t-2.5 in set()\n}\n', 'package t\n\np if {\n\tsome x in [1] in [true]\n}\n']) {
      expect(err(() => run(m, 'x := data.t')).regoCode).toBe('rego_unsafe_var_error');
    }
  });
});

describe("OPA's rule index and early exit (strict; answers as opa eval gave them)", () => {
  const strict = (m: string, input?: unknown) => run(`package t\n${m}\n`, 'x := data.t', { strict: true, ...(input === undefined ? {} : { input: fromJSON(input) }) });

  it('`ref == call` indexes the ref as defined: the call moves into a local first, so an undefined ref skips the body', () => {
    expect(strict('r0 := 1 if {\n\tinput.s == substring("a", -1, 0)\n}', { n: 1 })).toEqual([{ x: {} }]);
    expect(strict('r0 := 1 if {\n\tsome x0 in ["b", "a"]\n\tinput.s = substring(x0, -1, 0)\n}', { n: 1 })).toEqual([{ x: {} }]);
    expect(err(() => strict('r0 := 1 if {\n\tinput.s == substring("a", -1, 0)\n}', { s: 'x' })).regoMessage).toBe('substring: negative offset');
  });

  it('a constant-valued body stops at its first solution only when every branch agrees on the value (no other else value)', () => {
    const body = '{\n\tx2 := input.xs[_]\n\tx3 = format_int(x2, 16)\n}';
    const input = { xs: [2.25, 10, [1]] };
    expect(err(() => strict(`r1 := ["b", "a"] if ${body} else := ["a"]`, input)).regoMessage).toBe('format_int: operand 1 must be number but got array');
    expect(strict(`r1 := ["b", "a"] if ${body} else := ["b", "a"]`, input)).toEqual([{ x: { r1: ['b', 'a'] } }]);
    expect(strict(`r1 := 1 if ${body}\nr1 := 1 if { false }`, input)).toEqual([{ x: { r1: 1 } }]);
    expect(err(() => strict(`r1 := 1 if ${body}\nr1 := 2 if { false }`, input)).regoCode).toBe('eval_type_error');
  });
});

describe('`some ... in` declares only the vars its pattern can bind', () => {
  it('in `some (x in xs) in ys` (a next line starting with `-` continues the expression) nothing is bound: x is unsafe, an argument inside is no redeclaration', () => {
    expect(err(() => run('package t\nf2(a0, a1) := a0 if {\n\tsome x9 in [1, a1]\n\t-2.5 in []\n}\n', 'x := data.t')).message).toBe('m0.rego:3: rego_unsafe_var_error: var x9 is unsafe');
    expect(err(() => run('package t\np if {\n\tsome x5 in {x6 | some x6 in [1]}\n\t-1 in [1]\n}\n', 'x := data.t')).message).toBe('m0.rego:3: rego_unsafe_var_error: var x5 is unsafe');
  });

  it('a var it binds that its collection also names is "assigned before"', () => {
    expect(err(() => run('package t\np if { some x in [x] }\n', 'x := data.t')).message).toBe('m0.rego:2: rego_compile_error: var x assigned before');
    expect(err(() => run('package t\np if { some k, v in {k: 1} }\n', 'x := data.t')).message).toBe('m0.rego:2: rego_compile_error: var k assigned before');
  });
});

describe('Rego v0 (answers as `opa eval --v0-compatible` gave them)', () => {
  it('has no template strings, even with `import rego.v1`', () => {
    const msg = (m: string) => err(() => run(`package t\n${m}\n`, 'x := data.t', { v0: true })).message;
    expect(msg('p = $"{x}"')).toBe('m0.rego:2: rego_parse_error: template strings are not supported by current capabilities');
    expect(msg('import rego.v1\np := $"{1}"')).toBe('m0.rego:3: rego_parse_error: template strings are not supported by current capabilities');
  });

  it('reads statements as v1 does where OPA does: bare builtin calls, f(), refs on calls, duplicate imports allowed', () => {
    const msg = (m: string) => err(() => run(`package t\n${m}\n`, 'x := data.t', { v0: true })).message;
    expect(msg('count(x)')).toBe('m0.rego:2: rego_parse_error: rule name conflicts with built-in function');
    expect(msg('f()')).toBe('m0.rego:2: rego_parse_error: rule argument list must take at least one argument');
    expect(msg('p { x := count([1])[0] }')).toBe('m0.rego:2: rego_type_error: undefined ref: count([1])[0]');
    expect(msg('[1][0]')).toBe('m0.rego:2: rego_parse_error: invalid rule head: [1][0]');
    expect(run('package t\nimport data.a\nimport data.a\np = 1\n', 'x := data.t.p', { v0: true })).toEqual([{ x: 1 }]);
  });
});

describe('calls in operands run before any lookup (strict; answers as opa eval gave them)', () => {
  it('an operand that looks up through a builtin call finds nothing: the later operands\' calls still run first', () => {
    const strict = (m: string, input: unknown) => err(() => run(`package t\n${m}\n`, 'x := data.t', { strict: true, input: fromJSON(input) })).regoMessage;
    expect(strict('p := indexof(split("", "a")[1], trim_right(input.s, "a"))', { s: [1] })).toBe('trim_right: operand 1 must be string but got array');
    expect(strict('p := [split("", "a")[1], trim_right(input.s, "a")]', { s: [1] })).toBe('trim_right: operand 1 must be string but got array');
    expect(strict('f2(a0, a1) := a1\np := f2(input.o[upper("aa")], split(input.s, "a")[0])', { s: null, o: {} })).toBe('split: operand 1 must be string but got null');
    expect(run('package t\np := indexof(split("", "a")[1], trim_right(input.s, "a"))\n', 'x := data.t', { strict: true, input: fromJSON({ s: 'x' }) })).toEqual([{ x: {} }]);
  });
});
