/**
 * The guard for a JSON object in a parsed JSON value (a plain record: not null, not an array): the
 * one every reader of parsed JSON uses.
 */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
