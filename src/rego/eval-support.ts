/**
 * The evaluator's shared shapes and value helpers: continuations and frames, the state a `with`
 * swaps, the markers of cached-undefined and of terms left to the general path, and the small value
 * operations on documents (child lookup, ref paths, patching and merging objects, print's text).
 */
import type { FuncMemo } from './eval-plans.ts';
import type { CallTarget, Term } from './ast.ts';
import type { DataNode } from './compiler.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';

export type K = () => boolean;
export type VK = (v: Value) => boolean;
export type Frame = (Value | undefined)[];

/** Cache marker for "computed, and undefined" (`null` is a Rego value and cannot serve). */
export const UNDEF: unique symbol = Symbol('undefined');
export type Cached = Value | typeof UNDEF;

export interface WithState {
  input: Value | undefined;
  base: Value;
  /** Documents of rule nodes, keyed by node. */
  cache: Map<DataNode, Cached>;
  /** Merged values of rule-free nodes; created on first use. */
  valueCache: Map<DataNode, Cached> | undefined;
  /** Function results by callee, then by each argument; created on first use. */
  funcCache: Map<string, FuncMemo> | undefined;
  funcOverrides: Map<string, Override> | undefined;
  nodeOverrides: Map<DataNode, Value> | undefined;
}

type Override = { kind: 'value'; value: Value } | { kind: 'target'; target: CallTarget };

/** What `direct` answers for a term it leaves to the general, continuation-passing path. */
export const GENERAL: unique symbol = Symbol('general');
export type Direct = Value | undefined | typeof GENERAL;

export const EMPTY_OBJECT = new ObjectValue();

export function childOf(v: Value, key: Value, store = false): Value | undefined {
  if (v instanceof ObjectValue) {
    const c = v.get(key);
    // the store addresses object members by string: data.x[2] reads key "2"
    if (c === undefined && store && typeof key === 'number') return v.get(String(key));
    return c;
  }
  if (Array.isArray(v)) {
    if (typeof key === 'number' && Number.isInteger(key) && key >= 0 && key < v.length) return v[key];
    return undefined;
  }
  if (v instanceof SetValue) return v.has(key) ? key : undefined;
  return undefined;
}

export function isUnboundVar(t: Term, f: Frame): boolean {
  return t.type === 'var' && t.slot !== undefined && f[t.slot] === undefined;
}

export function isPattern(t: Term, f: Frame): boolean {
  switch (t.type) {
    case 'var':
      return t.slot !== undefined && f[t.slot] === undefined;
    case 'array':
      return t.items.some((i) => isPattern(i, f));
    case 'object':
      return t.entries.some(([, v]) => isPattern(v, f));
    default:
      return false;
  }
}

export function printValue(v: Value): string {
  if (v instanceof SetValue) return v.size === 0 ? 'set()' : `{${v.values().map(printValue).join(', ')}}`;
  if (v instanceof ObjectValue) return `{${v.entries().map(([a, b]) => `${printValue(a)}: ${printValue(b)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(printValue).join(', ')}]`;
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return 'null';
  return String(v);
}

export function refPath(t: Term): string[] | undefined {
  if (t.type === 'var') return [t.name];
  if (t.type !== 'ref' || t.head.type !== 'var') return undefined;
  const out = [t.head.name];
  for (const p of t.path) {
    if (p.type !== 'value' || typeof p.value !== 'string') return undefined;
    out.push(p.value);
  }
  return out;
}

export function childPath(v: Value | undefined, path: string[]): Value | undefined {
  let cur = v;
  for (const p of path) {
    if (cur === undefined) return undefined;
    cur = childOf(cur, p);
  }
  return cur;
}

/** A copy of `v` with the value at `path` replaced (objects created along the way). */
export function patchValue(v: Value, path: string[], leaf: Value): Value {
  if (path.length === 0) return leaf;
  const [head, ...rest] = path as [string, ...string[]];
  const obj = v instanceof ObjectValue ? new ObjectValue(v.unordered()) : new ObjectValue();
  const child = obj.get(head);
  obj.set(head, patchValue(child ?? EMPTY_OBJECT, rest, leaf));
  return obj;
}
