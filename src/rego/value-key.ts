/**
 * Value keys: a canonical string for each Rego value up to equality, which sets and objects hash
 * composite members by and memo tables key values by.
 */
import { Decimal, numberToString } from './number-value.ts';
import type { ObjectValue, Scalar, SetValue, Value } from './value.ts';

type CompKeyed = Value[] | SetValue | ObjectValue;
const arrayKeys = new WeakMap<Value[], string>();

export function scalarKeyText(v: Scalar | Decimal): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return `d${numberToString(v)}`;
    case 'bigint':
      return `d${v.toString()}`;
    case 'string':
      return JSON.stringify(v);
    default:
      return `d${(v as Decimal).toString()}`;
  }
}

/** A canonical string identifying a value up to Rego equality (e.g. for memo tables keyed by values). */
export function valueKey(v: Value): string {
  if (v === null || typeof v !== 'object' || v instanceof Decimal) return scalarKeyText(v as Scalar | Decimal);
  return compositeKey(v);
}

export function compositeKey(v: CompKeyed): string {
  if (Array.isArray(v)) {
    let k = arrayKeys.get(v);
    if (k === undefined) {
      k = `[${v.map(valueKey).join(',')}]`;
      arrayKeys.set(v, k);
    }
    return k;
  }
  return v.canonicalKey();
}
