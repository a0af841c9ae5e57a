/** Array builtins: array.concat, array.slice, array.reverse, array.flatten. */
import { type Value } from '../value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { arr, int } from './args.ts';

/** One level of flattening, as OPA's array.flatten. */
function flatten(xs: readonly Value[], out: Value[]): Value[] {
  for (const x of xs) {
    if (Array.isArray(x)) out.push(...x);
    else out.push(x);
  }
  return out;
}

export const ARRAY_BUILTINS: BuiltinDef[] = [
  { name: 'array.concat', arity: 2, fn: (a) => [...arr('array.concat', a, 0), ...arr('array.concat', a, 1)] },
  {
    name: 'array.slice',
    arity: 3,
    fn: (a) => {
      const name = 'array.slice';
      const xs = arr(name, a, 0);
      const len = BigInt(xs.length);
      let start = int(name, a, 1);
      let stop = int(name, a, 2);
      if (start < 0n) start = 0n;
      if (stop > len) stop = len;
      if (start >= stop) return [];
      return xs.slice(Number(start), Number(stop));
    },
  },
  { name: 'array.reverse', arity: 1, fn: (a) => [...arr('array.reverse', a, 0)].reverse() },
  { name: 'array.flatten', arity: 1, fn: (a) => flatten(arr('array.flatten', a, 0), []) },
];

registerBuiltins(ARRAY_BUILTINS);
