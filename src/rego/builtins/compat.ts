/**
 * Builtins OPA keeps under old names (re_match, set_diff, net.cidr_overlap: the same functions as
 * regex.match, the set difference and net.cidr_contains), `trace` (a note for OPA's tracer; the
 * builtin engine has no tracer, so it only checks its operand, as OPA does with tracing off) and
 * net.cidr_contains_matches.
 */
import { ObjectValue, SetValue, type Value } from '../value.ts';
import { BuiltinError, lookupBuiltin, registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { set, str } from './args.ts';

/** Runs builtin `target` under the name `name`: OPA reports an alias's errors with the alias's name. */
function alias(name: string, target: string): BuiltinDef {
  return {
    name,
    arity: 2,
    fn: (a, ctx) => {
      try {
        return lookupBuiltin(target)!.fn!(a, ctx);
      } catch (e) {
        if (e instanceof BuiltinError && e.message.startsWith(`${target}: `)) throw new BuiltinError(e.code, `${name}: ${e.message.slice(target.length + 2)}`, { halt: e.halt });
        throw e;
      }
    },
  };
}

/** OPA's getCIDRMatchTerm: a CIDR string, or the first element of a non-empty array. */
function matchTerm(name: string, operand: number, x: Value): Value {
  if (typeof x === 'string') return x;
  if (Array.isArray(x) && x.length > 0) return x[0] as Value;
  throw new BuiltinError('eval_builtin_error', `${name}: operand ${operand}: element must be string or non-empty array`);
}

/**
 * Each (cidr, key) of an operand, lazily and in OPA's order (an element is checked when it is
 * reached): a string is its own key; arrays by index, sets by member, objects by key; any other
 * value has none.
 */
function* entries(name: string, operand: number, v: Value): Generator<[Value, Value]> {
  if (typeof v === 'string') yield [v, v];
  else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) yield [matchTerm(name, operand, v[i] as Value), i];
  else if (v instanceof SetValue) for (const x of v.values()) yield [matchTerm(name, operand, x), x];
  else if (v instanceof ObjectValue) for (const [k, x] of v.entries()) yield [matchTerm(name, operand, x), k];
}

function cidrContainsMatches(a: Value[], ctx: BuiltinContext): Value {
  const name = 'net.cidr_contains_matches';
  const contains = lookupBuiltin('net.cidr_contains')!.fn!;
  const out = new SetValue();
  for (const [c1, k1] of entries(name, 1, a[0] as Value)) {
    for (const [c2, k2] of entries(name, 2, a[1] as Value)) {
      ctx.budget?.work(1);
      let r: Value | undefined;
      try {
        r = contains([c1, c2], ctx);
      } catch (e) {
        if (e instanceof BuiltinError && e.message.startsWith('net.cidr_contains: ')) throw new BuiltinError(e.code, `${name}: ${e.message.slice('net.cidr_contains: '.length)}`);
        throw e;
      }
      if (r === true) out.add([k1, k2]);
    }
  }
  return out.seal();
}

export const COMPAT_BUILTINS: BuiltinDef[] = [
  alias('re_match', 'regex.match'),
  alias('net.cidr_overlap', 'net.cidr_contains'),
  {
    name: 'set_diff',
    arity: 2,
    fn: (a) => {
      const x = set('set_diff', a, 0);
      const y = set('set_diff', a, 1);
      const out = new SetValue();
      for (const v of x.values()) if (!y.has(v)) out.add(v);
      return out.seal();
    },
  },
  {
    name: 'trace',
    arity: 1,
    fn: (a) => {
      str('trace', a, 0);
      return true;
    },
  },
  { name: 'net.cidr_contains_matches', arity: 2, fn: cidrContainsMatches },
];

registerBuiltins(COMPAT_BUILTINS);
