/**
 * Go's `net/url.Parse` (Go 1.26, the toolchain the pinned OPA is built with), for `uri.parse` and
 * `uri.is_valid`: the same accepted forms, the same decoded fields and the same error texts.
 * See https://pkg.go.dev/net/url#Parse and RFC 3986.
 *
 * Go parses bytes, so the text is handled as a byte string (one char per UTF-8 byte) and decoded
 * back at the end; a %-escape may yield invalid UTF-8, which Go's JSON shows as U+FFFD per bad byte.
 */
import { goQuote } from './gofmt.ts';

export interface GoURL {
  readonly scheme: string;
  readonly opaque: string;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly fragment: string;
  /** Go's (*URL).EscapedPath: the path as written when that is a valid encoding of it, else Go's own escaping. */
  readonly escapedPath: string;
}

/** A parse failure: `message` is Go's `(*url.Error).Error()` text. */
export class GoURLError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoURLError';
  }
}

type Mode = 'path' | 'pathSegment' | 'host' | 'zone' | 'userPassword' | 'queryComponent' | 'fragment';

function isAlnum(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
}

function unhex(c: number): number {
  if (c <= 0x39) return c - 0x30;
  if (c >= 0x61) return c - 0x61 + 10;
  return c - 0x41 + 10;
}

/** Go's shouldEscape: whether byte c must be %-escaped in the given part of a URL. */
function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === 'host' || mode === 'zone') && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  if ('-_.~'.includes(ch)) return false;
  if ('$&+,/:;=?@'.includes(ch)) {
    switch (mode) {
      case 'path':
        return ch === '?';
      case 'pathSegment':
        return ch === '/' || ch === ';' || ch === ',' || ch === '?';
      case 'userPassword':
        return ch === '@' || ch === '/' || ch === '?' || ch === ':';
      case 'queryComponent':
        return true;
      case 'fragment':
        return false;
      default:
        break;
    }
  }
  if (mode === 'fragment' && '!()*'.includes(ch)) return false;
  return true;
}

/** strconv.Quote of a byte string: bytes of invalid UTF-8 are shown as `\xNN`. */
function quoteBytes(s: string): string {
  let out = '';
  for (const r of decodeRunes(s)) out += typeof r === 'number' ? `\\x${r.toString(16).padStart(2, '0')}` : goQuote(r).slice(1, -1);
  return `"${out}"`;
}

function escapeError(s: string): GoURLError {
  return new GoURLError(`invalid URL escape ${quoteBytes(s)}`);
}

function unescape(s: string, mode: Mode): string {
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < s.length; ) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      n++;
      if (i + 2 >= s.length || !isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) {
        throw escapeError(s.slice(i, i + 3));
      }
      const v = (unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2));
      if (mode === 'host' && unhex(s.charCodeAt(i + 1)) < 8 && s.slice(i, i + 3) !== '%25') throw escapeError(s.slice(i, i + 3));
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscape(v, 'host')) throw escapeError(s.slice(i, i + 3));
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === 'queryComponent';
      i++;
    } else {
      if ((mode === 'host' || mode === 'zone') && c < 0x80 && shouldEscape(c, mode)) {
        throw new GoURLError(`invalid character ${quoteBytes(s[i]!)} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      out += String.fromCharCode((unhex(s.charCodeAt(i + 1)) << 4) | unhex(s.charCodeAt(i + 2)));
      i += 2;
    } else if (c === 0x2b) out += mode === 'queryComponent' ? ' ' : '+';
    else out += s[i];
  }
  return out;
}

function escape(s: string, mode: Mode): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x20 && mode === 'queryComponent') out += '+';
    else if (shouldEscape(c, mode)) out += `%${'0123456789ABCDEF'[c >> 4]}${'0123456789ABCDEF'[c & 15]}`;
    else out += s[i];
  }
  return out;
}

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c === '+' || c === '-' || c === '.') {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new GoURLError('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  if (port[0] !== ':') return false;
  return /^:[0-9]*$/.test(port);
}

function validUserinfo(s: string): boolean {
  // Go iterates runes; every non-ASCII byte starts or continues a rune that is refused.
  return /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(s);
}

/** netip.ParseAddr's verdict on an address text: 4, 6, or Go's error text. */
function parseAddr(s: string): 4 | 6 | string {
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

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf('[');
  if (open > 0) throw new GoURLError('invalid IP-literal');
  if (open === 0) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${quoteBytes(colonPort)} after host`);
    const port = unescape(colonPort, 'host');
    const hostname = host.slice(1, close);
    const zi = hostname.indexOf('%25');
    const name = zi >= 0 ? unescape(hostname.slice(0, zi), 'host') + unescape(hostname.slice(zi), 'zone') : unescape(hostname, 'host');
    const addr = parseAddr(name);
    if (typeof addr === 'string') throw new GoURLError(`invalid host: ${addr}`);
    if (addr === 4) throw new GoURLError('invalid IP-literal');
    return `[${name}]${port}`;
  }
  let i = host.indexOf(':');
  if (i !== -1) {
    const last = host.lastIndexOf(':');
    // Go 1.26 refuses extra colons in http(s) hosts only; other schemes take the last one as the port's.
    if (last !== i && scheme !== 'http' && scheme !== 'https') i = last;
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${quoteBytes(colonPort)} after host`);
  }
  return unescape(host, 'host');
}

function parseAuthority(scheme: string, authority: string): string {
  const at = authority.lastIndexOf('@');
  const host = parseHost(scheme, at < 0 ? authority : authority.slice(at + 1));
  if (at < 0) return host;
  const userinfo = authority.slice(0, at);
  if (!validUserinfo(userinfo)) throw new GoURLError('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  if (colon < 0) unescape(userinfo, 'userPassword');
  else {
    unescape(userinfo.slice(0, colon), 'userPassword');
    unescape(userinfo.slice(colon + 1), 'userPassword');
  }
  return host;
}

interface Parts {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
}

function parseReference(raw: string): Parts {
  const u: Parts = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '' };
  for (let i = 0; i < raw.length; i++) {
    const b = raw.charCodeAt(i);
    if (b < 0x20 || b === 0x7f) throw new GoURLError('net/url: invalid control character in URL');
  }
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  const sr = getScheme(raw);
  u.scheme = sr.scheme.toLowerCase();
  let rest = sr.rest;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    const slash = rest.indexOf('/');
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(':')) throw new GoURLError('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    u.host = parseAuthority(u.scheme, authority);
  }
  u.path = unescape(rest, 'path');
  u.rawPath = escape(u.path, 'path') === rest ? '' : rest;
  return u;
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

function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ("!$&'()*+,;=:@[]%".includes(c)) continue;
    if (shouldEscape(s.charCodeAt(i), mode)) return false;
  }
  return true;
}

function escapedPath(p: Parts): string {
  if (p.rawPath !== '' && validEncoded(p.rawPath, 'path')) {
    try {
      if (unescape(p.rawPath, 'path') === p.path) return p.rawPath;
    } catch (e) {
      if (!(e instanceof GoURLError)) throw e;
    }
  }
  if (p.path === '*') return '*';
  return escape(p.path, 'path');
}

/** Go's UTF-8 decoding of a byte string: each byte of an invalid sequence becomes U+FFFD (as Go's JSON shows it). */
function goDecode(bytes: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(bytes)) return bytes;
  return decodeRunes(bytes).map((r) => (typeof r === 'number' ? '\ufffd' : r)).join('');
}

/**
 * Parses a URL or URI reference as Go's url.Parse does.
 * @example parseGoURL('https://h:8/p?q#f').host // 'h:8'
 */
export function parseGoURL(text: string): GoURL {
  const raw = Buffer.from(text, 'utf8').toString('latin1');
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  let parts: Parts;
  try {
    parts = parseReference(u);
  } catch (e) {
    if (e instanceof GoURLError) throw new GoURLError(`parse ${quoteBytes(u)}: ${e.message}`);
    throw e;
  }
  let fragment = '';
  if (hash >= 0) {
    try {
      fragment = unescape(raw.slice(hash + 1), 'fragment');
    } catch (e) {
      if (e instanceof GoURLError) throw new GoURLError(`parse ${quoteBytes(raw)}: ${e.message}`);
      throw e;
    }
  }
  return {
    scheme: goDecode(parts.scheme),
    opaque: goDecode(parts.opaque),
    host: goDecode(parts.host),
    path: goDecode(parts.path),
    rawPath: goDecode(parts.rawPath),
    rawQuery: goDecode(parts.rawQuery),
    fragment: goDecode(fragment),
    escapedPath: escapedPath(parts),
  };
}

/** Go's (*URL).Hostname and Port: the host split at a valid `:port`, IPv6 brackets removed. */
export function splitHostPort(hostPort: string): { hostname: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { hostname: host, port };
}
