/**
 * Keeps secrets out of crawl error texts. Error texts can quote a child's stderr or an HTTP
 * response, either of which may echo what it was given; every known secret value is masked, and
 * so are the usual shapes of credentials (`Bearer …`, `token=…`), whether or not we know them.
 */

export const REDACTED = '[redacted]';

/** Values shorter than this are not masked one by one (masking "1" would mask every digit). */
const MIN_SECRET_LENGTH = 4;

const CREDENTIAL_SHAPES: readonly RegExp[] = [
  /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+/gi,
  /\b((?:access[_-]?|refresh[_-]?|id[_-]?)?token|secret|password|passwd|api[_-]?key|authorization|auth)(["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
];

/**
 * Masks every occurrence of each secret (longest first, so a secret containing another is masked
 * whole) and every credential-shaped fragment.
 *
 * @example redact('bad key sk-123456', ['sk-123456']) // 'bad key [redacted]'
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  const values = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const s of values) out = out.split(s).join(REDACTED);
  out = out.replace(CREDENTIAL_SHAPES[0]!, (_m, scheme: string) => `${scheme} ${REDACTED}`);
  out = out.replace(CREDENTIAL_SHAPES[1]!, (_m, key: string, sep: string) => `${key}${sep}${REDACTED}`);
  return out;
}

/** Last `max` characters of a text, one line per line, for quoting a child's stderr. */
export function tail(text: string, max = 600): string {
  const t = text.trim();
  return t.length <= max ? t : `…${t.slice(t.length - max)}`;
}
