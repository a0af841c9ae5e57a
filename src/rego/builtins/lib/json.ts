/** JSON text <-> Rego values, exact for numbers of any size (Go's encoding/json as OPA uses it). */
import { type Value, ObjectValue, SetValue } from '../../value.ts';
import { parseNumber } from '../../number-value.ts';
import { scalarText } from '../../value-json.ts';

export class JsonSyntaxError extends Error {}

/** Parse JSON text; numbers keep their exact value. Duplicate keys: the last wins (as Go). */
export function parseJsonValue(text: string): Value {
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  // Go's encoding/json wording (what OPA's json.unmarshal reports): no offsets, EOF when the text ends
  const fail = (what: string): never => {
    throw new JsonSyntaxError(i >= n ? (n === 0 ? 'EOF' : 'unexpected EOF') : what);
  };
  const ch = (): string => {
    const c = String.fromCodePoint(text.codePointAt(i) ?? 0);
    if (c === "'") return "'\\''";
    if (c === '"') return `'"'`;
    const code = c.codePointAt(0)!;
    if (code < 0x20 || code === 0x7f) {
      const named: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r' };
      return `'\\${named[code] ?? `x${code.toString(16).padStart(2, '0')}`}'`;
    }
    if (c === '\\') return `'\\\\'`;
    return `'${c}'`;
  };
  const literal = (word: string): void => {
    for (let j = 0; j < word.length; j++, i++) {
      if (i >= n) fail('');
      if (text[i] !== word[j]) fail(`invalid character ${ch()} in literal ${word} (expecting '${word[j]}')`);
    }
  };
  const parseString = (): string => {
    // text[i] === '"'
    const start = i;
    i++;
    let simple = true;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) {
        simple = false;
        i += 2;
        continue;
      }
      if (c < 0x20) fail(`invalid character ${ch()} in string literal`);
      i++;
    }
    if (i >= n) fail('unexpected end of JSON input');
    i++;
    const raw = text.slice(start, i);
    if (simple) return raw.slice(1, -1);
    try {
      return JSON.parse(raw) as string;
    } catch {
      return fail('invalid escape in string literal');
    }
  };
  const parseValue = (depth: number): Value => {
    if (depth > 10000) fail('nesting too deep');
    ws();
    if (i >= n) fail('unexpected end of JSON input');
    const c = text[i]!;
    if (c === '{') {
      i++;
      const o = new ObjectValue();
      ws();
      if (text[i] === '}') {
        i++;
        return o;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail(`invalid character ${ch()} looking for beginning of object key string`);
        const k = parseString();
        ws();
        if (text[i] !== ':') fail(`invalid character ${ch()} after object key`);
        i++;
        o.set(k, parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return o;
        }
        fail(`invalid character ${ch()} after object key:value pair`);
      }
    }
    if (c === '[') {
      i++;
      const out: Value[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return out;
      }
      for (;;) {
        out.push(parseValue(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return out;
        }
        fail(`invalid character ${ch()} after array element`);
      }
    }
    if (c === '"') return parseString();
    if (c === 't') {
      literal('true');
      return true;
    }
    if (c === 'f') {
      literal('false');
      return false;
    }
    if (c === 'n') {
      literal('null');
      return null;
    }
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 4096));
    if (m === null || m[0] === '' || m[0] === '-') return fail(`invalid character ${ch()} looking for beginning of value`);
    i += m[0].length;
    const num = parseNumber(m[0]);
    if (num === undefined) fail('number out of range');
    return num!;
  };
  const v = parseValue(0);
  ws();
  if (i < n) fail(`error: invalid character ${ch()} after top-level value`);
  return v;
}

/** Go's encoding/json string escaping (HTML-safe: <, >, & escaped; U+2028/2029 escaped). */
export function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

function keyText(k: Value): string {
  return typeof k === 'string' ? k : marshalJson(k);
}

/** Compact JSON as OPA's json.marshal writes it: sorted keys, sets as arrays, exact numbers. */
export function marshalJson(v: Value): string {
  return marshalIndent(v, '', '', 0, false);
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
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  if (entries.length === 0) return '{}';
  for (const [k, x] of entries) {
    items.push(`${nl(depth + 1)}${goJsonString(k)}:${pretty ? ' ' : ''}${marshalIndent(x, prefix, indent, depth + 1, pretty)}`);
  }
  return `{${items.join(',')}${nl(depth)}}`;
}
