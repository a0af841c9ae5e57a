/**
 * Core operators the parser desugars into calls: arithmetic (`+ - * / %`), comparison (`== != < <= > >=`),
 * set union/intersection (`| &`), membership (`in` -> internal.member_2 / internal.member_3) and `print`.
 */
import { numAdd, numDiv, numMul, numRem, numSub } from '../number.ts';
import { type Value, SetValue, ObjectValue, compareValues, isNumber, isSet, valueEquals } from '../value.ts';
import { toJSONText } from '../value-json.ts';
import { builtinError, operandError, registerBuiltins, type BuiltinDef } from './registry.ts';

function num(name: string, args: Value[], i: number) {
  const v = args[i] as Value;
  if (!isNumber(v)) throw operandError(name, i + 1, 'number', v);
  return v;
}

function setArg(name: string, args: Value[], i: number): SetValue {
  const v = args[i] as Value;
  if (!isSet(v)) throw operandError(name, i + 1, 'set', v);
  return v;
}

function setUnion(a: SetValue, b: SetValue): SetValue {
  const out = new SetValue(a.unordered());
  for (const v of b.unordered()) out.add(v);
  return out;
}

function setIntersect(a: SetValue, b: SetValue): SetValue {
  const out = new SetValue();
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  for (const v of small.unordered()) if (big.has(v)) out.add(v);
  return out;
}

function setDiff(a: SetValue, b: SetValue): SetValue {
  const out = new SetValue();
  for (const v of a.unordered()) if (!b.has(v)) out.add(v);
  return out;
}

/** Text of one `print` operand: strings raw, other values as JSON-like text. */
export function printText(v: Value | undefined): string {
  if (v === undefined) return '<undefined>';
  if (typeof v === 'string') return v;
  return formatValue(v);
}

/** Rego-syntax text of a value (sets as `{...}`, `set()` when empty), as OPA's print and sprintf show them. */
export function formatValue(v: Value): string {
  if (v instanceof SetValue) return v.size === 0 ? 'set()' : `{${v.values().map(formatValue).join(', ')}}`;
  if (v instanceof ObjectValue)
    return `{${v
      .entries()
      .map(([k, x]) => `${formatValue(k)}: ${formatValue(x)}`)
      .join(', ')}}`;
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`;
  return toJSONText(v);
}

const defs: BuiltinDef[] = [
  {
    name: 'plus',
    arity: 2,
    fn: (a) => numAdd(num('plus', a, 0), num('plus', a, 1)),
  },
  {
    name: 'minus',
    arity: 2,
    fn: (a) => {
      const x = a[0] as Value;
      const y = a[1] as Value;
      if (isNumber(x) && isNumber(y)) return numSub(x, y);
      if (isSet(x) && isSet(y)) return setDiff(x, y);
      if (!isNumber(x) && !isSet(x)) throw operandError('minus', 1, 'one of {number, set}', x);
      if (isNumber(x)) throw operandError('minus', 2, 'number', y);
      throw operandError('minus', 2, 'set', y);
    },
  },
  {
    name: 'mul',
    arity: 2,
    fn: (a) => numMul(num('mul', a, 0), num('mul', a, 1)),
  },
  {
    name: 'div',
    arity: 2,
    fn: (a) => {
      const r = numDiv(num('div', a, 0), num('div', a, 1));
      if (r === undefined) throw builtinError('div', 'divide by zero');
      return r;
    },
  },
  {
    name: 'rem',
    arity: 2,
    fn: (a) => {
      const r = numRem(num('rem', a, 0), num('rem', a, 1));
      if (r === 'zero') throw builtinError('rem', 'modulo by zero');
      if (r === 'float') throw builtinError('rem', 'modulo on floating-point number');
      return r;
    },
  },
  { name: 'equal', arity: 2, fn: (a) => valueEquals(a[0] as Value, a[1] as Value) },
  { name: 'neq', arity: 2, fn: (a) => !valueEquals(a[0] as Value, a[1] as Value) },
  { name: 'lt', arity: 2, fn: (a) => compareValues(a[0] as Value, a[1] as Value) < 0 },
  { name: 'lte', arity: 2, fn: (a) => compareValues(a[0] as Value, a[1] as Value) <= 0 },
  { name: 'gt', arity: 2, fn: (a) => compareValues(a[0] as Value, a[1] as Value) > 0 },
  { name: 'gte', arity: 2, fn: (a) => compareValues(a[0] as Value, a[1] as Value) >= 0 },
  { name: 'or', arity: 2, fn: (a) => setUnion(setArg('or', a, 0), setArg('or', a, 1)) },
  { name: 'and', arity: 2, fn: (a) => setIntersect(setArg('and', a, 0), setArg('and', a, 1)) },
  {
    name: 'internal.member_2',
    arity: 2,
    fn: (a) => {
      const x = a[0] as Value;
      const c = a[1] as Value;
      if (c instanceof SetValue) return c.has(x);
      if (Array.isArray(c)) return c.some((e) => valueEquals(e, x));
      if (c instanceof ObjectValue) {
        for (const [, v] of c.unordered()) if (valueEquals(v, x)) return true;
        return false;
      }
      return false;
    },
  },
  {
    name: 'internal.member_3',
    arity: 3,
    fn: (a) => {
      const k = a[0] as Value;
      const x = a[1] as Value;
      const c = a[2] as Value;
      if (Array.isArray(c)) {
        if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k >= c.length) return false;
        return valueEquals(c[k] as Value, x);
      }
      if (c instanceof ObjectValue) {
        const v = c.get(k);
        return v !== undefined && valueEquals(v, x);
      }
      if (c instanceof SetValue) return valueEquals(k, x) && c.has(x);
      return false;
    },
  },
  {
    name: 'print',
    arity: -1,
    fn: (a, ctx) => {
      ctx.print(a.map((v) => printText(v)).join(' '));
      return true;
    },
  },
];

registerBuiltins(defs);

