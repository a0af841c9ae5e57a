/**
 * Language and compiler details against the real `opa eval`, on generated programs: `in` and
 * `x, y in z` as terms (head values, arrays, objects, call arguments), trailing commas in calls,
 * `import rego.v1` / `rego.v2` / others, constant operands of the wrong type and wrong argument
 * counts (OPA's type check), names declared twice, parse errors in OPA's words (a `with` after a rule, a dangling `else`, a scalar ref head, ...),
 * time values outside int64 nanoseconds, and base documents at, beside and
 * below rule paths. Results must be equal; an error must have OPA's code and OPA's message.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { fromJSON, type Value } from '../../../src/rego/index.ts';
import { describeWithOpa } from '../../helpers/opa.ts';
import { engineOutcome, evalOutcome, show, type DiffCase, type Outcome } from '../../helpers/rego-differential.ts';

const scalar = fc.oneof(fc.constantFrom('null', 'true', 'false', '0', '1', '2.5', '-3', '"a"', '"k"', '""'));
const composite = fc.oneof(fc.constant('[]'), fc.constant('[1, "a"]'), fc.constant('{"k": 1}'), fc.constant('{1, 2}'), fc.constant('{"a": "k"}'), fc.constant('set()'));
const anyConst = fc.oneof(scalar, composite);
const comma = fc.constantFrom('', ',');

/** Malformed modules (and legal near-misses) whose refusal OPA words in its own way: each must get OPA's first error, or OPA's result. */
const PARSE_FORMS = [
  'q contains 1 with input as 2',
  'f(x) := 1 with input as 2',
  'r if { true } with input as 1',
  'p := 1 if { true } with input as 1',
  'default p := 1 with input as 1',
  'p.a := 1 with input as 1',
  'p[1] := 1 with input as 1',
  'p := 1\n\twith input as 1',
  'p := 1 with',
  'p := 1 else := 2',
  'f(x) := 1 else := 2',
  'p if { false } else := 2 else := 3',
  'p := 1 if { false } else := 2 if { true } else := 3',
  'default p := 1 else := 2',
  'p if { true with 1 as 2 }',
  'p if { true with }',
  'p if { true with input }',
  // refs start at a name, a composite or a call, never at a scalar
  'p := true.x',
  'p := null[0]',
  'p := "a".b',
  'p := 1[0]',
  'p := `a`.b',
  'p if { x := 1.5[0] }',
  'p := [1][0]',
  'p := {"a": 1}.a',
  'p := {1}[1]',
  'p := [x | x := 1][0]',
  'p if { true.foo == 1 }',
  'p := -1[0]',
  // an `else` takes a value, a body or both
  'p if { true } else',
  'p if { true } else\nq := 1',
  'p if { false } else q',
  'f(x) := 1 if { false } else',
  'p if { true } else if',
  'p if { false } else := 2 if',
  'p if { false } else\n{ true }',
  'p if { false } else with input as 1',
  'p if { false } else else',
  'p if { false } else = 2',
  'p if { false } else if true',
  'p if { false } else\n:= 3',
  // a body's literals are separated by newlines or `;`
  'p if { true false }',
  'p if { true and false }',
  'p if { true, 2 }',
  'p := [x | x := 1 2]',
  'p := {x | x := 1 2}',
  'p if { x := 1 with true as 1 }',
  // statements that are expressions cannot be rules
  '1',
  '"a"',
  'p := 1 true',
  '[x|x:=1]',
  '{"a": x} = {"a": 1}',
  '1 + 2',
  'null with input as 1',
  '-1',
  // a ref on a term that is no name, a call of a builtin's name, the empty set, a root document
  '[1][0]',
  '{"a": 1}.a',
  '[1][0] := 2',
  '[1][0] if true',
  '{1}[1]',
  '[x | x := 1][0]',
  '{x | x = 1}[0]',
  '{x: 1 | x == 1}.a',
  '[x | some x; x = count([1])][0]',
  '[x | x := 1; not x with input as 1][0]',
  'count([1])[0]',
  'count([1])',
  'input',
  'data',
  'set()',
  'set() := 1',
  'set()[0]',
  '[1][0] = 1',
  '[1][x]',
  'f(1)[0]',
  'f(1)[0] := 2',
  'count([1])[0] := 1',
  'plus(1, 2)',
  'io.jwt.decode(1)',
  'concat("", [])',
  'print(1)',
  'internal.member_2(1, [1])',
  '[1][0] contains 1',
  'count([1]) contains 1',
  'a.b(1) contains 1',
  'count([1]) if true',
  'count(x) := 1',
  'f(1)',
  'f(1)\n[0]',
  'set() if true',
  'count([1]) with input as 1',
  'input if true',
  // future imports: future.keywords, alone or with one keyword OPA knows, never aliased
  'import future.keywords.foo\np := 1',
  'import future\np := 1',
  'import future.foo\np := 1',
  'import future.keywords as k\np := 1',
  'import future.keywords[1]\np := 1',
  'import future.keywords.in.x\np if { true and true }',
  'import future["keywords"]\np := 1',
  // `some` takes vars, or one `x in xs` / `k, v in xs`
  'p if { some }',
  'p if { some 1 }',
  'p if { some x, }',
  'p if { some x == 1 }',
  'p if { some x in }',
  'p if { some x, y, z in [1] }',
  'p if { some := 1 }',
  'p if { some\nx; x = 1 }',
  'p if { some [x] in [[1]] }',
  'p if { some x, y in {"a": 1}; x == "a" }',
  // a keyword is no term
  'p := not true',
  'p := [not true]',
  'p if { x := not true }',
  'p := if { true }',
  'p contains if { true }',
  'p := f(else)',
  'p := {not: 1}',
  'p := contains',
  // numbers and strings as OPA's scanner reads them
  'p := 0x10',
  'p := 1e',
  'p := 1.',
  'p := 1.e5',
  'p := 1.5e+',
  'p := 1_0',
  'p := 01',
  'p := -01',
  'p := 0e5',
  'p := [1.0, 2e3, 0.5, 1.5E-3, -0]',
  'p := `abc',
  'p := "\\q"',
  'p := "\\uzzzz"',
  'p := "\\u00e9"',
  'p := !x',
  'p := $x',
  'p := 1 @ 2',
  // `every` takes `x in xs` or `k, v in xs` over vars, then a body
  'p if { every x in [1] }',
  'p if { every x in [1] { } }',
  'p if { every in [1] { true } }',
  'p if { every [x] in [[1]] { true } }',
  'p if { every 1, v in [1] { true } }',
  'p if { every x }',
  'p if { every x == 1 { true } }',
  'p if { every k, v in [1] { k >= 0; v > 0 } }',
  'p if { every x in [1]\n{ x > 0 } }',
  // composites, calls and refs name the token they wanted
  'p := [x | x := 1',
  'p := {1: 2, 3}',
  'p := {1, 2: 3}',
  'p := [1, 2',
  'p := {"a": 1}["a"',
  'p := [1 2]',
  'p := {1 2}',
  'p := {1: 2 3}',
  'p := count([1] 2)',
  'p if {',
  'p[x := 1',
  'p := {x: y | x := 1; y := 2',
  'p := {, 1, 2}',
  'p := [, 1]',
  'p := {, 1 | 2}',
  'p := [, x | x := 1]',
  'p := {, "a": x | x := 1}',
  // keywords as rule names, and statements that start with a keyword
  'every := 1',
  'if := 1',
  'not := 1',
  'import := 1',
  'contains := 1',
  'with := 1',
  'default := 1',
  'default 1 := 2',
  'default if := 1',
  'if true',
  'some x',
  'not x',
  'every x in [1] { true }',
  'p := 1\nif true',
  'p if true if true',
  'default p := 1 if true',
  'default p { true }',
  // default rules: one name alone (or a function) defaults to true
  'default p',
  'default f(x)\np := f(1)',
  'default p.q',
  'default p contains 1',
  // else only on single-value rules with ground heads
  'p contains x if { x := 1 } else := 2',
  'p[x] := 1 if { x := 1 } else := 2',
  'f(x) contains x',
  // a trailing `;` and a negated some
  'p := [x | x := 1;]',
  'p if { true ; }',
  'p if { not some x }',
  // imports: anywhere, aliases are names, no path ends with a keyword
  'p := 1\nimport data.x',
  'import data.foo as if\np := 1',
  'import data.foo as input\np := 1',
  'import data.foo as x.y\np := 1',
  'import 1\np := 1',
  'import data.foo.if\np := 1',
  'import data.foo.if as f\np := 1',
  // braced bodies after a body chain rules; a dot where a term starts is a decimal point
  'p if { true } { true }',
  'p := 1 if { false } { true }',
  'p if { false }\n{ true }',
  'p := input . a',
  'p.',
  'p if { x, y in }',
  'p if { true with f(1) as 1 }',
  // and / or once imported are keywords
  'import future.keywords.and\np if { and true }',
  'import future.keywords.and\np if { true with input as 1 and true }',
  'import future.keywords\np if { { } or true }',
  'import future.keywords\np if { some x in [1] and true }',
  'import future.keywords\np := and(1, 2)',
  'p if { true and false }',
  // what OPA finds only after the whole module parsed waits for any later syntax error
  'p\nq := 1 +',
  '1\np := [1',
  'contains := 1\np := 1 1',
  'p with input as 1',
  'p with input as 1\nq := ]',
  'f (x) := x',
  'f(x) := x\np := f (1)',
  'p := input [0]',
];

/** One generated module body (after `package t`), queried as `x := data.t.p`. */
const program: fc.Arbitrary<{ body: string; data?: unknown; strict?: boolean }> = fc.oneof(
  // `in` and `k, v in coll` wherever OPA takes a term
  fc.tuple(anyConst, anyConst).map(([a, c]) => ({ body: `p := ${a} in ${c}` })),
  fc.tuple(anyConst, anyConst, anyConst).map(([k, v, c]) => ({ body: `p := ${k}, ${v} in ${c}` })),
  fc.tuple(anyConst, anyConst, anyConst).map(([k, v, c]) => ({ body: `p contains ${k}, ${v} in ${c}` })),
  fc.tuple(anyConst, anyConst).map(([a, c]) => ({ body: `p := [${a} in ${c}, 0]` })),
  fc.tuple(anyConst, anyConst).map(([a, c]) => ({ body: `p := {"r": ${a} in ${c}}` })),
  fc.tuple(anyConst, anyConst).map(([a, c]) => ({ body: `f(v) := [v]\np := f(${a} in ${c})` })),
  fc.tuple(anyConst, anyConst, anyConst).map(([k, v, c]) => ({ body: `f(a) := 1 if false else := ${k}, ${v} in ${c}\np := f(0)` })),
  // trailing commas in calls (and in the collections inside them)
  fc.tuple(fc.constantFrom('count', 'sum', 'max', 'sort', 'is_array', 'type_name'), comma, comma).map(([f, c1, c2]) => ({ body: `p := ${f}([1, 2${c1}]${c2})` })),
  fc.tuple(comma, comma).map(([c1, c2]) => ({ body: `f(a, b${c1}) := [a, b]\np := f(1, 2${c2})` })),
  fc.tuple(comma).map(([c]) => ({ body: `p := concat("-", ["a", "b"]${c})` })),
  // imports of rego.*
  fc.tuple(fc.constantFrom('rego.v1', 'rego.v2', 'rego.v3', 'rego', 'rego.v1.x'), fc.constantFrom('p := 1', 'p if { true }', 'p { true }', 'p contains 1')).map(([i, r]) => ({ body: `import ${i}\n${r}` })),
  // constant operands of a type OPA's declaration rules out, and wrong argument counts
  fc.tuple(fc.constantFrom('contains', 'startswith', 'concat', 'count', 'sum', 'lower', 'numbers.range', 'array.slice', 'object.get', 'abs', 'plus', 'bits.and', 'sort', 'units.parse'), fc.array(anyConst, { minLength: 0, maxLength: 4 })).map(([f, args]) => ({ body: `p := ${f}(${args.join(', ')})` })),
  fc.tuple(anyConst, anyConst).map(([a, b]) => ({ body: `p := ${a} + ${b}` })),
  // time values outside int64 nanoseconds (strict: the error is the answer)
  fc.tuple(fc.constantFrom('time.date', 'time.clock', 'time.weekday', 'time.format'), fc.constantFrom('0', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '99999999999999999999', '1.5')).map(([f, n]) => ({ body: `p := ${f}(${n})`, strict: true })),
  fc.constantFrom('0', '9223372036854775807', '-9223372036854775808', '1700000000000000000').chain((n) => fc.integer({ min: -300, max: 300 }).map((y) => ({ body: `p := time.add_date(${n}, ${y}, 0, 0)`, strict: true }))),
  // declaring a name again: after an argument, a `some`, an `every`, a `:=` or a reference
  fc.tuple(fc.constantFrom('some x', 'x := 1', 'y := x', 'some x in [1]', 'x = 1'), fc.constantFrom('x := 2', 'some x', 'some x in [2]')).map(([a, b]) => ({ body: `p if { ${a}; ${b}; x }` })),
  fc.constantFrom('x := 2', 'some x', 'some x in [2]', 'x = 2').map((b) => ({ body: `f(x) if { ${b} }\np := f(2)` })),
  // `with` after a rule and `else` where no body precedes it, in OPA's words
  fc.constantFrom(...PARSE_FORMS).map((body) => ({ body })),
  // parse errors name the token as OPA's scanner does
  fc.constantFrom('--1', '- -1', '1 ]', 'count(,)', '{', ')', '[1, 2,', '1 +', '{"a": 1 %}', '1 == ==').map((v) => ({ body: `p := ${v}` })),
  // base documents at, beside and below rule paths
  fc.tuple(fc.constantFrom('p := 1', 'p contains 1', 'p.a := 1', 'p[k] := 1 if k := "a"', 'f(x) := 1\np := 2'), fc.constantFrom<unknown>({ p: 2 }, { q: 2 }, { p: { a: 2 } }, { p: { b: 2 } }, { f: 1 }, {})).map(([r, d]) => ({ body: r, data: { t: d } })),
);

/** The message without the location OPA and the engine print before the code. */
function messageOf(o: Outcome): string {
  if (o.kind !== 'error') return '';
  const first = o.message.split('\n')[0] ?? '';
  const at = first.indexOf(`${o.codes[0]}: `);
  return at >= 0 ? first.slice(at + (o.codes[0]?.length ?? 0) + 2) : first;
}

function agree(engine: Outcome, opa: Outcome): boolean {
  if (engine.kind === 'results' && opa.kind === 'results') return engine.results.join('\n') === opa.results.join('\n');
  if (engine.kind === 'error' && opa.kind === 'error') return engine.codes[0] === opa.codes[0] && messageOf(engine) === messageOf(opa);
  return false;
}

describeWithOpa('language details against opa eval', () => {
  it('each listed malformed module: the same error code and message (each legal near-miss: the same result)', () => {
    const disagree: string[] = [];
    for (const body of PARSE_FORMS) {
      const c: DiffCase = { modules: [{ name: 'm0.rego', text: `package t\n${body}\n` }], query: 'x := data.t.p' };
      const ours = engineOutcome(c);
      const opa = evalOutcome(c);
      if (!agree(ours, opa)) disagree.push(`${body}\n  engine: ${show(ours)}\n  opa:    ${show(opa)}`);
    }
    expect(disagree).toEqual([]);
  }, 60_000);

  it('generated programs: same results, or the same error code and message', () => {
    const programs = fc.sample(program, { numRuns: 400, seed: 20261201 });
    const disagree: string[] = [];
    for (const p of programs) {
      const c: DiffCase = {
        modules: [{ name: 'm0.rego', text: `package t\n${p.body}\n` }],
        query: 'x := data.t.p',
        ...(p.data !== undefined ? { data: fromJSON(p.data) as Value } : {}),
        ...(p.strict ? { strict: true } : {}),
      };
      const ours = engineOutcome(c);
      const opa = evalOutcome(c);
      if (!agree(ours, opa)) disagree.push(`${p.body.replace(/\n/g, ' | ')}${p.data ? ` with data ${JSON.stringify(p.data)}` : ''}\n  engine: ${show(ours)}\n  opa:    ${show(opa)}`);
    }
    expect(disagree).toEqual([]);
  }, 180_000);
});
