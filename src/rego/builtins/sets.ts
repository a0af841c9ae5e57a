/** Set builtins: union and intersection of a set of sets. */
import { type Value, SetValue } from '../value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { elementError, set } from './args.ts';

function setsOf(name: string, a: Value[]): SetValue[] {
  const s = set(name, a, 0);
  return s.values().map((x) => {
    if (!(x instanceof SetValue)) throw elementError(name, 1, s, 'set', x);
    return x;
  });
}

export const SET_BUILTINS: BuiltinDef[] = [
  {
    name: 'union',
    arity: 1,
    fn: (a) => {
      const out = new SetValue();
      for (const s of setsOf('union', a)) for (const x of s.unordered()) out.add(x);
      return out;
    },
  },
  {
    name: 'intersection',
    arity: 1,
    fn: (a) => {
      const sets = setsOf('intersection', a);
      if (sets.length === 0) return new SetValue();
      const [first, ...rest] = sets;
      const out = new SetValue();
      for (const x of first!.unordered()) if (rest.every((s) => s.has(x))) out.add(x);
      return out;
    },
  },
];

registerBuiltins(SET_BUILTINS);
