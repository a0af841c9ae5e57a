/**
 * Canonical JSON bytes: RFC 8785 (JCS) key order and escaping, with toolgate's stricter rules
 * (see reference connectome-canonical.md rules 4-8):
 * - object keys sorted by UTF-16 code unit; keys and strings NFC-normalised first;
 *   two keys that coincide after NFC are refused, never merged;
 * - strings escaped as RFC 8785 does (only `"`, `\` and C0 controls), everything else literal UTF-8;
 *   a lone surrogate has no UTF-8 form and is refused;
 * - integers of any size (number or bigint) written in full; floats refused unless the caller's
 *   contract allows them, in which case they use ECMAScript's shortest round-trip form (RFC 8785 §3.2.2.3);
 * - `undefined`, functions, symbols, NaN/Infinity, class instances and `toJSON` objects refused.
 */
import { ToolgateError } from '../errors.ts';
import { createTextDigest } from './digest.ts';

export interface CanonicalOptions {
  /** Allow non-integer numbers (RFC 8785 number form). Default false: floats are refused. */
  readonly allowFloats?: boolean;
  /** Skip NFC (only for callers that already normalised and need raw speed). Default false. */
  readonly assumeNfc?: boolean;
}

const encoder = new TextEncoder();

/**
 * Text that is already canonical JSON, spliced in verbatim. For producers that encode a large,
 * regular member faster by hand than the generic walk can (see src/compile/decisions-json.ts);
 * the producer answers for the text being canonical.
 */
export class CanonicalText {
  constructor(readonly text: string) {}
}

/** Canonical bytes of a JSON-like value. @example canonicalBytes({b: 1, a: [true]}) // '{"a":[true],"b":1}' */
export function canonicalBytes(value: unknown, options: CanonicalOptions = {}): Uint8Array {
  return encoder.encode(canonicalString(value, options));
}

/** The canonical text of a value (what `canonicalBytes` encodes as UTF-8). */
export function canonicalString(value: unknown, options: CanonicalOptions = {}): string {
  const out = new TextParts();
  write(value, options, [], out);
  return out.text();
}

/**
 * SHA-256 (hex) of the canonical text's UTF-8 bytes, what `textDigestHex(canonicalString(value, options))`
 * gives, hashed a piece at a time as the text is written: a manifest's text is tens of megabytes,
 * and a digest needs it only once.
 */
export function canonicalTextDigestHex(value: unknown, options: CanonicalOptions = {}): string {
  const digest = createTextDigest();
  const out = new TextParts((chunk) => digest.update(chunk));
  write(value, options, [], out);
  out.text();
  return digest.hex();
}

/** Sorts strings by UTF-16 code unit, as RFC 8785 requires (this is JS's default string order). */
export function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Refuses strings with lone surrogates: they have no well-formed UTF-8 bytes. */
export function assertWellFormed(s: string, where: string): void {
  if (!isWellFormed(s)) {
    throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `${where}: string contains a lone UTF-16 surrogate and has no UTF-8 form`, {
      at: [{ file: '<value>', path: where }],
    });
  }
}

function isWellFormed(s: string): boolean {
  // String.prototype.isWellFormed exists from Node 20; keep a fallback for older engines.
  const f = (s as { isWellFormed?: () => boolean }).isWellFormed;
  if (typeof f === 'function') return f.call(s);
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
}

export function normaliseString(s: string, where: string, options: CanonicalOptions): string {
  // ASCII fast path: an ASCII string is well-formed and already NFC.
  if (isAscii(s)) return s;
  assertWellFormed(s, where);
  return options.assumeNfc ? s : s.normalize('NFC');
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/** True when every code unit is ASCII (then the string is well-formed and NFC, and its UTF-8 is one byte per unit). */
export function isAscii(s: string): boolean {
  return !NON_ASCII.test(s);
}

/**
 * A JSON string literal with RFC 8785 escaping. The input must already be well-formed.
 * For a well-formed string, ECMAScript's JSON.stringify escapes exactly what RFC 8785 escapes
 * (`"`, `\\`, and C0 controls, with the short forms for \b \t \n \f \r and lowercase \u00xx),
 * and writes everything else literally, U+2028/U+2029 included (RFC 8785 §3.2.2.2 is defined by it).
 */
export function quoteString(s: string): string {
  // A string with nothing to escape is only put between quotes (JSON.stringify takes longer to find that out).
  return NEEDS_CARE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

function whereOf(path: readonly (string | number)[]): string {
  let w = '$';
  for (const p of path) w += typeof p === 'number' ? `[${p}]` : `.${p}`;
  return w;
}

function refuse(path: readonly (string | number)[], what: string): never {
  const where = whereOf(path);
  throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `${where}: ${what} has no canonical JSON form`, { at: [{ file: '<value>', path: where }] });
}

/** Object keys in canonical order: NFC first (refusing collisions), then sorted by UTF-16 code unit. */
function canonicalKeys(obj: Record<string, unknown>, options: CanonicalOptions, path: (string | number)[]): [string, string][] {
  const keys = Object.keys(obj);
  let ascii = true;
  for (const k of keys) if (!isAscii(k)) ascii = false;
  // Fast path: ASCII keys are already NFC and cannot collide; the default sort is UTF-16 order.
  if (ascii) {
    keys.sort();
    const out: [string, string][] = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) out[i] = [keys[i]!, keys[i]!];
    return out;
  }
  const seen = new Set<string>();
  const out: [string, string][] = [];
  for (const key of keys) {
    const k = normaliseString(key, `${whereOf(path)} key ${JSON.stringify(key)}`, options);
    if (seen.has(k)) {
      const where = whereOf(path);
      throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `${where}: two keys coincide after NFC normalisation: ${JSON.stringify(k)}`, {
        at: [{ file: '<value>', path: where }],
      });
    }
    seen.add(k);
    out.push([k, key]);
  }
  return out.sort((a, b) => compareUtf16(a[0], b[0]));
}

/**
 * The output as pieces, joined once at the end: pushing a key or a string between quotes copies
 * nothing, where `+=` makes a rope node per piece and quoting makes a new string per value (at a
 * manifest's millions of values, most of the encoder's time went to collecting that garbage).
 * Pieces are joined into a chunk every few thousand, so the list stays short.
 */
class TextParts {
  readonly #parts: string[] = [];
  // Pieces are written over the previous chunk's rather than the list emptied, which would give its memory back each time.
  #count = 0;
  readonly #chunks: string[] = [];

  /** `sink`: each joined chunk goes there, in order, and is not kept (`text()` then returns ''). */
  constructor(readonly sink?: (chunk: string) => void) {}

  push(s: string): void {
    this.#parts[this.#count++] = s;
    if (this.#count === 8192) this.#flush();
  }

  #flush(): void {
    if (this.#count < this.#parts.length) this.#parts.length = this.#count;
    const chunk = this.#parts.join('');
    this.#count = 0;
    if (this.sink) this.sink(chunk);
    else this.#chunks.push(chunk);
  }

  text(): string {
    this.#flush();
    return this.#chunks.length === 1 ? this.#chunks[0]! : this.#chunks.join('');
  }
}

// A string with no character to escape and none outside ASCII is written between quotes as it is.
// eslint-disable-next-line no-control-regex
const NEEDS_CARE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

function writeString(s: string, options: CanonicalOptions, path: readonly (string | number)[], out: TextParts): void {
  if (!NEEDS_CARE.test(s)) {
    out.push('"');
    out.push(s);
    out.push('"');
  } else out.push(quoteString(isAscii(s) ? s : normaliseString(s, whereOf(path), options)));
}

/** An object shape whose keys need no escaping: its keys in canonical order, and the text that opens each member. */
interface PlainShape {
  readonly keys: readonly string[];
  readonly sorted: readonly string[];
  readonly heads: readonly string[];
}

/**
 * The plain shapes met so far, by first key (a few each: `{type, properties}` and `{type}` share
 * one). A document repeats a few shapes (a grant, its provenance) hundreds of thousands of times,
 * and comparing an object's keys with its shape's costs less than testing and sorting them again.
 * Bounded: emptied when full.
 */
const shapes = new Map<string, PlainShape[]>();
const MAX_SHAPES = 1024;
const MAX_SHAPES_PER_KEY = 4;
const MAX_SHAPE_KEYS = 32;

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The shape of an object with these keys (in insertion order), or undefined when some key needs escaping. */
function plainShapeOf(keys: string[]): PlainShape | undefined {
  const known = shapes.get(keys[0]!);
  if (known !== undefined) for (const shape of known) if (sameKeys(shape.keys, keys)) return shape;
  for (const k of keys) if (NEEDS_CARE.test(k)) return undefined;
  // Keys needing no escape are ASCII, so NFC already and unable to collide; the default sort is UTF-16 order.
  const sorted = [...keys].sort();
  const shape = { keys, sorted, heads: sorted.map((k, i) => `${i > 0 ? ',' : ''}"${k}":`) };
  if (keys.length <= MAX_SHAPE_KEYS) {
    if (known === undefined) {
      if (shapes.size >= MAX_SHAPES) shapes.clear();
      shapes.set(keys[0]!, [shape]);
    } else if (known.length < MAX_SHAPES_PER_KEY) known.push(shape);
    else known[known.length - 1] = shape;
  }
  return shape;
}

// The path to the current value is kept as a stack and turned into text only for an error message.
function write(value: unknown, options: CanonicalOptions, path: (string | number)[], out: TextParts): void {
  switch (typeof value) {
    case 'string':
      return writeString(value, options, path, out);
    case 'boolean':
      return out.push(value ? 'true' : 'false');
    case 'bigint':
      return out.push(value.toString());
    case 'number':
      if (!Number.isFinite(value)) refuse(path, `the number ${value}`);
      if (Number.isInteger(value) && (Number.isSafeInteger(value) || !options.allowFloats)) {
        if (!Number.isSafeInteger(value)) refuse(path, `the integer ${value} (beyond 2^53; pass a bigint)`);
        return out.push(Object.is(value, -0) ? '0' : String(value));
      }
      if (!options.allowFloats) refuse(path, `the float ${value}`);
      return out.push(String(value)); // ECMAScript Number::toString is RFC 8785's number form
    case 'object': {
      if (value === null) return out.push('null');
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          path.push(i);
          write(value[i], options, path, out);
          path.pop();
        }
        return out.push(']');
      }
      if (value instanceof CanonicalText) return out.push(value.text);
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) refuse(path, 'a class instance');
      const obj = value as Record<string, unknown>;
      if (typeof obj.toJSON === 'function') refuse(path, 'an object with toJSON');
      const keys = Object.keys(obj);
      if (keys.length === 0) return out.push('{}');
      const shape = plainShapeOf(keys);
      if (shape !== undefined) {
        const { sorted, heads } = shape;
        out.push('{');
        for (let i = 0; i < sorted.length; i++) {
          const k = sorted[i]!;
          const v = obj[k];
          path.push(k);
          if (v === undefined) refuse(path, 'undefined');
          out.push(heads[i]!);
          write(v, options, path, out);
          path.pop();
        }
        return out.push('}');
      }
      out.push('{');
      const pairs = canonicalKeys(obj, options, path);
      for (let i = 0; i < pairs.length; i++) {
        const [k, original] = pairs[i]!;
        const v = obj[original];
        path.push(k);
        if (v === undefined) refuse(path, 'undefined');
        if (i > 0) out.push(',');
        out.push(quoteString(k));
        out.push(':');
        write(v, options, path, out);
        path.pop();
      }
      return out.push('}');
    }
    default:
      return refuse(path, `a ${typeof value}`);
  }
}
