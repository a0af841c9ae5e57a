/**
 * The one redactor: keeps secrets out of everything a crawl writes (the catalog, error texts,
 * stderr). A secret is a value the user configured (an env or header value, a URL's userinfo,
 * query values and token-like path segments); a child server or an HTTP peer may echo one back
 * as given or re-encoded, so each is masked in every form it commonly travels in: as is,
 * percent-encoded, form-encoded, JSON-escaped, hex, and base64 / base64url at any alignment
 * (inside a longer base64 text such as a Basic credential). Credential shapes (`Bearer …`,
 * `token=…`) are masked in error texts whether or not the value is known.
 *
 * Length rule: a known secret of 4 or more characters is masked wherever it occurs, even inside a
 * word. A shorter one (1-3 characters) is masked only where it stands alone, not touching a
 * letter, digit or one of `_-.%` on either side: masking "7" inside every number would mangle
 * ordinary output, while "7" as a whole token after `key=` or in quotes is still masked. Its
 * encoded forms are not derived (they would be as short and as common).
 */

export const REDACTED = '[redacted]';

/** Known secrets at least this long are masked anywhere, with their encoded forms. */
export const MIN_ANYWHERE_LENGTH = 4;

const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi,
  /\b((?:access[_-]?|refresh[_-]?|id[_-]?)?token|secret|password|passwd|api[_-]?key|authorization|auth)(["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
];

/** Characters that make a short secret part of a longer token rather than a token of its own. */
const TOKEN_CHAR = 'A-Za-z0-9_\\-.%';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** base64 of `bytes` preceded by `shift` bytes, keeping only the characters `bytes` alone decide. */
function base64Core(bytes: Buffer, shift: number, url: boolean): string {
  const full = Buffer.concat([Buffer.alloc(shift), bytes]).toString(url ? 'base64url' : 'base64').replace(/=+$/, '');
  const from = Math.ceil((shift * 8) / 6);
  const to = Math.floor(((shift + bytes.length) * 8) / 6);
  return full.slice(from, to);
}

/**
 * The forms a secret is masked in. Every form is at least MIN_ANYWHERE_LENGTH long, so a base64
 * fragment short enough to be common text is never one of them.
 * @example secretForms('a b&c').includes('a%20b%26c') // true
 */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_ANYWHERE_LENGTH) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const forms = new Set<string>([secret, encodeURIComponent(secret), new URLSearchParams({ x: secret }).toString().slice(2), JSON.stringify(secret).slice(1, -1), bytes.toString('hex')]);
  forms.add(JSON.stringify(secret).slice(1, -1).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  for (const url of [false, true]) for (let shift = 0; shift < 3; shift++) forms.add(base64Core(bytes, shift, url));
  return [...forms].filter((f) => f.length >= MIN_ANYWHERE_LENGTH);
}

/** Masks a fixed set of known secrets: built once, applied to many texts. */
export type Masker = (text: string) => string;

/**
 * A function masking every known secret (longest form first, so a secret containing another is
 * masked whole) under the length rule above.
 */
export function secretMasker(secrets: readonly string[]): Masker {
  const values = [...new Set(secrets)].filter((s) => s !== '');
  const long = [...new Set(values.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const short = values.filter((s) => s.length < MIN_ANYWHERE_LENGTH).sort((a, b) => b.length - a.length);
  const longRe = long.length === 0 ? undefined : new RegExp(long.map(escapeRegExp).join('|'), 'g');
  const shortRe = short.length === 0 ? undefined : new RegExp(`(?<![${TOKEN_CHAR}])(?:${short.map(escapeRegExp).join('|')})(?![${TOKEN_CHAR}])`, 'g');
  return (text) => {
    let out = text;
    if (longRe) out = out.replace(longRe, REDACTED);
    if (shortRe) out = out.replace(shortRe, REDACTED);
    return out;
  };
}

/**
 * Masks every known secret and every credential-shaped fragment: for error texts, which may quote
 * what a child printed or a peer answered.
 *
 * @example redact('bad key sk-123456', ['sk-123456']) // 'bad key [redacted]'
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = secretMasker(secrets)(text);
  out = out.replace(CREDENTIAL_SHAPES[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(CREDENTIAL_SHAPES[1]!, (_m, key: string, sep: string) => `${key}${sep}${REDACTED}`);
  return out;
}

/**
 * Every string in a JSON value (keys too) with the known secrets masked: for what a server sent,
 * which goes into the catalog as data, so credential shapes are left as the server wrote them.
 */
export function redactValue<T>(value: T, secrets: readonly string[]): T {
  const mask = secretMasker(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return mask(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) Object.defineProperty(out, mask(k), { value: walk(x), enumerable: true, writable: true, configurable: true });
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * A path segment that reads as a credential rather than a route: 16+ characters of token
 * alphabet, or 8+ mixing letters and digits (`/mcp/v1` and `/servers/github` stay readable).
 */
function isTokenLike(segment: string): boolean {
  if (!/^[A-Za-z0-9._~+=-]+$/.test(segment)) return false;
  if (segment.length >= 16) return true;
  return segment.length >= 8 && /[A-Za-z]/.test(segment) && /[0-9]/.test(segment);
}

/** The secrets a URL carries: userinfo, every query value, token-like path segments (raw and decoded). */
export function urlSecrets(url: URL): string[] {
  const out: string[] = [];
  const both = (raw: string) => {
    if (raw === '') return;
    out.push(raw);
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // not percent-encoded text: the raw form is the one that can appear
    }
  };
  both(url.username);
  both(url.password);
  for (const v of url.searchParams.values()) if (v !== '') out.push(v, encodeURIComponent(v));
  for (const seg of url.pathname.split('/')) {
    let decoded = seg;
    try {
      decoded = decodeURIComponent(seg);
    } catch {
      // keep the raw segment
    }
    if (isTokenLike(decoded)) both(seg);
  }
  return out;
}

/**
 * A URL's userinfo moved into an `Authorization: Basic` header (what curl and browsers send for
 * `http://user:pass@host`), and the URL without it: fetch refuses a URL with credentials.
 */
export function credentialsFromUrl(url: URL): { readonly url: URL; readonly authorization?: string } {
  if (url.username === '' && url.password === '') return { url };
  const user = safeDecode(url.username);
  const pass = safeDecode(url.password);
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return { url: bare, authorization: `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}` };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Last `max` characters of a text, one line per line, for quoting a child's stderr. */
export function tail(text: string, max = 600): string {
  const t = text.trim();
  return t.length <= max ? t : `…${t.slice(t.length - max)}`;
}
