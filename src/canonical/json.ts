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

export interface CanonicalOptions {
  /** Allow non-integer numbers (RFC 8785 number form). Default false: floats are refused. */
  readonly allowFloats?: boolean;
  /** Skip NFC (only for callers that already normalised and need raw speed). Default false. */
  readonly assumeNfc?: boolean;
}

const encoder = new TextEncoder();

/** Canonical bytes of a JSON-like value. @example canonicalBytes({b: 1, a: [true]}) // '{"a":[true],"b":1}' */
export function canonicalBytes(value: unknown, options: CanonicalOptions = {}): Uint8Array {
  return encoder.encode(canonicalString(value, options));
}

/** The canonical text of a value (what `canonicalBytes` encodes as UTF-8). */
export function canonicalString(value: unknown, options: CanonicalOptions = {}): string {
  const parts: string[] = [];
  write(value, parts, options, '$');
  return parts.join('');
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
  if (!NON_ASCII.test(s)) return s;
  assertWellFormed(s, where);
  return options.assumeNfc ? s : s.normalize('NFC');
}

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

// RFC 8785 escaping: only the quote, backslash and C0 controls are escaped.
const ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;
// eslint-disable-next-line no-control-regex
const ESCAPE_ALL = /["\\\u0000-\u001f]/g;

/** A JSON string literal with RFC 8785 escaping. The input must already be well-formed. */
export function quoteString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  return `"${s.replace(ESCAPE_ALL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

function refuse(where: string, what: string): never {
  throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `${where}: ${what} has no canonical JSON form`, { at: [{ file: '<value>', path: where }] });
}

function write(value: unknown, out: string[], options: CanonicalOptions, where: string): void {
  switch (typeof value) {
    case 'string':
      out.push(quoteString(normaliseString(value, where, options)));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'bigint':
      out.push(value.toString());
      return;
    case 'number':
      if (!Number.isFinite(value)) refuse(where, `the number ${value}`);
      if (Number.isInteger(value) && (Number.isSafeInteger(value) || !options.allowFloats)) {
        if (!Number.isSafeInteger(value)) refuse(where, `the integer ${value} (beyond 2^53; pass a bigint)`);
        out.push(Object.is(value, -0) ? '0' : String(value));
        return;
      }
      if (!options.allowFloats) refuse(where, `the float ${value}`);
      out.push(Object.is(value, -0) ? '0' : String(value)); // ECMAScript Number::toString is RFC 8785's number form
      return;
    case 'object': {
      if (value === null) {
        out.push('null');
        return;
      }
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          write(value[i], out, options, `${where}[${i}]`);
        }
        out.push(']');
        return;
      }
      const proto = Object.getPrototypeOf(value) as unknown;
      if (proto !== Object.prototype && proto !== null) refuse(where, 'a class instance');
      const obj = value as Record<string, unknown>;
      if (typeof obj.toJSON === 'function') refuse(where, 'an object with toJSON');
      const entries: [string, unknown][] = [];
      const seen = new Set<string>();
      for (const key of Object.keys(obj)) {
        const v = obj[key];
        if (v === undefined) refuse(`${where}.${key}`, 'undefined');
        const k = normaliseString(key, `${where} key ${JSON.stringify(key)}`, options);
        if (seen.has(k)) {
          throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `${where}: two keys coincide after NFC normalisation: ${JSON.stringify(k)}`, {
            at: [{ file: '<value>', path: where }],
          });
        }
        seen.add(k);
        entries.push([k, v]);
      }
      entries.sort((a, b) => compareUtf16(a[0], b[0]));
      out.push('{');
      for (let i = 0; i < entries.length; i++) {
        const [k, v] = entries[i]!;
        if (i > 0) out.push(',');
        out.push(quoteString(k), ':');
        write(v, out, options, `${where}.${k}`);
      }
      out.push('}');
      return;
    }
    default:
      refuse(where, `a ${typeof value}`);
  }
}
