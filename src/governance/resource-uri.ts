/**
 * Resource identity: the key a resource URI is stored and looked up under, so that two spellings
 * of one resource are one node and a DENY bound to one spelling is found from the other.
 *
 * Only equivalences RFC 3986 guarantees are applied (§6.2.2 syntax-based, §6.2.3 scheme-based):
 * - the scheme and the host are lowercased (userinfo, path, query and fragment keep their case);
 * - a percent-encoded unreserved character (ALPHA / DIGIT / "-" / "." / "_" / "~") is decoded, and
 *   the hex digits of every other percent-encoding are uppercased (`%2f` -> `%2F`, never `/`);
 * - an empty port (`host:`) and the scheme's default port (http/ws 80, https/wss 443, ftp 21) go;
 * - an empty path becomes `/` for http, https, ws, wss and ftp (where RFC 9110 says they are the
 *   same resource).
 *
 * Nothing that can change meaning is touched: dot segments stay (`/a/../b` is not `/b` on a
 * filesystem with links), a trailing slash on a non-empty path stays (`/a` is not `/a/`), the
 * query and fragment stay, a reserved character is never decoded, and a string without a scheme
 * (or one this cannot parse) is returned as written; so is an authority holding `*` (a pattern
 * such as `https://*`, not a host) but for its scheme's case.
 */

const DEFAULT_PORT: Readonly<Record<string, string>> = { http: '80', https: '443', ws: '80', wss: '443', ftp: '21' };

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Decodes percent-encoded unreserved characters and uppercases the rest; malformed `%` is kept. */
function normalisePercent(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

/**
 * The key of a resource URI (see the module comment for what is and is not merged).
 *
 * @example
 * resourceKey('HTTPS://Svc.Example.com:443') // 'https://svc.example.com/'
 * resourceKey('file:///srv/app/.env')        // 'file:///srv/app/.env'
 */
export function resourceKey(uri: string): string {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):(.*)$/s.exec(uri);
  if (!m) return uri;
  const scheme = m[1]!.toLowerCase();
  const rest = m[2]!;
  if (!rest.startsWith('//')) return `${scheme}:${normalisePercent(rest)}`;
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?#]/);
  const authority = end === -1 ? afterSlashes : afterSlashes.slice(0, end);
  let tail = end === -1 ? '' : afterSlashes.slice(end);
  // `https://*` and the like are patterns an operator wrote, not a host: kept as written.
  if (authority.includes('*')) return `${scheme}:${rest}`;
  const at = authority.lastIndexOf('@');
  const userinfo = at === -1 ? null : authority.slice(0, at);
  let hostPort = at === -1 ? authority : authority.slice(at + 1);
  // host, then an optional :port (an IPv6 literal is bracketed and holds colons of its own)
  const hp = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(hostPort);
  if (!hp) return uri;
  const host = normalisePercent(hp[1]!).toLowerCase();
  let port = hp[2];
  if (port === '' || (port !== undefined && DEFAULT_PORT[scheme] !== undefined && port.replace(/^0+(?=\d)/, '') === DEFAULT_PORT[scheme])) port = undefined;
  hostPort = port === undefined ? host : `${host}:${port}`;
  if (DEFAULT_PORT[scheme] !== undefined && (tail === '' || tail.startsWith('?') || tail.startsWith('#'))) tail = `/${tail}`;
  return `${scheme}://${userinfo === null ? '' : `${normalisePercent(userinfo)}@`}${hostPort}${normalisePercent(tail)}`;
}
