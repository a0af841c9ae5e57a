/**
 * JSON as Go's encoding/json reads it, for the bundle files OPA parses with it (.manifest,
 * data.json, .signatures.json and the signed payload): Go's UTF-8 repair, string escapes, number
 * literals kept as text, and its case-insensitive field matching. A value tree, not JS objects, so
 * each caller can decode it into OPA's Go structs with their own type rules.
 */

export type JNode =
  | { t: 'obj'; entries: [string, JNode][] }
  | { t: 'arr'; items: JNode[] }
  | { t: 'str'; v: string }
  | { t: 'num'; lit: string }
  | { t: 'lit'; v: boolean | null };

/** Decodes UTF-8 as Go does when it converts bytes to runes: each invalid byte becomes U+FFFD. */
export function goUtf8(b: Uint8Array): string {
  let out = '';
  let i = 0;
  let run = 0;
  const flush = (end: number) => {
    if (end > run) out += Buffer.from(b.buffer, b.byteOffset + run, end - run).toString('utf8');
  };
  while (i < b.length) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let n = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) n = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      if (c === 0xe0) lo = 0xa0;
      if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f;
    }
    let ok = n > 0 && i + n < b.length;
    if (ok) {
      const b1 = b[i + 1];
      ok = b1 !== undefined && b1 >= lo && b1 <= hi;
      for (let k = 2; ok && k <= n; k++) {
        const bk = b[i + k];
        ok = bk !== undefined && bk >= 0x80 && bk <= 0xbf;
      }
    }
    if (ok) {
      i += n + 1;
      continue;
    }
    flush(i);
    out += '\uFFFD';
    i++;
    run = i;
  }
  flush(b.length);
  return out;
}

export class JsonError extends Error {}

/** A JSON reader with Go's rules. `first`: stop after the first value (json.Decoder.Decode). */
export function parseGoJson(text: string, first: boolean): JNode {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (what: string): never => {
    throw new JsonError(i >= text.length ? `unexpected end of JSON input (${what})` : `invalid character ${JSON.stringify(text[i])} ${what} at offset ${i}`);
  };
  const str = (): string => {
    i++;
    let out = '';
    for (;;) {
      if (i >= text.length) fail('in string literal');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return out;
      }
      if (c < 0x20) fail('in string literal');
      if (c === 0x5c) {
        const e = text[i + 1];
        i += 2;
        if (e === 'u') {
          const hex = (at: number) => (/^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4)) ? Number.parseInt(text.slice(at, at + 4), 16) : -1);
          const u = hex(i);
          if (u < 0) fail('in \\u hexadecimal character escape');
          i += 4;
          if (u >= 0xd800 && u < 0xdc00 && text[i] === '\\' && text[i + 1] === 'u') {
            const u2 = hex(i + 2);
            if (u2 >= 0xdc00 && u2 < 0xe000) {
              out += String.fromCharCode(u, u2);
              i += 6;
              continue;
            }
          }
          out += u >= 0xd800 && u < 0xe000 ? '\uFFFD' : String.fromCharCode(u);
          continue;
        }
        const m: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e === undefined || !(e in m)) {
          i--;
          fail('in string escape code');
        }
        out += m[e!]!;
        continue;
      }
      // Lone surrogates cannot come from goUtf8 output, so plain characters copy through.
      out += text[i];
      i++;
    }
  };
  const value = (depth: number): JNode => {
    // Go's decoder stops at 10,000 levels; a deeper document must not overflow our stack either.
    if (depth > 10_000) fail('exceeded max depth');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: [string, JNode][] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'obj', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('looking for beginning of object key string');
        const k = str();
        ws();
        if (text[i] !== ':') fail('after object key');
        i++;
        entries.push([k, value(depth + 1)]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { t: 'obj', entries };
        }
        fail('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      const items: JNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'arr', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'arr', items };
        }
        fail('after array element');
      }
    }
    if (c === '"') return { t: 'str', v: str() };
    const m = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (m && m[0] !== '' && m[0] !== '-') {
      i += m[0].length;
      return { t: 'num', lit: m[0] };
    }
    for (const [w, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(w, i)) {
        i += w.length;
        return { t: 'lit', v };
      }
    }
    return fail('looking for beginning of value');
  };
  const v = value(0);
  if (first) {
    // The decoder needs a delimiter after a bare number or literal; objects and arrays end themselves.
    if ((v.t === 'num' || v.t === 'lit') && i < text.length && !/[\s,\]}:"[{]/.test(text[i]!)) fail('after top-level value');
    return v;
  }
  ws();
  if (i < text.length) fail('after top-level value');
  return v;
}

/** Go's encoding/json field matching: exact, else case-insensitive with its special folds. */
export function goFold(s: string): string {
  return s.replace(/[A-Z]/g, (c) => c.toLowerCase()).replace(/\u017f/g, 's').replace(/\u212a/g, 'k');
}
