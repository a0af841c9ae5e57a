/** Number builtins: abs, round, ceil, floor, numbers.range, numbers.range_step, rand.intn. */
import { type Value } from '../value.ts';
import { type NumberValue, normBigInt, toDecimalParts, toBigInt } from '../number-value.ts';
import { numNeg } from '../number.ts';
import { registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { builtinError, int, num, str } from './args.ts';

type Mode = 'floor' | 'ceil' | 'round';

/** Integer rounding of an exact number. */
export function roundNumber(n: NumberValue, mode: Mode): NumberValue {
  const b = toBigInt(n);
  if (b !== undefined) return normBigInt(b);
  const { m, e } = toDecimalParts(n);
  const scale = 10n ** BigInt(-e);
  const neg = m < 0n;
  const a = neg ? -m : m;
  let q = a / scale; // truncated magnitude
  const r = a % scale;
  if (mode === 'round') {
    if (r * 2n >= scale) q += 1n;
  } else if (r !== 0n) {
    if (mode === 'floor' && neg) q += 1n;
    if (mode === 'ceil' && !neg) q += 1n;
  }
  return normBigInt(neg ? -q : q);
}

function absNumber(n: NumberValue): NumberValue {
  if (typeof n === 'number') return Math.abs(n);
  if (typeof n === 'bigint') return normBigInt(n < 0n ? -n : n);
  return n.m < 0n ? numNeg(n) : n;
}

const RANGE_LIMIT = 10_000_000n;

function range(name: string, lo: bigint, hi: bigint, step: bigint, ctx: BuiltinContext): Value[] {
  const n = (hi >= lo ? hi - lo : lo - hi) / step + 1n;
  // A limit, not a builtin error: OPA would build the range, so an undefined answer would be a different one.
  if (n > RANGE_LIMIT) {
    if (ctx.budget) ctx.budget.exceeded('bytes', `${name}: a range of ${n} elements, past ${RANGE_LIMIT}`);
    throw builtinError(name, `range of ${n} elements is too large`);
  }
  // charged before the array is built: nested ranges stop at the limit, not after building it
  ctx.budget?.alloc(Number(n));
  const out: Value[] = [];
  if (hi >= lo) for (let i = lo; i <= hi; i += step) out.push(normBigInt(i));
  else for (let i = lo; i >= hi; i -= step) out.push(normBigInt(i));
  return out;
}

export const NUMBER_BUILTINS: BuiltinDef[] = [
  { name: 'abs', arity: 1, fn: (a) => absNumber(num('abs', a, 0)) },
  { name: 'round', arity: 1, fn: (a) => roundNumber(num('round', a, 0), 'round') },
  { name: 'ceil', arity: 1, fn: (a) => roundNumber(num('ceil', a, 0), 'ceil') },
  { name: 'floor', arity: 1, fn: (a) => roundNumber(num('floor', a, 0), 'floor') },
  {
    name: 'numbers.range',
    arity: 2,
    fn: (a, ctx) => range('numbers.range', int('numbers.range', a, 0), int('numbers.range', a, 1), 1n, ctx),
  },
  {
    name: 'numbers.range_step',
    arity: 3,
    fn: (a, ctx) => {
      const name = 'numbers.range_step';
      const lo = int(name, a, 0);
      const hi = int(name, a, 1);
      const step = int(name, a, 2);
      // OPA v1.22.3 names the builtin twice in this message
      if (step <= 0n) throw builtinError(name, `${name}: step must be a positive integer`);
      return range(name, lo, hi, step, ctx);
    },
  },
  {
    name: 'rand.intn',
    arity: 2,
    nondeterministic: true,
    fn: (a, ctx) => {
      const name = 'rand.intn';
      const s = str(name, a, 0);
      const n0 = int(name, a, 1);
      const key = `rand.intn\u0000${s}\u0000${n0}`;
      const hit = ctx.cache.get(key);
      if (hit !== undefined) return hit;
      let n = n0 < 0n ? -n0 : n0;
      let r: Value = 0;
      if (n !== 0n) {
        if (n > BigInt(Number.MAX_SAFE_INTEGER)) n = BigInt(Number.MAX_SAFE_INTEGER);
        r = Math.floor(ctx.random() * Number(n));
      }
      ctx.cache.set(key, r);
      return r;
    },
  },
];

registerBuiltins(NUMBER_BUILTINS);
