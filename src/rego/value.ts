/**
 * Runtime value model of the builtin Rego engine (the contract shared by the evaluator and `builtins/`).
 * Sets and objects keep themselves in OPA's order, so the collection classes, the guards that tell
 * values apart and that order are one concept and one file; numbers (`number-value.ts`), value keys
 * (`value-key.ts`) and JSON conversion (`value-json.ts`) live beside it.
 *
 * Representation (chosen so the common paths are plain JS values with no wrapping):
 *   - null            -> JS `null`
 *   - boolean         -> JS `boolean`
 *   - number          -> `NumberValue` in its one canonical form (number-value.ts)
 *   - string          -> JS `string`
 *   - array           -> plain JS `Value[]` (treat as immutable once shared)
 *   - set             -> `SetValue`
 *   - object          -> `ObjectValue` (keys may be any value; string-key lookup is one Map.get)
 * Sets and objects are mutable only while being built; once handed to the evaluator or returned from a
 * builtin they must not change (hash keys and sorted views are cached).
 * Iteration order of sets and objects (`values()`, `entries()`, `keys()`) is OPA's sorted order.
 */

import { compareNumbers, Decimal, type NumberValue } from './number-value.ts';
import { StringTable } from './string-table.ts';
import { compositeKey, scalarKeyText, valueKey } from './value-key.ts';


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

/** The [key, value] pairs of a flat [k0, v0, k1, v1, ...] array, in its order. */
function flatPairs(flat: readonly (Scalar | Value)[] | undefined): [Value, Value][] {
  if (flat === undefined) return [];
  const out: [Value, Value][] = new Array(flat.length >> 1);
  for (let i = 0; i < flat.length; i += 2) out[i >> 1] = [flat[i] as Value, flat[i + 1] as Value];
  return out;
}

export class ObjectValue {
  /** Scalar-keyed entries as [k0, v0, k1, v1, ...] while there are at most FLAT_KEYS of them. */
  private flat: (Scalar | Value)[] | undefined;
  /** Scalar-keyed entries once there are more than FLAT_KEYS. */
  private prim: Map<Scalar, Value> | undefined;
  private comp: Map<string, [Value, Value]> | undefined;
  private sortedCache: [Value, Value][] | undefined;
  private keyCache: string | undefined;
  /**
   * Set by the evaluator on an object that is one rule's whole value, into which no other rule's
   * document merges. A field rather than a WeakSet of such objects: every evaluation makes a few,
   * and a weak collection's entries for short-lived objects cost the collector more than the rest
   * of a small decision's garbage.
   */
  wholeRuleValue: true | undefined;

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
      const flat = this.flat;
      // a small object's pairs read straight from its flat array: spreading the generator cost a
      // visible part of json.marshal on an answer's few small objects
      const out: [Value, Value][] = this.prim === undefined ? flatPairs(flat) : [...this.scalarEntries()];
      if (this.comp) for (const e of this.comp.values()) out.push(e);
      out.sort((a, b) => compareValues(a[0], b[0]));
      this.sortedCache = out;
    }
    return this.sortedCache;
  }

  keys(): Value[] {
    return this.entries().map((e) => e[0]);
  }

  /** The object without the keys `drop` holds (object.remove), a small one's pairs copied from its flat array. */
  without(drop: { has(k: Value): boolean }): ObjectValue {
    const out = new ObjectValue();
    const flat = this.flat;
    if (flat !== undefined) {
      const kept: (Scalar | Value)[] = [];
      for (let i = 0; i < flat.length; i += 2) if (!drop.has(flat[i] as Scalar)) kept.push(flat[i] as Scalar, flat[i + 1] as Value);
      out.flat = kept;
    }
    if (this.prim !== undefined) for (const [k, v] of this.prim) if (!drop.has(k)) out.set(k, v);
    if (this.comp !== undefined) for (const [k, v] of this.comp.values()) if (!drop.has(k)) out.set(k, v);
    return out;
  }

  /** Entries in insertion order (cheaper; use when order does not matter). */
  *unordered(): Iterable<readonly [Value, Value]> {
    yield* this.scalarEntries();
    if (this.comp) yield* this.comp.values();
  }

  canonicalKey(): string {
    if (this.keyCache === undefined) {
      const ks: string[] = [];
      for (const [k, v] of this.scalarEntries()) ks.push(`${scalarKeyText(k)}:${valueKey(v)}`);
      if (this.comp) for (const [k, [, v]] of this.comp) ks.push(`${k}:${valueKey(v)}`);
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

/** `a` with `b`'s entries laid over it, objects under one key merged the same way (b wins elsewhere). */
export function mergeObjects(a: ObjectValue, b: ObjectValue): ObjectValue {
  const out = new ObjectValue(a.unordered());
  for (const [k, v] of b.unordered()) {
    const p = a.get(k);
    out.set(k, p instanceof ObjectValue && v instanceof ObjectValue ? mergeObjects(p, v) : v);
  }
  return out;
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
