/**
 * The guard for a JSON object in a parsed JSON value (a plain record: not null, not an array), as
 * the bundle reader and the compile's delta walk it.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
