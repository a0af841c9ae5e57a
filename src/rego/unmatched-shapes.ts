/**
 * Unifications of two literal shapes that can never match (an array against an object, arrays of
 * different lengths, objects of different sizes or keys): the unbound vars OPA's output analysis
 * leaves unsafe in them, since such a unification binds nothing.
 */
import { varSlots } from './term-walk.ts';
import type { Term } from './ast.ts';
import { ObjectValue, type Value } from './value.ts';

type Shape = { kind: 'array'; items: Term[] } | { kind: 'object'; entries: [Term, Term][] } | undefined;

function shapeOf(t: Term): Shape {
  if (t.type === 'array') return { kind: 'array', items: t.items };
  if (t.type === 'object') return { kind: 'object', entries: t.entries };
  // a constant the compiler folded (`[1, 2, 3]`)
  const lit = (value: Value): Term => ({ type: 'value', value, loc: t.loc });
  if (t.type === 'value' && Array.isArray(t.value)) return { kind: 'array', items: t.value.map(lit) };
  if (t.type === 'value' && t.value instanceof ObjectValue) return { kind: 'object', entries: t.value.entries().map(([k, v]) => [lit(k), lit(v)] as [Term, Term]) };
  return undefined;
}

function constKey(t: Term): string | undefined {
  return t.type === 'value' && (t.value === null || typeof t.value !== 'object') ? `${typeof t.value}:${String(t.value)}` : undefined;
}

/**
 * The unbound vars a unification of two literal shapes that can never match leaves unsafe, as OPA's
 * output analysis finds them: all of them for an array against an object, arrays of different
 * lengths or objects of different sizes, those under the keys only one side has for objects of one
 * size with different constant keys.
 * Undefined when the shapes may match.
 */
export function unmatchedVars(a: Term, b: Term, bound: Set<number>): number[] | undefined {
  const x = shapeOf(a);
  const y = shapeOf(b);
  if (x === undefined || y === undefined) return undefined;
  const unbound = (ts: Term[]): number[] => {
    const out = new Set<number>();
    for (const t of ts) varSlots(t, out);
    return [...out].filter((s) => !bound.has(s));
  };
  const all = (s: NonNullable<Shape>): Term[] => (s.kind === 'array' ? s.items : s.entries.flat());
  if (x.kind !== y.kind || (x.kind === 'array' && y.kind === 'array' && x.items.length !== y.items.length)) return unbound([...all(x), ...all(y)]);
  if (x.kind !== 'object' || y.kind !== 'object') return undefined;
  if (x.entries.length !== y.entries.length) return unbound([...all(x), ...all(y)]);
  const xs = new Map(x.entries.map(([k, v]) => [constKey(k), v] as const));
  const ys = new Map(y.entries.map(([k, v]) => [constKey(k), v] as const));
  if (xs.has(undefined) || ys.has(undefined)) return undefined;
  const only = [...x.entries.filter(([k]) => !ys.has(constKey(k))), ...y.entries.filter(([k]) => !xs.has(constKey(k)))];
  if (only.length === 0) return undefined;
  return unbound(only.map(([, v]) => v));
}
