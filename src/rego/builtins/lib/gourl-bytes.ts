/**
 * Byte strings as Go's net/url sees them (the text held one char per UTF-8 byte): hex digits, the runes
 * utf8.DecodeRune reads, strconv.Quote of the bytes, and the UTF-8 decoding Go's JSON shows.
 */
import { goQuote } from './gofmt.ts';

export function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

export function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

export function unhex(c: number): number {
  if (c <= 0x39) return c - 0x30;
  if (c >= 0x61) return c - 0x61 + 10;
  return c - 0x41 + 10;
}

/** strconv.Quote of a byte string: bytes of invalid UTF-8 are shown as `\xNN`. */
export function quoteBytes(s: string): string {
  let out = '';
  for (const r of decodeRunes(s)) out += typeof r === 'number' ? `\\x${r.toString(16).padStart(2, '0')}` : goQuote(r).slice(1, -1);
  return `"${out}"`;
}

/** The runes of a byte string as Go's utf8.DecodeRune reads them: a string per valid rune, the byte of each invalid one. */
function decodeRunes(bytes: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (let i = 0; i < bytes.length; ) {
    const b = bytes.charCodeAt(i);
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (need === 0) {
      out.push(bytes[i]!);
      i++;
      continue;
    }
    let ok = need > 0;
    let cp = need === 1 ? b & 0x1f : need === 2 ? b & 0x0f : b & 0x07;
    for (let k = 1; ok && k <= need; k++) {
      const c = i + k < bytes.length ? bytes.charCodeAt(i + k) : -1;
      if (c < 0 || (c & 0xc0) !== 0x80) ok = false;
      else cp = (cp << 6) | (c & 0x3f);
    }
    const min = need === 1 ? 0x80 : need === 2 ? 0x800 : 0x10000;
    if (ok && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
      out.push(String.fromCodePoint(cp));
      i += need + 1;
    } else {
      out.push(b);
      i++;
    }
  }
  return out;
}

/** Go's UTF-8 decoding of a byte string: each byte of an invalid sequence becomes U+FFFD (as Go's JSON shows it). */
export function goDecode(bytes: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(bytes)) return bytes;
  return decodeRunes(bytes).map((r) => (typeof r === 'number' ? '\ufffd' : r)).join('');
}
