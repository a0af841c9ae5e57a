/**
 * Go's netip.ParseAddr verdict on the address in a URL's IP literal (`[...]`): IPv4, IPv6 (with an
 * optional zone) or Go's error text.
 */
import { isHex, quoteBytes, unhex } from './gourl-bytes.ts';

/** netip.ParseAddr's verdict on an address text: 4, 6, or Go's error text. */
export function parseAddr(s: string): 4 | 6 | string {
  const err = (msg: string, at?: string) => `ParseAddr(${quoteBytes(s)}): ${msg}${at ? ` (at ${quoteBytes(at)})` : ''}`;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '.') {
      const e = ipv4Fields(s, 0, s.length, err);
      return e ?? 4;
    }
    if (s[i] === ':') return parseIPv6(s, err);
    if (s[i] === '%') return err('missing IPv6 address');
  }
  return err('unable to parse IP');
}

type ErrFn = (msg: string, at?: string) => string;

function ipv4Fields(input: string, off: number, end: number, err: ErrFn): string | undefined {
  const s = input.slice(off, end);
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c >= '0' && c <= '9') {
      if (digLen === 1 && val === 0) return err('IPv4 field has octet with leading zero');
      val = val * 10 + (c.charCodeAt(0) - 0x30);
      digLen++;
      if (val > 255) return err('IPv4 field has value >255');
    } else if (c === '.') {
      if (i === 0 || i === s.length - 1 || s[i - 1] === '.') return err('IPv4 field must have at least one digit', s.slice(i));
      if (pos === 3) return err('IPv4 address too long');
      pos++;
      val = 0;
      digLen = 0;
    } else return err('unexpected character', s.slice(i));
  }
  if (pos < 3) return err('IPv4 address too short');
  return undefined;
}

function parseIPv6(input: string, err: ErrFn): 6 | string {
  let s = input;
  let zone = '';
  const z = s.indexOf('%');
  if (z !== -1) {
    zone = s.slice(z + 1);
    s = s.slice(0, z);
    if (zone === '') return err('zone must be a non-empty string');
  }
  let ellipsis = -1;
  if (s.startsWith('::')) {
    ellipsis = 0;
    s = s.slice(2);
    if (s === '') return 6;
  }
  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const c = s.charCodeAt(off);
      if (!isHex(c)) break;
      acc = acc * 16 + unhex(c);
      if (off > 3) return err('each group must have 4 or less digits', s);
      if (acc > 0xffff) return err('IPv6 field has value >=2^16', s);
    }
    if (off === 0) return err('each colon-separated field must have at least one digit', s);
    if (off < s.length && s[off] === '.') {
      if (ellipsis < 0 && i !== 12) return err('embedded IPv4 address must replace the final 2 fields of the address', s);
      if (i + 4 > 16) return err('too many hex fields to fit an embedded IPv4 at the end of the address', s);
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      const e = ipv4Fields(input, end - s.length, end, err);
      if (e !== undefined) return e;
      s = '';
      i += 4;
      break;
    }
    i += 2;
    s = s.slice(off);
    if (s === '') break;
    if (s[0] !== ':') return err('unexpected character, want colon', s);
    if (s.length === 1) return err('colon must be followed by more characters', s);
    s = s.slice(1);
    if (s[0] === ':') {
      if (ellipsis >= 0) return err('multiple :: in address', s);
      ellipsis = i;
      s = s.slice(1);
      if (s === '') break;
    }
  }
  if (s !== '') return err('trailing garbage after address', s);
  if (i < 16) {
    if (ellipsis < 0) return err('address string too short');
  } else if (ellipsis >= 0) return err('the :: must expand to at least one field of zeros');
  return 6;
}
