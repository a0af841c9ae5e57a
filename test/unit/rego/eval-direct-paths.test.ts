/**
 * The evaluator's shortcuts answer as its general path does: literals of constants folded at
 * compile time, data refs that jump to the node their constant prefix names, calls of functions
 * with one matching definition and `x := term` bound without continuations, function results
 * memoised per argument, and definitions picked by a constant first argument.
 */
import { describe, expect, it } from 'vitest';
import { fromJSON } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

const pkg = 'package t\n';

describe('constant literals', () => {
  const m = `${pkg}
table := {"a": [1, {"b": 2}], "s": {2, 1, 1}, "k": 1, "k": 3}
kinds := {"GET", "POST"}
grown := object.union(table, {"new": true})
has_post if "POST" in kinds
nested := [x | some x in [[1, 2], [3]]]
`;

  it('are the values evaluating them gives (a repeated key keeps its last value, a set drops repeats)', () => {
    expect(run(m, 'x := data.t.table')).toEqual([{ x: { a: [1, { b: 2 }], s: [1, 2], k: 3 } }]);
    expect(run(m, 'x := data.t.has_post')).toEqual([{ x: true }]);
    expect(run(m, 'x := data.t.nested')).toEqual([{ x: [[1, 2], [3]] }]);
  });

  it('are shared but never changed by what is built from them', () => {
    expect(run(m, 'x := data.t.grown')).toEqual([{ x: { a: [1, { b: 2 }], s: [1, 2], k: 3, new: true } }]);
    expect(run(m, 'x := data.t.table with data.t.table.k as 9')).toEqual([{ x: { a: [1, { b: 2 }], s: [1, 2], k: 9 } }]);
    expect(run(m, 'x := data.t.table')).toEqual([{ x: { a: [1, { b: 2 }], s: [1, 2], k: 3 } }]);
  });
});

describe('data refs', () => {
  const m = `${pkg}
p := data.base.limit + 1
q := data.t.p * 2
deep := data.base.nested.inner[input.k]
whole := data.t.sub
sub.a := 1
sub.b := data.t.q
`;
  const data = fromJSON({ base: { limit: 4, nested: { inner: { x: 'X' } } } });

  it('read the base document, rule documents and whole subtrees', () => {
    expect(run(m, 'x := data.t.q', { data })).toEqual([{ x: 10 }]);
    expect(run(m, 'x := data.t.deep', { data, input: fromJSON({ k: 'x' }) })).toEqual([{ x: 'X' }]);
    expect(run(m, 'x := data.t.deep', { data, input: fromJSON({ k: 'y' }) })).toEqual([]);
    expect(run(m, 'x := data.t.whole', { data })).toEqual([{ x: { a: 1, b: 10 } }]);
  });

  it('see what `with` replaces', () => {
    expect(run(m, 'x := data.t.q with data.t.p as 100', { data })).toEqual([{ x: 200 }]);
    expect(run(m, 'x := data.t.q with data.base.limit as 0', { data })).toEqual([{ x: 2 }]);
  });
});

describe('function calls', () => {
  it('a single definition is answered whole, its conflicts still raised', () => {
    const m = `${pkg}
h(x) := y if { some y in [x, x + 1] }
once(x) := x * 10
r := once(2) + once(2)
bad := h(1)
`;
    expect(run(m, 'x := data.t.r')).toEqual([{ x: 40 }]);
    expect(err(() => run(m, 'x := data.t.bad')).regoCode).toBe('eval_conflict_error');
  });

  it('equal composite arguments give equal results, whether or not they are the same object', () => {
    const m = `${pkg}
size(o) := count(o)
r := [size({"a": 1}), size(input.o), size(input.o), size({"a": 2, "b": 3})]
`;
    expect(run(m, 'x := data.t.r', { input: fromJSON({ o: { a: 1 } }) })).toEqual([{ x: [1, 1, 1, 2] }]);
  });

  it('definitions with a constant first argument are picked by it', () => {
    const m = `${pkg}
k("a", x) := x + 1
k("b", x) := x + 2
k("b", x) := x + 2 if x > 0
k(1, x) := x + 3
two(x, _) := x if x == "t"
two(_, y) := y if y == "u"
`;
    expect(run(m, 'x := [data.t.k("a", 1), data.t.k("b", 1), data.t.k(1, 1)]')).toEqual([{ x: [2, 3, 4] }]);
    expect(run(m, 'x := data.t.k("c", 1)')).toEqual([]);
    expect(run(m, 'x := data.t.k({"a": 1}, 1)')).toEqual([]);
    expect(run(m, 'x := [data.t.two("t", 1), data.t.two(1, "u")]')).toEqual([{ x: ['t', 'u'] }]);
  });
});

describe('x := term', () => {
  it('binds either side and compares two known sides', () => {
    const m = `${pkg}
a := x if x := input.v
b := x if input.v = x
c if input.v = input.w
d := y if [1, y] = [1, input.v]
`;
    const input = fromJSON({ v: 5, w: 5 });
    expect(run(m, 'x := [data.t.a, data.t.b, data.t.c, data.t.d]', { input })).toEqual([{ x: [5, 5, true, 5] }]);
    expect(run(m, 'x := data.t.c', { input: fromJSON({ v: 5, w: 6 }) })).toEqual([]);
    expect(run(m, 'x := data.t.a', { input: fromJSON({}) })).toEqual([]);
  });
});
