/**
 * Conversion between Rego values and plain JS/JSON values (as JSON.parse or a YAML reader makes them),
 * and the exact JSON text of a value.
 */
import { Decimal, normBigInt, normDouble, numberToString, toDouble } from './number-value.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';

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
