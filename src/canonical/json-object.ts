/**
 * The guard for a JSON object in a parsed JSON value (a plain record: not null, not an array): the
 * one every reader of parsed JSON uses.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A record made as a literal or by JSON.parse (Object's prototype or none), not an array or a class instance. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isJsonObject(v)) return false;
  const p = Object.getPrototypeOf(v) as unknown;
  return p === Object.prototype || p === null;
}
