/**
 * Exact arithmetic on Rego numbers (see `value.ts` for the representation). Integers are exact at any size;
 * + - * on fractions are exact in decimal (so 0.1 + 0.2 is 0.3, as in OPA); division that does not come out
 * exact falls back to double precision.
 */
import {
  type NumberValue,
  Decimal,
  fromDecimalParts,
  normBigInt,
  normDouble,
  toBigInt,
  toDecimalParts,
  toDouble,
} from './value.ts';

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
  return decimalOp(a, b, '+');
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
  return decimalOp(a, b, '-');
}

export function numMul(a: NumberValue, b: NumberValue): NumberValue {
  if (bothSafeInts(a, b)) {
    const r = (a as number) * (b as number);
    return Number.isSafeInteger(r) ? (r === 0 ? 0 : r) : normBigInt(BigInt(a as number) * BigInt(b as number));
  }
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x !== undefined && y !== undefined) return normBigInt(x * y);
  return decimalOp(a, b, '*');
}

export function numIsZero(a: NumberValue): boolean {
  return a === 0;
}

/** Quotient; undefined when dividing by zero (callers raise OPA's "divide by zero"). */
export function numDiv(a: NumberValue, b: NumberValue): NumberValue | undefined {
  if (b === 0) return undefined;
  const x = toBigInt(a);
  const y = toBigInt(b);
  if (x !== undefined && y !== undefined && x % y === 0n) return normBigInt(x / y);
  // Exact when the quotient is a finite decimal of modest length.
  const p = toDecimalParts(a);
  const q = toDecimalParts(b);
  const scale = 40n;
  const num = p.m * 10n ** scale;
  if (num % q.m === 0n) return fromDecimalParts(num / q.m, p.e - q.e - Number(scale));
  const d = toDouble(a) / toDouble(b);
  if (!Number.isFinite(d)) return fromDecimalParts(num / q.m, p.e - q.e - Number(scale));
  return normDouble(d);
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
