/**
 * Inputs a recompile may trust by identity. A recompile is given inputs nobody changed in place
 * since the previous compile read them (its member texts are reused by object, see
 * canonical-memo.ts); a value frozen here, with everything reachable from it, cannot have been,
 * so what the previous compile derived from the whole of it (the catalog's digest) holds without
 * looking at it again. A value merely frozen by its owner may still hold writable objects, so only
 * the values frozen here count.
 */
const deepFrozen = new WeakSet<object>();

/** Freezes `value` and every object and array reachable from it (functions and byte arrays are left as they are). */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const v = stack.pop();
    // Byte arrays cannot be frozen; the ones a parsed value holds (kept JSON texts) are only read.
    if (v === null || typeof v !== 'object' || deepFrozen.has(v) || seen.has(v) || ArrayBuffer.isView(v)) continue;
    seen.add(v);
    Object.freeze(v);
    if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (v instanceof Map) for (const [key, item] of v) stack.push(key, item);
    else if (v instanceof Set) for (const item of v) stack.push(item);
    else for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  if (value !== null && typeof value === 'object') deepFrozen.add(value);
  return value;
}

/** Whether `value` was deep-frozen by `deepFreeze`. */
export function isDeepFrozen(value: unknown): boolean {
  return value !== null && typeof value === 'object' && deepFrozen.has(value);
}
