/** JSON text <-> Rego values, exact for numbers of any size (Go's encoding/json as OPA uses it). */
import { GoJsonSyntaxError, readGoJson, type GoJsonBuilder } from '../../go-json.ts';
import { type Value, ObjectValue, SetValue, compareStrings } from '../../value.ts';
import { parseNumber } from '../../number-value.ts';
import { scalarText } from '../../value-json.ts';
import { writtenNumber } from '../../written-numbers.ts';

export class JsonSyntaxError extends Error {}

/** Builds Rego values: numbers exact, a repeated key's last value kept (as Go). */
const VALUES: GoJsonBuilder<Value, ObjectValue> = {
  string: (s) => s,
  number: (lit) => {
    const num = parseNumber(lit);
    if (num === undefined) throw new JsonSyntaxError('number out of range');
    return num;
  },
  literal: (v) => v,
  array: (items) => items,
  openObject: () => new ObjectValue(),
  member: (o, k, v) => {
    o.set(k, v);
  },
  closeObject: (o) => o,
};

/**
 * The character at a fault as Go's scanner quotes it: Go reads bytes, so a non-ASCII character shows
 * as the first byte of its UTF-8 encoding taken as a rune ('é' is 'Ã').
 */
function goChar(text: string, at: number): string {
  const cp = text.codePointAt(at) ?? 0;
  const c = cp < 0x80 ? String.fromCharCode(cp) : String.fromCharCode(Buffer.from(String.fromCodePoint(cp), 'utf8')[0]!);
  if (c === "'") return "'\\''";
  if (c === '"') return `'"'`;
  const code = c.codePointAt(0)!;
  if (code < 0x20 || code === 0x7f) {
    const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
    return `'\\${named[code] ?? `x${code.toString(16).padStart(2, '0')}`}'`;
  }
  if (c === '\\') return `'\\\\'`;
  return `'${c}'`;
}

/** Parses JSON text as Go's json.Unmarshal does, with its error wording (what OPA's json.unmarshal reports). */
export function parseJsonValue(text: string): Value {
  try {
    return readGoJson(text, VALUES);
  } catch (e) {
    if (!(e instanceof GoJsonSyntaxError)) throw e;
    // Go's decoder: io.EOF when the text holds nothing but whitespace
    if (e.atEnd) throw new JsonSyntaxError(/^[ \t\n\r]*$/.test(text) ? 'EOF' : 'unexpected EOF');
    const message = `invalid character ${goChar(text, e.offset)} ${e.phrase}`;
    throw new JsonSyntaxError(e.phrase === 'after top-level value' ? `error: ${message}` : message);
  }
}

/** Go's encoding/json string escaping (HTML-safe: <, >, & escaped; U+2028/2029 escaped). */
export function goJsonString(s: string): string {
  // most strings are printable ASCII with nothing to escape: quoted as they are, without
  // JSON.stringify and the scan for Go's extra escapes
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || c === 0x3c || c === 0x3e || c === 0x26) return escapedJsonString(s);
  }
  return '"' + s + '"';
}

function escapedJsonString(s: string): string {
  const j = JSON.stringify(s);
  // most strings hold none of them: testing first spares the replace's scan and callback
  return GO_ESCAPED.test(j) ? j.replace(GO_ESCAPED_ALL, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) : j;
}

const GO_ESCAPED = /[<>&\u2028\u2029]/;
const GO_ESCAPED_ALL = /[<>&\u2028\u2029]/g;

function keyText(k: Value): string {
  return typeof k === 'string' ? k : marshalJson(k);
}

/** Compact JSON as OPA's json.marshal writes it: sorted keys, sets as arrays, exact numbers. */
export function marshalJson(v: Value): string {
  const scalar = scalarText(v, goJsonString);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(v) || v instanceof SetValue) {
    const xs = Array.isArray(v) ? v : v.values();
    let out = '[';
    // a number literal keeps the text it was written in, as in OPA (written-numbers.ts)
    for (let i = 0; i < xs.length; i++) out += (i === 0 ? '' : ',') + ((Array.isArray(v) ? writtenNumber(v, i) : undefined) ?? marshalJson(xs[i] as Value));
    return out + ']';
  }
  const entries = (v as ObjectValue).entries();
  // string keys are in Go's order already (by code point, as Go compares UTF-8 bytes)
  for (const [k] of entries) if (typeof k !== 'string') return marshalIndent(v, '', '', 0, false);
  let out = '{';
  for (let i = 0; i < entries.length; i++) {
    const [k, x] = entries[i] as readonly [Value, Value];
    out += (i === 0 ? '' : ',') + goJsonString(k as string) + ':' + marshalJson(x);
  }
  return out + '}';
}

/** Go's json.MarshalIndent layout. */
export function marshalIndent(v: Value, prefix: string, indent: string, depth: number, pretty = true): string {
  const scalar = scalarText(v, goJsonString);
  if (scalar !== undefined) return scalar; // what is left is an array, a set or an object
  const nl = (d: number): string => (pretty ? `\n${prefix}${indent.repeat(d)}` : '');
  const items: string[] = [];
  if (Array.isArray(v) || v instanceof SetValue) {
    const xs = Array.isArray(v) ? v : v.values();
    if (xs.length === 0) return '[]';
    for (const x of xs) items.push(nl(depth + 1) + marshalIndent(x, prefix, indent, depth + 1, pretty));
    return `[${items.join(',')}${nl(depth)}]`;
  }
  const entries = [...(v as ObjectValue).entries()].map(([k, x]) => [keyText(k), x] as const);
  // Go sorts a map's keys by their UTF-8 bytes, which is code point order
  entries.sort((a, b) => compareStrings(a[0], b[0]));
  if (entries.length === 0) return '{}';
  for (const [k, x] of entries) {
    items.push(`${nl(depth + 1)}${goJsonString(k)}:${pretty ? ' ' : ''}${marshalIndent(x, prefix, indent, depth + 1, pretty)}`);
  }
  return `{${items.join(',')}${nl(depth)}}`;
}
