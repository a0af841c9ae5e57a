/**
 * Rego arithmetic as OPA computes it (see `number-value.ts` for the representation). Integer + - * % are exact at
 * any size. Anything else runs, like OPA's `big.Float` path, on binary floats with a 64-bit mantissa
 * (round to nearest even): each operand is rounded to 64 bits, the result is rounded to 64 bits, and
 * the value kept is the shortest decimal that rounds back to it (Go's `Text('g', -1)`). So
 * `0.1 + 0.2` is 0.3 and `1 / 3` is 0.3333333333333333333, as in OPA. Division is exact only for
 * integers in OPA's int32 window that divide evenly; other quotients take the float path too.
 */
import { type NumberValue, Decimal, fromDecimalParts, normBigInt, toBigInt, toDecimalParts } from './number-value.ts';

function bothSafeInts(a: NumberValue, b: NumberValue): boolean {
  return typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b);
}

function decimalOp(a: NumberValue, b: NumberValue, op: '+' | '-' | '*'): NumberValue {
  const x = toDecimalParts(a);
  const y = toDecimalParts(b);
  if (op === '*') return fromDecimalParts(x.m * y.m, x.e + y.e);
  const e = Math.min(x.e, y.e);
  const mx = x.m * 10n ** BigInt(x.e - e);
  const my = y.m * 10n ** BigInt(y.e - e);
  return fromDecimalParts(op === '+' ? mx + my : mx - my, e);
}

export function numAdd(a: NumberValue, b: NumberValue): NumberValue {
  if (bothSafeInts(a, b)) {
    const r = (a as number) + (b as number);
    return Number.isSafeInteger(r) ? r : normBigInt(BigInt(a as number) + BigInt(b as number));
  }
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = toBigInt(a);
    const y = toBigInt(b);
    if (x !== undefined && y !== undefined) return normBigInt(x + y);
  }
  return floatOp(a, b, '+');
}

export function numSub(a: NumberValue, b: NumberValue): NumberValue {
  if (bothSafeInts(a, b)) {
    const r = (a as number) - (b as number);
    return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : normBigInt(BigInt(a as number) - BigInt(b as number));
  }
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const x = toBigInt(a);
    const y = toBigInt(b);
    if (x !== undefined && y !== undefined) return normBigInt(x - y);
  }
  return floatOp(a, b, '-');
}

export function numMul(a: NumberValue, b: NumberValue): NumberValue {
  if (bothSafeInts(a, b)) {
    const r = (a as number) * (b as number);
    return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : normBigInt(BigInt(a as number) * BigInt(b as number));
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x !== undefined && y !== undefined) return normBigInt(x * y);
  return floatOp(a, b, '*');
}

/** Quotient; undefined when dividing by zero (callers raise OPA's "divide by zero"). */
export function numDiv(a: NumberValue, b: NumberValue): NumberValue | undefined {
  if (b === 0 || (b instanceof Decimal && b.m === 0n)) return undefined;
  if (typeof a === 'number' && typeof b === 'number' && isSmallInt(a) && isSmallInt(b) && a !== 0 && a % b === 0) return a / b;
  return floatOp(a, b, '/');
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
function isSmallInt(n: number): boolean {
  return Number.isInteger(n) && n >= INT32_MIN && n <= INT32_MAX;
}

// ---------------------------------------------------------------- 64-bit-mantissa binary floats

/** value = m * 2^e with 2^63 <= |m| < 2^64 (or m = 0). */
interface Bin {
  readonly m: bigint;
  readonly e: number;
}

const P = 64;
const TWO_P = 1n << 64n;
const TWO_P1 = 1n << 63n;
/** Operands with decimal exponents beyond this stay on exact decimals (bounded work). */
const MAX_FLOAT_EXP10 = 4000;

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

/** The rational n / d (d > 0) rounded to a 64-bit mantissa, half to even. */
function roundRational(n: bigint, d: bigint): Bin {
  if (n === 0n) return { m: 0n, e: 0 };
  const neg = n < 0n;
  const an = neg ? -n : n;
  let k = bitLength(an) - bitLength(d) - P;
  for (;;) {
    const num = k >= 0 ? an : an << BigInt(-k);
    const den = k >= 0 ? d << BigInt(k) : d;
    let q = num / den;
    if (q >= TWO_P) {
      k++;
      continue;
    }
    if (q < TWO_P1) {
      k--;
      continue;
    }
    const r2 = (num - q * den) * 2n;
    if (r2 > den || (r2 === den && (q & 1n) === 1n)) q++;
    if (q === TWO_P) {
      q >>= 1n;
      k++;
    }
    return { m: neg ? -q : q, e: k };
  }
}

function pow2Rational(m: bigint, e: number): [bigint, bigint] {
  return e >= 0 ? [m << BigInt(e), 1n] : [m, 1n << BigInt(-e)];
}

function toBin(x: NumberValue): Bin {
  const { m, e } = toDecimalParts(x);
  return e >= 0 ? roundRational(m * 10n ** BigInt(e), 1n) : roundRational(m, 10n ** BigInt(-e));
}

function binOp(x: Bin, y: Bin, op: '+' | '-' | '*' | '/'): Bin {
  switch (op) {
    case '*':
      return roundRational(...pow2Rational(x.m * y.m, x.e + y.e));
    case '/': {
      const shift = x.e - y.e;
      const n = shift >= 0 ? x.m << BigInt(shift) : x.m;
      const d = shift >= 0 ? y.m : y.m << BigInt(-shift);
      return d < 0n ? roundRational(-n, -d) : roundRational(n, d);
    }
    default: {
      const e = Math.min(x.e, y.e);
      const mx = x.m << BigInt(x.e - e);
      const my = y.m << BigInt(y.e - e);
      return roundRational(...pow2Rational(op === '+' ? mx + my : mx - my, e));
    }
  }
}

function sameBin(a: Bin, b: Bin): boolean {
  return a.m === b.m && a.e === b.e;
}

/** The shortest decimal that rounds back to `v` (Go's `Text('g', -1)`); integers exactly ('f' format). */
function binToNumber(v: Bin): NumberValue {
  if (v.m === 0n) return 0;
  if (v.e >= 0) return normBigInt(v.m << BigInt(v.e));
  const [n, d] = pow2Rational(v.m, v.e);
  if (n % d === 0n) return normBigInt(n / d);
  const neg = n < 0n;
  const an = neg ? -n : n;
  // decimal exponent of the leading digit: 10^lead <= an/d < 10^(lead+1)
  let lead = an.toString().length - d.toString().length;
  const scaled = (k: number): [bigint, bigint] => (k >= 0 ? [an, d * 10n ** BigInt(k)] : [an * 10n ** BigInt(-k), d]);
  {
    const [x, y] = scaled(lead);
    if (x < y) lead--;
    else if (x >= y * 10n) lead++;
  }
  for (let digits = 1; digits <= 40; digits++) {
    const e = lead - digits + 1;
    const [x, y] = scaled(e);
    let q = x / y;
    const r2 = (x - q * y) * 2n;
    if (r2 > y || (r2 === y && (q & 1n) === 1n)) q++;
    const m = neg ? -q : q;
    const back = e >= 0 ? roundRational(m * 10n ** BigInt(e), 1n) : roundRational(m, 10n ** BigInt(-e));
    if (sameBin(back, v)) return fromDecimalParts(m, e);
  }
  return fromDecimalParts(neg ? -(an * 10n ** 40n) / d : (an * 10n ** 40n) / d, -40);
}

function floatOp(a: NumberValue, b: NumberValue, op: '+' | '-' | '*' | '/'): NumberValue {
  const x = toDecimalParts(a);
  const y = toDecimalParts(b);
  if (Math.abs(x.e) > MAX_FLOAT_EXP10 || Math.abs(y.e) > MAX_FLOAT_EXP10) {
    if (op === '/') return fromDecimalParts((x.m * 10n ** 40n) / y.m, x.e - y.e - 40);
    return decimalOp(a, b, op);
  }
  return binToNumber(binOp(toBin(a), toBin(b), op));
}

/** Remainder of integers (sign of the dividend); 'zero' for modulo by zero, 'float' for a non-integer operand. */
export function numRem(a: NumberValue, b: NumberValue): NumberValue | 'zero' | 'float' {
  if (bothSafeInts(a, b)) {
    if (b === 0) return 'zero';
    const r = (a as number) % (b as number);
    return r === 0 ? 0 : r;
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x === undefined || y === undefined) return 'float';
  if (y === 0n) return 'zero';
  return normBigInt(x % y);
}

export function numNeg(a: NumberValue): NumberValue {
  if (typeof a === 'number') return a === 0 ? 0 : -a;
  if (typeof a === 'bigint') return normBigInt(-a);
  return new Decimal(-a.m, a.e);
}
