/**
 * Go's `net/url.Parse` (Go 1.26, the toolchain the pinned OPA is built with), for `uri.parse` and
 * `uri.is_valid`: the same accepted forms, the same decoded fields and the same error texts.
 * See https://pkg.go.dev/net/url#Parse and RFC 3986.
 *
 * Go parses bytes, so the text is handled as a byte string (one char per UTF-8 byte) and decoded
 * back at the end; a %-escape may yield invalid UTF-8, which Go's JSON shows as U+FFFD per bad byte.
 */
import { parseAddr } from './gourl-addr.ts';
import { goDecode, isAlnum, isHex, quoteBytes, unhex } from './gourl-bytes.ts';

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
