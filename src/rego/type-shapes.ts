/**
 * The shapes the type check reasons with: a term's shape as far as constants and literals tell it
 * (typecheck.ts), OPA's builtin declarations from the pinned capabilities, and whether a shape can
 * have a declared type (OPA's `unifies`).
 */
import { pinnedOpaCapabilities } from './builtins/capabilities.ts';
import type { Term } from './ast.ts';
import { ObjectValue, SetValue, typeName, type Value } from './value.ts';
import { valueKey } from './value-key.ts';

export type Shape =
  | { k: 'any' }
  | { k: 'null' | 'boolean' | 'number' | 'string' }
  | { k: 'array'; items: Shape[] }
  /** `keys` undefined: the object has a key that is not constant. */
  | { k: 'object'; keys: Map<string, Shape> | undefined }
  | { k: 'set'; of: Shape }
  | { k: 'union'; of: Shape[] };

export const ANY: Shape = { k: 'any' };

export function shapeOfValue(v: Value): Shape {
  const t = typeName(v);
  if (t === 'array') return { k: 'array', items: (v as Value[]).map(shapeOfValue) };
  if (t === 'set') return { k: 'set', of: union((v as SetValue).values().map(shapeOfValue)) };
  if (t === 'object') {
    const keys = new Map<string, Shape>();
    for (const [key, val] of (v as ObjectValue).entries()) keys.set(valueKey(key), shapeOfValue(val));
    return { k: 'object', keys };
  }
  return { k: t };
}

/** Shapes of local vars assigned (`:=`) a literal, by slot: OPA's checker knows their types too. */
export type VarShapes = Map<number, Shape>;

export function shapeOf(t: Term, vars?: VarShapes): Shape {
  switch (t.type) {
    case 'value':
      return shapeOfValue(t.value);
    case 'var':
      return (t.slot !== undefined ? vars?.get(t.slot) : undefined) ?? ANY;
    case 'array':
      return { k: 'array', items: t.items.map((x) => shapeOf(x, vars)) };
    case 'set':
      return { k: 'set', of: union(t.items.map((x) => shapeOf(x, vars))) };
    case 'object': {
      const keys = new Map<string, Shape>();
      for (const [key, val] of t.entries) {
        if (key.type !== 'value') return { k: 'object', keys: undefined };
        keys.set(valueKey(key.value), shapeOf(val, vars));
      }
      return { k: 'object', keys };
    }
    default:
      return ANY;
  }
}

/** OPA's `types.Or`: no alternatives (an empty collection) is "any". */
export function union(of: Shape[]): Shape {
  if (of.length === 0 || of.some((s) => s.k === 'any')) return ANY;
  if (of.length === 1) return of[0] as Shape;
  return { k: 'union', of };
}

/** Whether values of the two shapes can unify. */
export function compatible(a: Shape, b: Shape): boolean {
  if (a.k === 'any' || b.k === 'any') return true;
  if (a.k === 'union') return a.of.some((x) => compatible(x, b));
  if (b.k === 'union') return b.of.some((x) => compatible(a, x));
  if (a.k !== b.k) return false;
  if (a.k === 'array' && b.k === 'array') {
    return a.items.length === b.items.length && a.items.every((x, i) => compatible(x, b.items[i] as Shape));
  }
  if (a.k === 'object' && b.k === 'object') {
    if (!a.keys || !b.keys) return true;
    if (a.keys.size !== b.keys.size) return false;
    for (const [key, s] of a.keys) {
      const other = b.keys.get(key);
      if (!other || !compatible(s, other)) return false;
    }
    return true;
  }
  if (a.k === 'set' && b.k === 'set') return compatible(a.of, b.of);
  return true;
}

/** Key and element shapes of iterating a collection; undefined when it cannot be iterated. */
export function iteration(s: Shape): { key: Shape; value: Shape } | undefined {
  switch (s.k) {
    case 'any':
      return { key: ANY, value: ANY };
    case 'array':
      return { key: { k: 'number' }, value: union(s.items) };
    case 'set':
      return { key: s.of, value: s.of };
    case 'object':
      return s.keys ? { key: ANY, value: union([...s.keys.values()]) } : { key: ANY, value: ANY };
    case 'union': {
      const its = s.of.map(iteration).filter((x) => x !== undefined);
      if (its.length === 0) return undefined;
      return { key: union(its.map((x) => x.key)), value: union(its.map((x) => x.value)) };
    }
    default:
      return undefined;
  }
}

/** A type in OPA's builtin declarations (capabilities JSON). */
export interface DeclType {
  readonly type: string;
  readonly of?: DeclType | readonly DeclType[];
  readonly dynamic?: DeclType | { readonly key: DeclType; readonly value: DeclType };
  readonly static?: readonly DeclType[] | readonly { readonly key: unknown; readonly value: DeclType }[];
}

export interface BuiltinDecl {
  readonly args: readonly DeclType[];
  readonly result?: DeclType;
}

let decls: Map<string, BuiltinDecl> | undefined;

export function declOf(name: string): BuiltinDecl | undefined {
  if (decls === undefined) {
    decls = new Map();
    for (const b of pinnedOpaCapabilities().builtins) {
      const d = b.decl as { args?: DeclType[]; result?: DeclType } | undefined;
      // a builtin of no arguments is declared without `args`
      if (d && (Array.isArray(d.args) || (d.args === undefined && d.result))) decls.set(b.name, { args: d.args ?? [], ...(d.result ? { result: d.result } : {}) });
    }
  }
  return decls.get(name);
}

/** Whether a value of shape `s` can have the declared type (OPA's `unifies`: one member of a union suffices). */
export function fits(s: Shape, d: DeclType): boolean {
  if (s.k === 'any') return true;
  if (s.k === 'union') return s.of.some((x) => fits(x, d));
  if (d.type === 'any') return !Array.isArray(d.of) || d.of.length === 0 || (d.of as DeclType[]).some((x) => fits(s, x));
  if (s.k !== d.type) return false;
  if (s.k === 'array') {
    const fixed = (d.static as DeclType[] | undefined) ?? [];
    const rest = d.dynamic as DeclType | undefined;
    if (rest === undefined && fixed.length > 0 && fixed.length !== s.items.length) return false;
    return s.items.every((x, i) => {
      const want = fixed[i] ?? rest;
      return want === undefined || fits(x, want);
    });
  }
  if (s.k === 'set') return d.of === undefined || Array.isArray(d.of) || fits(s.of, d.of as DeclType);
  if (s.k === 'object' && s.keys) {
    const rest = (d.dynamic as { value: DeclType } | undefined)?.value;
    const fixed = (d.static as { key: unknown; value: DeclType }[] | undefined) ?? [];
    for (const [k, v] of s.keys) {
      const want = fixed.find((e) => valueKey(e.key as Value) === k)?.value ?? rest;
      if (want !== undefined && !fits(v, want)) return false;
    }
  }
  return true;
}

/**
 * The declared type of element `k` of an array (or of any element of a set) given where `d` is
 * declared; for a union, of each alternative of that kind (`concat`'s array[string] or
 * set[string]: a string). Undefined where `d` says nothing of it.
 */
export function elementType(kind: 'array' | 'set', k: number, d: DeclType): DeclType | undefined {
  if (d.type === 'any' && Array.isArray(d.of) && d.of.length > 0) {
    const of = (d.of as DeclType[]).filter((x) => x.type === kind).map((x) => elementType(kind, k, x));
    if (of.length === 0 || of.some((x) => x === undefined)) return undefined;
    return of.length === 1 ? of[0] : { type: 'any', of: of as DeclType[] };
  }
  if (d.type !== kind) return undefined;
  if (kind === 'array') return (d.static as DeclType[] | undefined)?.[k] ?? (d.dynamic as DeclType | undefined);
  return d.of !== undefined && !Array.isArray(d.of) ? (d.of as DeclType) : undefined;
}
