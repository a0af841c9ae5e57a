/**
 * Object builtins: object.get, remove, filter, union, union_n, keys and subset.
 */
import { type Value, ObjectValue, SetValue, isNumber, mergeObjects, valueEquals } from '../value.ts';
import { toBigInt } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, arg, arr, elementError, obj, oneOfError } from './args.ts';

function keySet(name: string, v: Value): SetValue {
  if (Array.isArray(v)) return new SetValue(v);
  if (v instanceof SetValue) return v;
  if (v instanceof ObjectValue) return new SetValue(v.keys());
  throw oneOfError(name, 2, ['object', 'set', 'array'], v);
}

function arrayIndex(seg: Value, len: number): number | undefined {
  let i: bigint | undefined;
  if (typeof seg === 'string') {
    if (!/^(0|[1-9][0-9]*)$/.test(seg)) return undefined;
    i = BigInt(seg);
  } else if (isNumber(seg)) i = toBigInt(seg);
  if (i === undefined || i < 0n || i >= BigInt(len)) return undefined;
  return Number(i);
}

/** OPA's Value.Find over an array path: objects by key, arrays by index, sets by member. */
function findPath(v: Value, path: readonly Value[]): Value | undefined {
  let cur: Value = v;
  for (const seg of path) {
    if (cur instanceof ObjectValue) {
      const next = cur.get(seg);
      if (next === undefined) return undefined;
      cur = next;
    } else if (Array.isArray(cur)) {
      if (!isNumber(seg)) return undefined;
      const i = arrayIndex(seg, cur.length);
      if (i === undefined) return undefined;
      cur = cur[i]!;
    } else if (cur instanceof SetValue) {
      if (!cur.has(seg)) return undefined;
      cur = seg;
    } else return undefined;
  }
  return cur;
}

function isSubset(sup: Value, sub: Value): boolean {
  if (sup instanceof ObjectValue && sub instanceof ObjectValue) {
    for (const [k, v] of sub.unordered()) {
      const w = sup.get(k);
      if (w === undefined) return false;
      if (w instanceof ObjectValue && v instanceof ObjectValue) {
        if (!isSubset(w, v)) return false;
      } else if (w instanceof SetValue && v instanceof SetValue) {
        if (!isSubset(w, v)) return false;
      } else if (Array.isArray(w) && Array.isArray(v)) {
        if (!isSubset(w, v)) return false;
      } else if (!valueEquals(w, v)) return false;
    }
    return true;
  }
  if (sup instanceof SetValue && sub instanceof SetValue) {
    for (const x of sub.unordered()) if (!sup.has(x)) return false;
    return true;
  }
  if (Array.isArray(sup) && sub instanceof SetValue) {
    const s = new SetValue(sup);
    for (const x of sub.unordered()) if (!s.has(x)) return false;
    return true;
  }
  if (Array.isArray(sup) && Array.isArray(sub)) {
    if (sub.length === 0) return true;
    outer: for (let i = 0; i + sub.length <= sup.length; i++) {
      for (let j = 0; j < sub.length; j++) if (!valueEquals(sup[i + j]!, sub[j]!)) continue outer;
      return true;
    }
    return false;
  }
  return valueEquals(sup, sub);
}

export const OBJECT_BUILTINS: BuiltinDef[] = [
  {
    name: 'object.get',
    arity: 3,
    fn: (a) => {
      const o = obj('object.get', a, 0);
      const key = arg(a, 1);
      const dflt = arg(a, 2);
      // A key whose value is null is present: only undefined falls back to the default (`??` would not).
      const found = !Array.isArray(key) ? o.get(key) : key.length === 0 ? o : findPath(o, key);
      return found === undefined ? dflt : found;
    },
  },
  {
    name: 'object.remove',
    arity: 2,
    fn: (a) => {
      const o = obj('object.remove', a, 0);
      return o.without(keySet('object.remove', arg(a, 1)));
    },
  },
  {
    name: 'object.filter',
    arity: 2,
    fn: (a) => {
      const o = obj('object.filter', a, 0);
      const keys = keySet('object.filter', arg(a, 1));
      const out = new ObjectValue();
      for (const k of keys.unordered()) {
        const v = o.get(k);
        if (v !== undefined) out.set(k, v);
      }
      return out;
    },
  },
  {
    name: 'object.union',
    arity: 2,
    fn: (a) => mergeObjects(obj('object.union', a, 0), obj('object.union', a, 1)),
  },
  {
    name: 'object.union_n',
    arity: 1,
    fn: (a) => {
      const xs = arr('object.union_n', a, 0);
      let out = new ObjectValue();
      for (const x of xs) {
        if (!(x instanceof ObjectValue)) throw elementError('object.union_n', 1, xs, 'object', x);
        out = mergeObjects(out, x);
      }
      return out;
    },
  },
  { name: 'object.keys', arity: 1, fn: (a) => new SetValue(obj('object.keys', a, 0).keys()) },
  {
    name: 'object.subset',
    arity: 2,
    fn: (a) => {
      const sup = arg(a, 0);
      const sub = arg(a, 1);
      const kinds = (v: Value): boolean => v instanceof ObjectValue || v instanceof SetValue || Array.isArray(v);
      if (!kinds(sup)) throw oneOfError('object.subset', 1, ['object', 'set', 'array'], sup);
      if (!kinds(sub)) throw oneOfError('object.subset', 2, ['object', 'set', 'array'], sub);
      const same =
        (sup instanceof ObjectValue && sub instanceof ObjectValue) ||
        (sup instanceof SetValue && sub instanceof SetValue) ||
        (Array.isArray(sup) && (Array.isArray(sub) || sub instanceof SetValue));
      if (!same) {
        throw new BuiltinError('eval_type_error', 'object.subset: both arguments to object.subset must be of the same type or array and set');
      }
      return isSubset(sup, sub);
    },
  },
];

registerBuiltins(OBJECT_BUILTINS);
