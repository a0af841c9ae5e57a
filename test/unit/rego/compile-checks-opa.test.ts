/**
 * The compiler's checks of whole modules against the real `opa eval`, form by form: `print(...)`
 * where a value is wanted (void-calls.ts), rules that conflict in OPA's rule tree
 * (compiler-checks.ts checkConflicts), `with` targets (compiler-resolve.ts), functions referred to
 * and not called (typecheck.ts), a default function's arguments, the unsafe vars OPA names
 * (compiler-order.ts), assignment targets, and the vars of an `else` value (its own head). Each refusal
 * must have OPA's code and first line, each legal neighbour OPA's answer.
 */
import { expect, it } from 'vitest';
import { describeWithOpa } from '../../helpers/opa.ts';
import { formDisagreements } from '../../helpers/rego-differential.ts';

/** Where print is a value (refused) and where it is a statement (accepted), with constants and input only in its operands. */
const VOID_CALLS = [
  'p := print(1)',
  'p if { x := print("a") }',
  'p := [print(input.x)]',
  'p := {"k": print(1, 2)}',
  'p if { print(1) == true }',
  'p if { count([print(1)]) > 0 }',
  'p := [x | x := print(1)]',
  'p := print(["a", {"k": null}, {1, 2}, set()])',
  'p if { print(1) }',
  'p if { print(1)\n\tprint("x", input.y) }',
  'p := [x | x := 1; print(x)]',
  'p if { every x in [1] { print(x) } }',
];

/** A ground rule with rules inside its extent, a rule with a variable in its ref with functions inside, kinds, arities, defaults, and legal neighbours. */
const CONFLICTS = [
  'p := 1\np[1] := 2',
  'p := 1\np contains 1',
  'f(x) := 1\nf := 2',
  'f(x) := 1\nf(x, y) := 2',
  'p contains 1\np.q := 2',
  'p := 1\np[x] := 2 if { x := "a" }',
  'default p := 1\ndefault p := 2',
  'default c[true] := 1\ndefault c[true] := 2',
  'default c[true] := 1\ndefault c[false] := 2',
  'p.q.r := 1\np.q := 2\np := 3',
  'p[1] := 1\np[2] := 2',
  'p[1].a := 1\np[1] := 2',
  'p.q := 1\np := {}',
  'p.a.b := 1\np.a := 2',
  'f(x) := 1\np[x] := 1 if { x := 1 }\np.f(y) := 2',
  'p[x] := 1 if { x := "a" }\np.a := 2',
  'p contains 1\np[k] contains 2 if { k := "a" }',
  'p.q contains 1\np.r := 2',
  'p.q := 1\np.r := 2\np.s.t := 3',
  'input := 1',
  'data := 1',
];

/** The unsafe vars OPA names: what an assignment's value needs (not the vars it declares), a comprehension's body before its head. */
const UNSAFE = [
  'p if { x := y }',
  'p if { x = y }',
  'p := x if { x := y }',
  'p := {x | x := y}',
  'p := [x | x = y]',
  'p := [x | true]',
  'p := {k: v | k := y; v := 1}',
  'p if { [x, z] := [y, 1] }',
  'p if { x := y + 1 }',
];

/** Targets of `:=`: variables, arrays and object values of them; anything else refused by its kind. */
const ASSIGN_TARGETS = [
  'p if { [x, 1] := [2, 1] }',
  'p if { 1 := x }',
  'p if { [1] := x }',
  'p if { {"a": x} := {"a": 1} }',
  'p if { {"a": 1} := x }',
  'p if { {x: 1} := {"a": 1} }',
  'p if { "s" := x }',
  'p if { [x, "s", 2] := [1, "s", 2] }',
  'p if { input.x := 1 }',
  'p if { input := 1 }',
  'p if { f(x) := 1 }',
  'p if { {1, x} := {1, 2} }',
  'p if { [x, [y, 3]] := [1, [2, 3]] }',
  'p if { x := 1 }',
  // no assignment under `not`, whatever its target
  'p if { not x := 1 }',
  'p if { not [x] := [1] }',
  'p if { not 1 := 1 }',
  'p if { not input := 1 }',
  'p if { not input.x := 1 }',
  'p if { x := 1; not x := 2 }',
  'p := [1 | not x := 1]',
  'p if { every y in [1] { not x := y } }',
  'p if { not x = 1 }',
];

/** An else's value is a head of its own: its vars come from the arguments or its body. */
const ELSE_VALUES = [
  'p if { x := 1 } else := y',
  'p if { false } else := y if { y := 2 }',
  'f(x) := 1 if { false } else := x',
  'f(x) := 1 if { false } else := z',
  'p := 1 if { false } else := [y | y := 1]',
  'p if { false } else := {"a": y}',
];

/** `with` targets: unknown names, builtins OPA will not replace, part of a rule's value, and legal ones. */
const WITH_TARGETS = [
  'p := 1 if { true with foo as 1 }',
  'p := 1 if { true with foo.bar as 1 }',
  'p := 1 if { true with count as 1 }',
  'p := 1 if { true with print as 1 }',
  'p := 1 if { true with eq as 1 }',
  'p := 1 if { true with internal.member_2 as 1 }',
  'p := 1 if { true with rego.metadata.rule as 1 }',
  'p := 1 if { true with http.send as 1 }',
  'q := 1\np := 1 if { true with q as 2 }',
  'q := 1\np := 1 if { true with data.t.q.r as 2 }',
  'f(x) := 1\np := f(1) with f as 2',
  'p := x if { x := input.a with input.a as 1 }',
  'p := 1 if { true with time.now_ns as 1 }',
  'p := 1 if { true with foo as bar }',
  'p := 1 if { true with walk as 1 }',
  'q := 1\np := 1 if { true with data.t.q as 2 }',
  'q.r := 1\np := 1 if { true with data.t.q as 2 }',
  'q.r := 1\np := 1 if { true with data.t.q.r.s as 2 }',
  'p := 1 if { true with data.t.nothing.x as 2 }',
];

/** References to a function that do not call it, and the legal uses beside them (a call, a with value). */
const FUNCTION_REFS = [
  'f(x) := y if { y := x }\np := f',
  'f(x) := 1\np := f.x',
  'f(x) := 1\np := data.t.f',
  'f(x) := 1\np := [data.t.f[1]]',
  'f(x) := 1\np := f(1)',
  'f(x) := 1\np := 1 if { true with count as f }',
  'f(x) := 1\np := 1 if { true with count as data.t.f }',
  'f(x) := 1\np := [x | x := f]',
  'f(x) := 1\np := data.t',
  'f(x) := 1\np if { every x in [1] { f } }',
];

/** A default function's arguments: distinct variables, nothing else. */
const DEFAULT_ARGS = [
  'default f(x, 1) := 2',
  'default f("a") := 2',
  'default f([x]) := 2',
  'default f(x, x) := 2',
  'default f(_, _) := 2',
  'default f(x, y) := 2\np := f(1, 2)',
  'default f(input.x) := 2',
  'default f(true) := 2',
  'default f({"a": x}) := 2',
];

/** Two imports of one name (alias or last step), and the errors of OPA's stages that go on after theirs, sorted by place with the next stage's. */
const IMPORT_NAMES = [
  'import data.a\nimport data.a\np := 1',
  'import input.a\nimport data.a\np := 1',
  'import data.a\nimport data.b as a\np := 1',
  'import data.x.a as b\nimport input.b\np := 1',
  'import data.a as k\nimport data.b as k\np := 1',
  'import data.a["b-c"]\nimport data.q["b-c"]\np := 1',
  'import data.a\nimport data.a\nimport data.a\np := 1',
  'import data.a\nimport data.b\np := 1',
  'import future.keywords.in\nimport future.keywords.in\np := 1',
  'import rego.v1\nimport rego.v1\np := 1',
  'import rego.v1\nimport future.keywords.in\np := 1',
  'import future.keywords\nimport rego.v1\np := 1',
  'import data.a\nimport data.a\ninput := 1',
  'input := 1\nimport data.a\nimport data.a',
  'import data.a\nimport data.a\np if { input := 1 }',
  'import data.a\nimport data.a\np if { x := y }',
  'p if { input := 1 }\nq if { x := y }',
  'p if { x := y }\nq if { input := 1 }',
  'p if { x := y }\ninput := 1',
];

/** Refs into what a builtin returns: none into a declared scalar, only numbers into an array; any into `any` or a function's result. */
const CALL_REFS = [
  'p := count([1])[0]',
  'p if { count([1])[0] }',
  'p := count([1]).a',
  'p if { x := count([1])[0] }',
  'p := [x | x := concat(",", ["a"])[0]]',
  'p := time.now_ns()[0]',
  'p if { count([1])[0] == 1 }',
  'p := sum([1])[x]',
  'p := split("a", ",")["x"]',
  'p := split("a", ",")[0]',
  'p := is_number(1).a',
  'p if { count([1])[0] with input as 1 }',
  'p := 1 if { count(input)[0] with count as 3 }',
  'p := {count([1])[0]: 1}',
  'p := [1 | count([1])[0]]',
  'p if { some x in [count([1])[0]] }',
  'p := json.marshal(1)[0]',
  'p := object.get({}, "a", [1])[0]',
  'p := walk([1])[0]',
  'f(x) := [x]\np := f(1)[0]',
];

/** A head `f()` is a rule, not a function: calling it is an undefined function, as is calling any rule without arguments. */
const EMPTY_ARGS = [
  'f() := 1',
  'f() contains 1',
  'default f() := 1',
  'f() if true',
  'f() = 1',
  'f() := 1\np := f()',
  'f() := 1\np := f',
  'f() := 1\nf := 2',
  'f() := 1\nf(x) := 2',
  'default f() := 1\nf() := 2',
  'f() := 1 if { false } else := 2',
  'f.g() := 1',
  'f() := 1\np := data.t.f()',
  'f := 1\np := f()',
  'p if { data.t.q() }\nq := 1',
  'q.r := 1\np := q.r()',
  'q.r := 1\np := q()',
  'q.r := 1\np := q.r(1)',
  'q.r := 1\np := q(1)',
  'q.r(x) := 1\np := q.s(1)',
  'f()',
  'f() with input as 1',
  'count := 1\np := count([1])',
];

/** Template strings: a var expression is its one value, a var nothing else binds is undeclared, no ref on the string, no empty expression. */
const TEMPLATES = [
  'p := $"a{}"',
  'p := $"a{ }b"',
  'p := $"{x}"',
  'p if { $"{x}" == "1" }',
  'p := $"{x}" if { x := 1 }',
  'p := $"{x with input as 1}" if { x := 1 }',
  'p := $"{1}"[0]',
  'p := $"{1}".a',
  'p := $"{_}"',
  'p := $"{[1,2][_]}"',
  'p := $"{input[x]}"',
  'p := $"{input[x]}" if { x := "a" }',
  'p := $"{input[x][y]}"',
  'p := $"{count(input[x])}"',
  'p := $"{[y | y := 1]}"',
  'p := $"{[y | some y in [1]][x]}"',
  'f(x) := $"{input[x]}"\np := f("a")',
  'p := [$"{input[x]}" | some x in ["a"]]',
  'p := [$"{x}" | some x in [1, 2]]',
  'p := $"{input[_]}" if { true } else := 1',
  'p := 1 if { false } else := $"{input[x]}"',
  'p if { every x in [1] { $"{[1][y]}" == "" } }',
];

/** Numbers written as floats (1.0, 1e2, 2e308) keep their text in array literals, as OPA formats them by it. */
const WRITTEN_NUMBERS = [
  'p := sprintf("%f, %3.1f, %.3f", [0.0, 100.0, .0])',
  'p := sprintf("%f", [1e2])',
  'p if { sprintf("hi %v", [2e308], x) }',
  'p := sprintf("%v %d %f", [1.0, 1.0, 1.0])',
  'p := sprintf("%v", [-1e9])',
  'p := x if { a := [1.0]; x := sprintf("%v", a) }',
  'p := sprintf("%d", [1e2])',
  'p := sprintf("%v", [1.5e3])',
  'p := sprintf("%v", [[1.0]])',
  'p := sprintf("%s", [1.0])',
  'p := sprintf("%v", [1e400])',
  'p := sprintf("%v %v", [1.5e-3, 0.10])',
  'p := sprintf("%v", [{"a": [1.0]}])',
  'p := sprintf("%v", [1.0 + 0])',
  'p := json.marshal([1.0])',
  'p := json.marshal([1e2, 2])',
  'p := json.marshal({"a": [1.0]})',
  'p := json.marshal([1.5e3, 1.50, -0.0])',
  'p := [1.0] == [1]',
  'p := count({[1.0], [1]})',
  'p := [x | some x in [1.0, 2]]',
];

/** Each list with the query its modules are asked. */
const CHECKS: [string, readonly string[], string][] = [
  ['print where a value is wanted', VOID_CALLS, 'x := data.t.p'],
  ['rule conflicts', CONFLICTS, 'x := data.t'],
  ['with targets', WITH_TARGETS, 'x := data.t.p'],
  ['functions used as references', FUNCTION_REFS, 'x := data.t.p'],
  ['default function arguments', DEFAULT_ARGS, 'x := data.t.p'],
  ['unsafe vars', UNSAFE, 'x := data.t'],
  ['assignment targets', ASSIGN_TARGETS, 'x := data.t'],
  ['else values', ELSE_VALUES, 'x := data.t'],
  ['import names', IMPORT_NAMES, 'x := data.t'],
  ['refs into builtin results', CALL_REFS, 'x := data.t'],
  ['heads with no arguments', EMPTY_ARGS, 'x := data.t'],
  ['template strings', TEMPLATES, 'x := data.t'],
  ['numbers written as floats', WRITTEN_NUMBERS, 'x := data.t'],
];

describeWithOpa('compile checks against opa eval', () => {
  it.each(CHECKS)('%s', (_, forms, query) => {
    expect(formDisagreements(forms, query)).toEqual([]);
  }, 60_000);
});
