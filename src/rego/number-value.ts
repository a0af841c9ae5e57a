/**
 * Rego numbers (`NumberValue`), always in one canonical form so that `===` on numbers and bigints and
 * `Map` keys work for equality (and `1.0` is the number `1`):
 *   - JS `number` for safe integers (|n| <= 2^53-1) and for fractions whose exact decimal value equals
 *     the double's shortest decimal text (e.g. 0.1, 3.25);
 *   - JS `bigint` for integers outside the safe range (exact, any size);
 *   - `Decimal` for the rare fractions a double cannot hold exactly (e.g. 1e-400, 0.1234567890123456789):
 *     mantissa bigint and base-10 exponent.
 * Never build a bigint or a Decimal by hand: call `normNumber`, `parseNumber` or the ops in `number.ts`.
 * Here: the form, reading a literal, OPA's text of a number and the numeric order.
 */

export class Decimal {
  /** value = m * 10^e, m not divisible by 10, e < 0 or the value is too large for a bigint. */
  constructor(
    readonly m: bigint,
    readonly e: number,
  ) {}
  toString(): string {
    return decimalText(this.m, this.e);
  }
}

export type NumberValue = number | bigint | Decimal;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;
/** Integers whose exponent form exceeds this many digits are refused (they would be huge bigints). */
export const MAX_EXPONENT_DIGITS = 10000;

/** Canonical form of a bigint: a JS number when safe. */
export function normBigInt(b: bigint): number | bigint {
  return b <= MAX_SAFE && b >= MIN_SAFE ? Number(b) : b;
}

/** Canonical form of a double (must be finite): integers beyond the safe range become bigints. */
export function normDouble(n: number): NumberValue {
  if (Number.isInteger(n)) {
    if (Number.isSafeInteger(n)) return n === 0 ? 0 : n;
    return BigInt(n);
  }
  return n;
}

function pow10(k: number): bigint {
  return 10n ** BigInt(k);
}

function decimalText(m: bigint, e: number): string {
  if (e >= 0) return (m * pow10(e)).toString();
  const neg = m < 0n;
  let digits = (neg ? -m : m).toString();
  const k = -e;
  if (digits.length <= k) digits = '0'.repeat(k - digits.length + 1) + digits;
  const s = `${digits.slice(0, digits.length - k)}.${digits.slice(digits.length - k)}`;
  return neg ? `-${s}` : s;
}

/** Exact decimal (m, e) of a number value; for doubles, the value of its shortest decimal text. */
export function toDecimalParts(n: NumberValue): { m: bigint; e: number } {
  if (typeof n === 'bigint') return { m: n, e: 0 };
  if (n instanceof Decimal) return { m: n.m, e: n.e };
  if (Number.isInteger(n)) return { m: BigInt(n), e: 0 };
  const parts = splitDecimal(String(n));
  if (!parts) throw new RangeError(`not a finite number: ${n}`);
  return parts;
}

const NUM_RE = /^(-)?(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

function splitDecimal(text: string): { m: bigint; e: number } | undefined {
  const r = NUM_RE.exec(text);
  if (!r) return undefined;
  const int = r[2] ?? '0';
  const frac = r[3] ?? '';
  let m = BigInt(int + frac);
  if (r[1]) m = -m;
  const e = (r[4] ? Number(r[4]) : 0) - frac.length;
  return { m, e };
}

/** Canonical number from an exact decimal m * 10^e. */
export function fromDecimalParts(m: bigint, e: number): NumberValue {
  if (m === 0n) return 0;
  while (m % 10n === 0n) {
    m /= 10n;
    e += 1;
  }
  if (e >= 0) {
    if (e > MAX_EXPONENT_DIGITS) return new Decimal(m, e);
    return normBigInt(m * pow10(e));
  }
  const text = decimalText(m, e);
  const d = Number(text);
  if (Number.isFinite(d) && d !== 0 && !Number.isInteger(d)) {
    const back = splitDecimal(String(d));
    if (back) {
      let bm = back.m;
      let be = back.e;
      while (bm !== 0n && bm % 10n === 0n) {
        bm /= 10n;
        be += 1;
      }
      if (bm === m && be === e) return d;
    }
  }
  return new Decimal(m, e);
}

/** Parses a JSON/Rego number literal into its canonical value; undefined when the text is not a number. */
export function parseNumber(text: string): NumberValue | undefined {
  if (text.length <= 15 && /^-?\d+$/.test(text)) {
    const n = Number(text);
    return n === 0 ? 0 : n;
  }
  const parts = splitDecimal(text);
  if (!parts) return undefined;
  if (parts.e > MAX_EXPONENT_DIGITS && parts.m !== 0n) return undefined;
  return fromDecimalParts(parts.m, parts.e);
}

/** Canonical number from any JS number/bigint. */
export function normNumber(n: number | bigint): NumberValue {
  return typeof n === 'bigint' ? normBigInt(n) : normDouble(n);
}

/** True when the number has no fractional part. */
export function isInteger(n: NumberValue): boolean {
  if (typeof n === 'number') return Number.isInteger(n);
  if (typeof n === 'bigint') return true;
  return n.e >= 0;
}

/** Nearest double of a number value (lossy for bigints and Decimals). */
export function toDouble(n: NumberValue): number {
  if (typeof n === 'number') return n;
  if (typeof n === 'bigint') return Number(n);
  return Number(n.toString());
}

/** The exact integer of an integral number value, else undefined. */
export function toBigInt(n: NumberValue): bigint | undefined {
  if (typeof n === 'bigint') return n;
  if (typeof n === 'number') return Number.isInteger(n) ? BigInt(n) : undefined;
  return n.e >= 0 ? n.m * pow10(n.e) : undefined;
}

/** OPA's text for a number (as printed by sprintf `%v`, json.marshal, and result output). */
export function numberToString(n: NumberValue): string {
  if (typeof n === 'number') {
    if (Number.isInteger(n)) return n === 0 ? '0' : String(n);
    const s = String(n);
    if (!s.includes('e')) return s;
    const p = toDecimalParts(n);
    return decimalText(p.m, p.e);
  }
  if (typeof n === 'bigint') return n.toString();
  return n.toString();
}

export function compareNumbers(a: NumberValue, b: NumberValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = toDecimalParts(a);
  const y = toDecimalParts(b);
  const sx = x.m < 0n ? -1 : x.m > 0n ? 1 : 0;
  const sy = y.m < 0n ? -1 : y.m > 0n ? 1 : 0;
  if (sx !== sy) return sx < sy ? -1 : 1;
  if (sx === 0) return 0;
  const e = Math.min(x.e, y.e);
  // Compare magnitudes via digit counts first, to avoid building huge bigints.
  const dx = (x.m < 0n ? -x.m : x.m).toString().length + x.e;
  const dy = (y.m < 0n ? -y.m : y.m).toString().length + y.e;
  if (dx !== dy) return (dx < dy ? -1 : 1) * sx;
  const mx = x.m * pow10(x.e - e);
  const my = y.m * pow10(y.e - e);
  return mx < my ? -1 : mx > my ? 1 : 0;
}
