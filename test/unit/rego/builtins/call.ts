/** Test helper: call a registered builtin directly with a fixed context. */
import '../../../../src/rego/builtins/index.ts';
import { type BuiltinContext, lookupBuiltin } from '../../../../src/rego/builtins/registry.ts';
import { type Value } from '../../../../src/rego/value.ts';
import { fromJSON } from '../../../../src/rego/value-json.ts';

export function ctx(now = 1_703_444_325_734_390_000n): BuiltinContext {
  let seed = 42;
  return {
    strict: true,
    now: () => now,
    random: () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    },
    cache: new Map(),
    print: () => undefined,
    location: '',
  };
}

export function call(name: string, ...args: Value[]): Value | undefined {
  const def = lookupBuiltin(name);
  if (def === undefined) throw new Error(`no builtin ${name}`);
  if (def.fn === undefined) throw new Error(`${name} is a relation`);
  return def.fn(args, ctx());
}

export function rel(name: string, ...args: Value[]): Value[] {
  const def = lookupBuiltin(name);
  if (def?.rel === undefined) throw new Error(`${name} is not a relation`);
  return def.rel(args, ctx());
}

export const j = fromJSON;
