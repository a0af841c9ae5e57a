/**
 * Runtime value model of the builtin Rego engine (the contract shared by the evaluator and `builtins/`).
 *
 * Representation (chosen so the common paths are plain JS values with no wrapping):
 *   - null            -> JS `null`
 *   - boolean         -> JS `boolean`
 *   - number          -> `NumberValue`, always in canonical form (see `normNumber`):
 *                         * JS `number` for safe integers (|n| <= 2^53-1) and for fractions whose exact decimal
 *                           value equals the double's shortest decimal text (e.g. 0.1, 3.25);
 *                         * JS `bigint` for integers outside the safe range (exact, any size);
 *                         * `Decimal` for the rare fractions a double cannot hold exactly (e.g. 1e-400,
 *                           0.1234567890123456789): mantissa bigint and base-10 exponent.
 *                       One numeric value has exactly one representation, so `===` on numbers / bigints
 *                       and `Map` keys work for equality (and `1.0` is the number `1`). Never build a bigint
 *                       or a Decimal by hand: call `normNumber`, `parseNumber` or the ops in `number.ts`.
 *   - string          -> JS `string`
 *   - array           -> plain JS `Value[]` (treat as immutable once shared)
 *   - set             -> `SetValue`
 *   - object          -> `ObjectValue` (keys may be any value; string-key lookup is one Map.get)
 * Sets and objects are mutable only while being built; once handed to the evaluator or returned from a
 * builtin they must not change (hash keys and sorted views are cached).
 * Iteration order of sets and objects (`values()`, `entries()`, `keys()`) is OPA's sorted order.
 */

import { StringTable } from './string-table.ts';

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
export type Scalar = null | boolean | number | bigint | string;
export type Value = null | boolean | NumberValue | string | Value[] | SetValue | ObjectValue;

/** OPA's type names, as used in error messages and `type_name`. */
export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'set' | 'object';

// ---------------------------------------------------------------- guards

export function isNumber(v: Value | undefined): v is NumberValue {
  const t = typeof v;
  return t === 'number' || t === 'bigint' || v instanceof Decimal;
}
export function isString(v: Value | undefined): v is string {
  return typeof v === 'string';
}
export function isBoolean(v: Value | undefined): v is boolean {
  return typeof v === 'boolean';
}
export function isArray(v: Value | undefined): v is Value[] {
  return Array.isArray(v);
}
export function isSet(v: Value | undefined): v is SetValue {
  return v instanceof SetValue;
}
export function isObject(v: Value | undefined): v is ObjectValue {
  return v instanceof ObjectValue;
}
export function isScalar(v: Value): v is Scalar {
  return v === null || typeof v !== 'object';
}

/** The type of a scalar (null, boolean, number, string) by its JavaScript type; undefined for anything else. */
export function scalarTypeName(v: unknown): 'null' | 'boolean' | 'number' | 'string' | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    default:
      return undefined;
  }
}

export function typeName(v: Value): TypeName {
  const scalar = scalarTypeName(v);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(v)) return 'array';
  if (v instanceof SetValue) return 'set';
  if (v instanceof ObjectValue) return 'object';
  return 'number'; // Decimal
}

const TYPE_RANK: Record<TypeName, number> = { null: 0, boolean: 1, number: 2, string: 3, array: 6, object: 7, set: 8 };

// ---------------------------------------------------------------- numbers

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

// ---------------------------------------------------------------- strings (Go order: by code point)

export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // UTF-16 order differs from code point order only when one side is a surrogate and the other >= 0xE000.
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

// ---------------------------------------------------------------- hashing keys

type CompKeyed = Value[] | SetValue | ObjectValue;
const arrayKeys = new WeakMap<Value[], string>();

/** A canonical string identifying a value up to Rego equality (e.g. for memo tables keyed by values). */
export function valueKey(v: Value): string {
  return keyText(v);
}

function scalarKeyText(v: Scalar | Decimal): string {
  if (v === null) return 'n';
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return `d${numberToString(v)}`;
    case 'bigint':
      return `d${v.toString()}`;
    case 'string':
      return JSON.stringify(v);
    default:
      return `d${(v as Decimal).toString()}`;
  }
}

function keyText(v: Value): string {
  if (v === null || typeof v !== 'object' || v instanceof Decimal) return scalarKeyText(v as Scalar | Decimal);
  return compositeKey(v);
}

export function compositeKey(v: CompKeyed): string {
  if (Array.isArray(v)) {
    let k = arrayKeys.get(v);
    if (k === undefined) {
      k = `[${v.map(keyText).join(',')}]`;
      arrayKeys.set(v, k);
    }
    return k;
  }
  return v.canonicalKey();
}

// ---------------------------------------------------------------- sets

// A set moves its strings into a StringTable at this many scalar members: a JS Set's table past
// about 4,096 members is a large object, mapped afresh each time it grows (string-table.ts).
const STRING_TABLE_AT = 4096;

export class SetValue {
  // A Set, not a Map of each member to itself: two words a member instead of three, which shows when a
  // large set's table is built (bench/rego.bench.ts (b)).
  private prim = new Set<Scalar>();
  /** The string members once the set is large; until then they are in `prim`. */
  private strs: StringTable | undefined;
  private comp: Map<string, Value> | undefined;
  private sortedCache: Value[] | undefined;
  private keyCache: string | undefined;

  constructor(items?: Iterable<Value>) {
    if (items) for (const v of items) this.add(v);
  }

  get size(): number {
    return this.prim.size + (this.strs ? this.strs.size : 0) + (this.comp ? this.comp.size : 0);
  }

  add(v: Value): this {
    if (typeof v === 'string' && this.strs !== undefined) {
      if (this.strs.add(v)) {
        this.sortedCache = undefined;
        this.keyCache = undefined;
      }
      return this;
    }
    if (v === null || typeof v !== 'object') {
      const n = this.prim.size;
      this.prim.add(v); // one hash lookup; a member already there is left as it was
      if (this.prim.size !== n) {
        this.sortedCache = undefined;
        this.keyCache = undefined;
        if (n + 1 === STRING_TABLE_AT) this.moveStrings();
      }
      return this;
    }
    const k = v instanceof Decimal ? `d${v.toString()}` : compositeKey(v);
    this.comp ??= new Map();
    if (!this.comp.has(k)) {
      this.comp.set(k, v);
      this.sortedCache = undefined;
      this.keyCache = undefined;
    }
    return this;
  }

  /**
   * Says the set is complete for now (a rule or comprehension has made all of it): a large set gives
   * its lookup index back to a pool for the next one (string-table.ts). Adding and finding still work.
   */
  seal(): this {
    this.strs?.seal();
    return this;
  }

  has(v: Value): boolean {
    if (typeof v === 'string' && this.strs !== undefined) return this.strs.has(v);
    if (v === null || typeof v !== 'object') return this.prim.has(v);
    if (!this.comp) return false;
    return this.comp.has(v instanceof Decimal ? `d${v.toString()}` : compositeKey(v));
  }

  /** Members in OPA's sorted order. */
  values(): readonly Value[] {
    if (!this.sortedCache) {
      const out: Value[] = [...this.prim.values()];
      if (this.strs) for (const v of this.strs.values()) out.push(v);
      if (this.comp) for (const v of this.comp.values()) out.push(v);
      out.sort(compareValues);
      this.sortedCache = out;
    }
    return this.sortedCache;
  }

  /** Members in no particular order (cheaper; use when order does not matter). */
  unordered(): Iterable<Value> {
    if (!this.comp && !this.strs) return this.prim.values();
    const { prim, strs, comp } = this;
    return (function* () {
      yield* prim.values();
      if (strs) yield* strs.values();
      if (comp) yield* comp.values();
    })();
  }

  [Symbol.iterator](): Iterator<Value> {
    return this.values()[Symbol.iterator]();
  }

  canonicalKey(): string {
    if (this.keyCache === undefined) {
      const ks: string[] = [];
      for (const v of this.prim.values()) ks.push(scalarKeyText(v));
      if (this.strs) for (const v of this.strs.values()) ks.push(scalarKeyText(v));
      if (this.comp) for (const k of this.comp.keys()) ks.push(k);
      ks.sort();
      this.keyCache = `{s${ks.join(',')}}`;
    }
    return this.keyCache;
  }

  private moveStrings(): void {
    const strs = new StringTable();
    const rest = new Set<Scalar>();
    for (const v of this.prim) {
      if (typeof v === 'string') strs.add(v);
      else rest.add(v);
    }
    this.strs = strs;
    this.prim = rest;
  }
}

// ---------------------------------------------------------------- objects

// An object keeps up to this many scalar keys in one flat array and moves them to a Map past it:
// most objects in inputs and data are small, a Map's hash table for a few keys takes about twice
// the memory of an array of them, and over 100,000 input elements less memory is more of them
// read from the caches (bench/rego.bench.ts (b): both sizes faster, the ratio lower).
const FLAT_KEYS = 8;

export class ObjectValue {
  /** Scalar-keyed entries as [k0, v0, k1, v1, ...] while there are at most FLAT_KEYS of them. */
  private flat: (Scalar | Value)[] | undefined;
  /** Scalar-keyed entries once there are more than FLAT_KEYS. */
  private prim: Map<Scalar, Value> | undefined;
  private comp: Map<string, [Value, Value]> | undefined;
  private sortedCache: [Value, Value][] | undefined;
  private keyCache: string | undefined;

  constructor(entries?: Iterable<readonly [Value, Value]>) {
    if (entries) for (const [k, v] of entries) this.set(k, v);
  }

  /** An object of distinct string keys and their values, in one flat array (used by fromJSON). */
  static ofDistinctKeys(keys: readonly string[], values: readonly Value[]): ObjectValue {
    const o = new ObjectValue();
    if (keys.length > FLAT_KEYS) {
      o.prim = new Map();
      for (let i = 0; i < keys.length; i++) o.prim.set(keys[i] as string, values[i] as Value);
      return o;
    }
    const flat: (Scalar | Value)[] = new Array(keys.length * 2);
    for (let i = 0; i < keys.length; i++) {
      flat[2 * i] = keys[i] as string;
      flat[2 * i + 1] = values[i] as Value;
    }
    o.flat = flat;
    return o;
  }

  get size(): number {
    return (this.flat ? this.flat.length >> 1 : 0) + (this.prim ? this.prim.size : 0) + (this.comp ? this.comp.size : 0);
  }

  /** Sets a key (only while building). */
  set(k: Value, v: Value): this {
    this.sortedCache = undefined;
    this.keyCache = undefined;
    if (k === null || typeof k !== 'object') {
      if (this.prim !== undefined) {
        this.prim.set(k, v);
        return this;
      }
      const flat = (this.flat ??= []);
      for (let i = 0; i < flat.length; i += 2) {
        if (flat[i] === k) {
          flat[i + 1] = v;
          return this;
        }
      }
      if (flat.length < 2 * FLAT_KEYS) {
        flat.push(k, v);
        return this;
      }
      const prim = new Map<Scalar, Value>();
      for (let i = 0; i < flat.length; i += 2) prim.set(flat[i] as Scalar, flat[i + 1] as Value);
      prim.set(k, v);
      this.prim = prim;
      this.flat = undefined;
      return this;
    }
    this.comp ??= new Map();
    this.comp.set(k instanceof Decimal ? `d${k.toString()}` : compositeKey(k), [k, v]);
    return this;
  }

  get(k: Value): Value | undefined {
    if (k === null || typeof k !== 'object') {
      const flat = this.flat;
      if (flat !== undefined) {
        for (let i = 0; i < flat.length; i += 2) if (flat[i] === k) return flat[i + 1] as Value;
        return undefined;
      }
      return this.prim?.get(k);
    }
    if (!this.comp) return undefined;
    return this.comp.get(k instanceof Decimal ? `d${k.toString()}` : compositeKey(k))?.[1];
  }

  has(k: Value): boolean {
    return this.get(k) !== undefined;
  }

  /** Scalar-keyed entries in insertion order. */
  private *scalarEntries(): Iterable<[Scalar, Value]> {
    const flat = this.flat;
    if (flat !== undefined) for (let i = 0; i < flat.length; i += 2) yield [flat[i] as Scalar, flat[i + 1] as Value];
    if (this.prim !== undefined) yield* this.prim;
  }

  /** Entries in OPA's sorted key order. */
  entries(): readonly (readonly [Value, Value])[] {
    if (!this.sortedCache) {
      const out: [Value, Value][] = [...this.scalarEntries()];
      if (this.comp) for (const e of this.comp.values()) out.push(e);
      out.sort((a, b) => compareValues(a[0], b[0]));
      this.sortedCache = out;
    }
    return this.sortedCache;
  }

  keys(): Value[] {
    return this.entries().map((e) => e[0]);
  }

  /** Entries in insertion order (cheaper; use when order does not matter). */
  *unordered(): Iterable<readonly [Value, Value]> {
    yield* this.scalarEntries();
    if (this.comp) yield* this.comp.values();
  }

  canonicalKey(): string {
    if (this.keyCache === undefined) {
      const ks: string[] = [];
      for (const [k, v] of this.scalarEntries()) ks.push(`${scalarKeyText(k)}:${keyText(v)}`);
      if (this.comp) for (const [k, [, v]] of this.comp) ks.push(`${k}:${keyText(v)}`);
      ks.sort();
      this.keyCache = `{o${ks.join(',')}}`;
    }
    return this.keyCache;
  }
}

// ---------------------------------------------------------------- order and equality

/** OPA's total order: null < booleans < numbers < strings < arrays < objects < sets. */
export function compareValues(a: Value, b: Value): number {
  if (a === b) return 0;
  const ta = typeName(a);
  const tb = typeName(b);
  if (ta !== tb) return TYPE_RANK[ta] < TYPE_RANK[tb] ? -1 : 1;
  switch (ta) {
    case 'null':
      return 0;
    case 'boolean':
      return a === b ? 0 : a === false ? -1 : 1;
    case 'number':
      return compareNumbers(a as NumberValue, b as NumberValue);
    case 'string':
      return compareStrings(a as string, b as string);
    case 'array': {
      const x = a as Value[];
      const y = b as Value[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i] as Value, y[i] as Value);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 'object': {
      const x = (a as ObjectValue).entries();
      const y = (b as ObjectValue).entries();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const ex = x[i] as readonly [Value, Value];
        const ey = y[i] as readonly [Value, Value];
        const c = compareValues(ex[0], ey[0]);
        if (c !== 0) return c;
        const d = compareValues(ex[1], ey[1]);
        if (d !== 0) return d;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 'set': {
      const x = (a as SetValue).values();
      const y = (b as SetValue).values();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(x[i] as Value, y[i] as Value);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
  }
}

export function valueEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof Decimal) return b instanceof Decimal && a.m === b.m && a.e === b.e;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valueEquals(a[i] as Value, b[i] as Value)) return false;
    return true;
  }
  if (a instanceof SetValue) {
    if (!(b instanceof SetValue) || a.size !== b.size) return false;
    for (const v of a.unordered()) if (!b.has(v)) return false;
    return true;
  }
  if (a instanceof ObjectValue) {
    if (!(b instanceof ObjectValue) || a.size !== b.size) return false;
    for (const [k, v] of a.unordered()) {
      const w = b.get(k);
      if (w === undefined || !valueEquals(v, w)) return false;
    }
    return true;
  }
  return false;
}

// ---------------------------------------------------------------- JSON conversion

/** Plain JS/JSON value: integers beyond 2^53 may be bigint. */
export type JsonLike = null | boolean | number | bigint | string | JsonLike[] | { [k: string]: JsonLike };

/** Converts a JSON-like JS value (as from JSON.parse or a YAML parser with intAsBigInt) into a Value. */
export function fromJSON(x: unknown): Value {
  return fromJSONAt(x, 0);
}

// Past this nesting, arrays and objects are converted with an explicit stack: a gateway's input may
// nest 10,000 levels (what OPA's JSON reader accepts), deeper than the call stack allows.
const RECURSIVE_DEPTH = 500;

function fromJSONAt(x: unknown, depth: number): Value {
  if (depth > RECURSIVE_DEPTH && typeof x === 'object' && x !== null && (Array.isArray(x) || Object.getPrototypeOf(x) === Object.prototype || Object.getPrototypeOf(x) === null)) {
    return fromJSONIterative(x);
  }
  if (x === null || x === undefined) return null;
  switch (typeof x) {
    case 'boolean':
    case 'string':
      return x;
    case 'number':
      if (!Number.isFinite(x)) throw new TypeError(`not a finite number: ${x}`);
      return normDouble(x);
    case 'bigint':
      return normBigInt(x);
    case 'object': {
      if (Array.isArray(x)) return x.map((v) => fromJSONAt(v, depth + 1));
      if (x instanceof SetValue || x instanceof ObjectValue || x instanceof Decimal) return x;
      if (x instanceof Map) {
        const o = new ObjectValue();
        for (const [k, v] of x) o.set(fromJSONAt(k, depth + 1), fromJSONAt(v, depth + 1));
        return o;
      }
      const keys = Object.keys(x);
      const values = keys.map((k) => fromJSONAt((x as Record<string, unknown>)[k], depth + 1));
      return ObjectValue.ofDistinctKeys(keys, values);
    }
    default:
      throw new TypeError(`cannot convert ${typeof x} to a Rego value`);
  }
}

/** fromJSON for plain arrays and objects without recursion: children first, from a stack of pending containers. */
function fromJSONIterative(root: object): Value {
  interface Pending {
    readonly src: unknown[] | Record<string, unknown>;
    readonly keys: string[] | null;
    readonly out: Value[];
  }
  const isPlain = (v: unknown): v is unknown[] | Record<string, unknown> =>
    typeof v === 'object' && v !== null && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
  const open = (v: unknown[] | Record<string, unknown>): Pending => ({ src: v, keys: Array.isArray(v) ? null : Object.keys(v), out: [] });
  const stack: Pending[] = [open(root as unknown[] | Record<string, unknown>)];
  let done: Value = null;
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const n = top.keys === null ? (top.src as unknown[]).length : top.keys.length;
    if (top.out.length < n) {
      const i = top.out.length;
      const child = top.keys === null ? (top.src as unknown[])[i] : (top.src as Record<string, unknown>)[top.keys[i]!];
      if (isPlain(child)) stack.push(open(child));
      else top.out.push(fromJSONAt(child, 0));
      continue;
    }
    stack.pop();
    done = top.keys === null ? top.out : ObjectValue.ofDistinctKeys(top.keys, top.out);
    if (stack.length > 0) stack[stack.length - 1]!.out.push(done);
  }
  return done;
}

/**
 * Converts a Value to plain JSON-like JS: sets become arrays in sorted order, object keys that are not
 * strings become their JSON text, bigints stay bigints, Decimals become the nearest double.
 */
export function toJSON(v: Value): JsonLike {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Decimal) return toDouble(v);
  if (Array.isArray(v)) return v.map(toJSON);
  if (v instanceof SetValue) return v.values().map(toJSON);
  const o: { [k: string]: JsonLike } = {};
  for (const [k, x] of v.entries()) {
    const key = typeof k === 'string' ? k : toJSONText(k);
    // A "__proto__" key must become an own property, as JSON.parse makes it, not the prototype.
    if (key === '__proto__') Object.defineProperty(o, key, { value: toJSON(x), enumerable: true, writable: true, configurable: true });
    else o[key] = toJSON(x);
  }
  return o;
}

/** The text of a scalar (null, boolean, number of any kind, string written by `quote`); undefined for an array, set or object. */
export function scalarText(v: Value, quote: (s: string) => string): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return numberToString(v);
    case 'string':
      return quote(v);
  }
  if (v instanceof Decimal) return v.toString();
  return undefined;
}

const jsonQuote = (s: string): string => JSON.stringify(s);

/** Exact JSON text of a value (keys in sorted order, numbers exact, sets as sorted arrays). */
export function toJSONText(v: Value): string {
  const scalar = scalarText(v, jsonQuote);
  if (scalar !== undefined) return scalar; // what is left is an array, a set or an object
  if (Array.isArray(v)) return `[${v.map(toJSONText).join(',')}]`;
  if (v instanceof SetValue) return `[${v.values().map(toJSONText).join(',')}]`;
  const parts: string[] = [];
  for (const [k, x] of (v as ObjectValue).entries()) parts.push(`${JSON.stringify(typeof k === 'string' ? k : toJSONText(k))}:${toJSONText(x)}`);
  return `{${parts.join(',')}}`;
}

// ---------------------------------------------------------------- small constructors

export function arrayOf(items: Iterable<Value>): Value[] {
  return [...items];
}
export function setOf(...items: Value[]): SetValue {
  return new SetValue(items);
}
export function objectOf(entries: Iterable<readonly [Value, Value]>): ObjectValue {
  return new ObjectValue(entries);
}
