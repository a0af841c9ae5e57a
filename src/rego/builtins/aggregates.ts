/** Aggregates: count, sum, product, max, min, sort, all, any. */
import { type Value, ObjectValue, SetValue, compareValues, isNumber } from '../value.ts';
import { type NumberValue } from '../number-value.ts';
import { numAdd, numMul } from '../number.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { arg, elementError, oneOfError, runeCount } from './args.ts';

function collection(name: string, args: Value[]): { whole: Value; items: readonly Value[] } {
  const v = arg(args, 0);
  if (Array.isArray(v)) return { whole: v, items: v };
  if (v instanceof SetValue) return { whole: v, items: v.values() };
  throw oneOfError(name, 1, ['set', 'array'], v);
}

function numbers(name: string, args: Value[]): NumberValue[] {
  const { whole, items } = collection(name, args);
  return items.map((x) => {
    if (!isNumber(x)) throw elementError(name, 1, whole, 'number', x);
    return x;
  });
}

export const AGGREGATE_BUILTINS: BuiltinDef[] = [
  {
    name: 'count',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (typeof v === 'string') return runeCount(v);
      if (Array.isArray(v)) return v.length;
      if (v instanceof SetValue || v instanceof ObjectValue) return v.size;
      throw oneOfError('count', 1, ['array', 'object', 'set', 'string'], v);
    },
  },
  { name: 'sum', arity: 1, fn: (a) => numbers('sum', a).reduce<NumberValue>((s, x) => numAdd(s, x), 0) },
  { name: 'product', arity: 1, fn: (a) => numbers('product', a).reduce<NumberValue>((s, x) => numMul(s, x), 1) },
  {
    name: 'max',
    arity: 1,
    fn: (a) => {
      const { items } = collection('max', a);
      if (items.length === 0) return undefined;
      return items.reduce((m, x) => (compareValues(x, m) > 0 ? x : m));
    },
  },
  {
    name: 'min',
    arity: 1,
    fn: (a) => {
      const { items } = collection('min', a);
      if (items.length === 0) return undefined;
      return items.reduce((m, x) => (compareValues(x, m) < 0 ? x : m));
    },
  },
  {
    name: 'sort',
    arity: 1,
    fn: (a) => {
      const { items } = collection('sort', a);
      return [...items].sort(compareValues);
    },
  },
  {
    name: 'all',
    arity: 1,
    fn: (a) => collection('all', a).items.every((x) => x === true),
  },
  {
    name: 'any',
    arity: 1,
    fn: (a) => collection('any', a).items.some((x) => x === true),
  },
];

registerBuiltins(AGGREGATE_BUILTINS);
