/**
 * Putting estate strings into the HTML report safely: element text and attribute values are
 * entity-escaped, and the data the report's script reads is JSON inside
 * `<script type="application/json">` with every `<`, `>`, `&` and line separator written as a
 * `\u` escape, so no name can close the script element or start a comment in it.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Safe in element text and in a double- or single-quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** JSON text that can sit inside a <script> element: JSON.parse of it gives `value` back. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `value` with every string's leading local folder (one of `roots`) removed, so the report names
 * files relative to the estate and never carries a reader's home or temp directory.
 */
export function withoutRoots<T>(value: T, roots: readonly string[]): T {
  const prefixes = [...new Set(roots.filter((r) => r.length > 1).map((r) => (r.endsWith('/') ? r : `${r}/`)))].sort((a, b) => b.length - a.length);
  if (prefixes.length === 0) return value;
  const anyPrefix = new RegExp(prefixes.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  // Most strings hold no slash at all; only those are searched.
  const strip = (s: string): string => (s.includes('/') ? s.replace(anyPrefix, '') : s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return strip(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [strip(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}
