/**
 * JSON values as the gojsonschema port reads them: numbers kept exact (as rationals, and in Go's
 * big.Float text), the type name gojsonschema gives a value, the JSON text it compares values by, and
 * the error a schema or a number it cannot read is refused with.
 */

export class SchemaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaError';
  }
}

/** A JSON value with numbers kept as their decimal text (exact, as Go's json.Number). */
export type JsonValue = null | boolean | string | { readonly num: string } | readonly JsonValue[] | ReadonlyMap<string, JsonValue>;

// ------------------------------------------------------------------ exact numbers

export interface Rat {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b) [a, b] = [b, a % b];
  return a;
}

export function rat(text: string): Rat {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([-+]?\d+))?$/.exec(text);
  if (!m) throw new SchemaError(`bad number ${text}`);
  const frac = m[3] ?? '';
  let n = BigInt(m[2]! + frac);
  let d = 10n ** BigInt(frac.length);
  const e = Number(m[4] ?? 0);
  if (e > 0) n *= 10n ** BigInt(e);
  else if (e < 0) d *= 10n ** BigInt(-e);
  if (m[1]) n = -n;
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

export const cmpRat = (a: Rat, b: Rat) => {
  const x = a.n * b.d - b.n * a.d;
  return x < 0n ? -1 : x > 0n ? 1 : 0;
};
export const isIntRat = (r: Rat) => r.d === 1n;

/** Go's big.Float String() of a rational: %g with 10 significant digits. */
export function floatText(r: Rat): string {
  const x = Number(r.n) / Number(r.d);
  if (x === 0) return '0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  let s = x.toPrecision(10);
  if (exp < -4 || exp >= 10) {
    s = x.toExponential(9);
    let [mant, ex] = s.split('e') as [string, string];
    if (mant.includes('.')) mant = mant.replace(/0+$/, '').replace(/\.$/, '');
    const sign = ex.startsWith('-') ? '-' : '+';
    const digits = ex.replace(/^[-+]/, '').padStart(2, '0');
    return `${mant}e${sign}${digits}`;
  }
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}

// ------------------------------------------------------------------ values

export const isNum = (v: JsonValue): v is { num: string } => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Map);
export const isMap = (v: JsonValue): v is ReadonlyMap<string, JsonValue> => v instanceof Map;
export const isArr = (v: JsonValue): v is readonly JsonValue[] => Array.isArray(v);

export function sortedKeys(m: ReadonlyMap<string, JsonValue>): string[] {
  return [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's encoding/json string form (HTML characters escaped). */
function goString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** gojsonschema's marshalWithoutNumber: JSON text with numbers as float64 (so 1.0 equals 1), keys sorted. */
export function floatJson(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return goString(v);
  if (isNum(v)) {
    const x = Number(v.num);
    return Number.isFinite(x) ? JSON.stringify(x) : v.num;
  }
  if (isArr(v)) return `[${v.map(floatJson).join(',')}]`;
  const m = v as ReadonlyMap<string, JsonValue>;
  return `{${sortedKeys(m).map((k) => `${goString(k)}:${floatJson(m.get(k)!)}`).join(',')}}`;
}

export function typeOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  if (isNum(v)) return isIntRat(rat(v.num)) ? 'integer' : 'number';
  return isArr(v) ? 'array' : 'object';
}
