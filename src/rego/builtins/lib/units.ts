/**
 * units.parse / units.parse_bytes as OPA computes them: the amount is read as an exact rational
 * (decimal, optional exponent), multiplied by the unit; units.parse answers an integer or a decimal
 * rounded to 10 places, units.parse_bytes an integer (truncated toward zero).
 * Results are decimal strings; the caller turns them into numbers.
 */

export class UnitsError extends Error {}

const MAX_EXPONENT_DIGITS = 6;

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Split "10.5Ki" into ["10.5", "Ki"]. Throws "exponent too large" as OPA does. */
export function splitAmountAndUnit(s: string, prefix: string): [string, string] {
  let first = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const numeric = isDigit(c) || c === '.';
    if (!numeric && c !== 'e' && c !== 'E' && c !== '+' && c !== '-') {
      first = i;
      break;
    }
    if (c === 'e' || c === 'E') {
      const n = s[i + 1];
      if (i === s.length - 1 || (!isDigit(n) && n !== '+' && n !== '-')) {
        first = i;
        break;
      }
      if (n === '+' || n === '-') i++;
      let end = i + 1;
      while (isDigit(s[end])) end++;
      if (end - (i + 1) > MAX_EXPONENT_DIGITS) throw new UnitsError(`${prefix}: exponent too large`);
    }
  }
  if (first === -1) return [s, ''];
  if (first === 0) return ['', s];
  return [s.slice(0, first), s.slice(first)];
}

export interface Rational {
  num: bigint;
  den: bigint; // > 0
}

/** Parse a decimal with optional sign, fraction and exponent exactly (Go's big.Rat SetString for decimals). */
export function parseRational(s: string): Rational | undefined {
  const frac = /^([+-]?)([0-9]+)\/([0-9]+)$/.exec(s);
  if (frac !== null) {
    const den = BigInt(frac[3]!);
    if (den === 0n) return undefined;
    const num = BigInt(frac[2]!);
    return { num: frac[1] === '-' ? -num : num, den };
  }
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(s);
  if (m === null) return undefined;
  const intPart = m[2] ?? '';
  const fracPart = m[3] ?? '';
  if (intPart === '' && fracPart === '') return undefined;
  let num = BigInt((intPart + fracPart) || '0');
  let den = 10n ** BigInt(fracPart.length);
  const exp = m[4] === undefined ? 0 : Number(m[4]);
  if (exp > 0) num *= 10n ** BigInt(exp);
  else if (exp < 0) den *= 10n ** BigInt(-exp);
  if (m[1] === '-') num = -num;
  return { num, den };
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** Go's Rat.FloatString(places): rounded half away from zero. */
export function ratToFixed(r: Rational, places: number): string {
  const neg = r.num < 0n;
  const n = neg ? -r.num : r.num;
  const scale = 10n ** BigInt(places);
  let q = (n * scale) / r.den;
  const rem = (n * scale) % r.den;
  if (rem * 2n >= r.den) q += 1n;
  const s = q.toString().padStart(places + 1, '0');
  const out = `${s.slice(0, s.length - places)}.${s.slice(s.length - places)}`;
  return neg && q !== 0n ? '-' + out : out;
}

const BIN = (k: number): bigint => 1n << BigInt(10 * k);
const SI = (k: number): bigint => 10n ** BigInt(3 * k);

const UNIT_SCALE: Record<string, Rational> = {
  '': { num: 1n, den: 1n }, m: { num: 1n, den: 1000n },
  k: { num: SI(1), den: 1n }, K: { num: SI(1), den: 1n }, ki: { num: BIN(1), den: 1n }, Ki: { num: BIN(1), den: 1n },
  M: { num: SI(2), den: 1n }, mi: { num: BIN(2), den: 1n }, Mi: { num: BIN(2), den: 1n },
  g: { num: SI(3), den: 1n }, G: { num: SI(3), den: 1n }, gi: { num: BIN(3), den: 1n }, Gi: { num: BIN(3), den: 1n },
  t: { num: SI(4), den: 1n }, T: { num: SI(4), den: 1n }, ti: { num: BIN(4), den: 1n }, Ti: { num: BIN(4), den: 1n },
  p: { num: SI(5), den: 1n }, P: { num: SI(5), den: 1n }, pi: { num: BIN(5), den: 1n }, Pi: { num: BIN(5), den: 1n },
  e: { num: SI(6), den: 1n }, E: { num: SI(6), den: 1n }, ei: { num: BIN(6), den: 1n }, Ei: { num: BIN(6), den: 1n },
};

/** units.parse: returns a decimal string (integer, or 10 fractional digits). */
export function parseUnits(raw: string): string {
  const P = 'units.parse';
  const s = raw.replaceAll('"', '');
  if (s.includes(' ')) throw new UnitsError(`${P}: spaces not allowed in resource strings`);
  const [num, unit0] = splitAmountAndUnit(s, P);
  if (num === '') throw new UnitsError(`${P}: no amount provided`);
  const unit = unit0.length > 1 ? unit0[0] + unit0.slice(1).toLowerCase() : unit0;
  const scale = UNIT_SCALE[unit];
  if (scale === undefined) throw new UnitsError(`${P}: unit ${unit} not recognized`);
  const r = parseRational(num);
  if (r === undefined) throw new UnitsError(`${P}: could not parse amount to a number`);
  let n = r.num * scale.num;
  let d = r.den * scale.den;
  const g = gcd(n, d);
  if (g > 1n) {
    n /= g;
    d /= g;
  }
  if (d === 1n) return n.toString();
  return ratToFixed({ num: n, den: d }, 10);
}

const BYTE_SCALE: Record<string, bigint> = {
  '': 1n, kb: SI(1), k: SI(1), kib: BIN(1), ki: BIN(1), mb: SI(2), m: SI(2), mib: BIN(2), mi: BIN(2),
  gb: SI(3), g: SI(3), gib: BIN(3), gi: BIN(3), tb: SI(4), t: SI(4), tib: BIN(4), ti: BIN(4),
  pb: SI(5), p: SI(5), pib: BIN(5), pi: BIN(5), eb: SI(6), e: SI(6), eib: BIN(6), ei: BIN(6),
};

/** units.parse_bytes: returns an integer decimal string. */
export function parseBytes(raw: string): string {
  const P = 'units.parse_bytes';
  const s = raw.toLowerCase().replaceAll('"', '');
  if (s.includes(' ')) throw new UnitsError(`${P}: spaces not allowed in resource strings`);
  const [num, unit] = splitAmountAndUnit(s, P);
  if (num === '') throw new UnitsError(`${P}: no byte amount provided`);
  const scale = BYTE_SCALE[unit];
  if (scale === undefined) throw new UnitsError(`${P}: byte unit ${unit} not recognized`);
  const r = parseRational(num);
  if (r === undefined || num.includes('/')) throw new UnitsError(`${P}: could not parse byte amount to a number`);
  return ((r.num * scale) / r.den).toString();
}
