/**
 * Inputs a recompile may trust by identity. A recompile is given inputs nobody changed in place
 * since the previous compile read them (its member texts are reused by object, see
 * canonical-memo.ts); a value frozen here, with everything reachable from it, cannot have been,
 * so what the previous compile derived from the whole of it (the catalog's digest) holds without
 * looking at it again. A value merely frozen by its owner may still hold writable objects, so only
 * the values frozen here count.
 */
import { isPlainObject } from '../../canonical/json-object.ts';

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

/**
 * `next` (a value just parsed, not yet shared with anyone) with every array and plain object that
 * reads exactly as its counterpart in `previous` (a value deep-frozen here) replaced by that
 * counterpart: the same members, in the same order, of the same values. The result serialises as
 * `next` did, and a recompile's caches keyed by object (a tool's contract key, the catalog digest's
 * member texts) hold for every part a save left alone. Members of an object are matched by key; of
 * an array by position, after the longest prefix and suffix that match when the lengths differ.
 * `next` is rewritten in place; `previous` is returned when nothing in it changed. `next` may hold
 * parts of `previous` already (a JSON text read from its previous version, src/parse/json-splice.ts).
 */
export function shareFrozen<T>(next: T, previous: unknown): T {
  if (!isDeepFrozen(previous)) return next;
  return share(next, previous) as T;
}

function share(next: unknown, previous: unknown): unknown {
  // A frozen part of `next` (not one it was parsed into) cannot be rewritten, so it is left as it is.
  if (next === previous || typeof next !== 'object' || next === null || typeof previous !== 'object' || previous === null || Object.isFrozen(next)) return next;
  if (Array.isArray(next)) return Array.isArray(previous) ? shareItems(next, previous) : next;
  if (!isPlainObject(next) || !isPlainObject(previous) || Object.getPrototypeOf(next) !== Object.getPrototypeOf(previous)) return next;
  const keys = Object.keys(next);
  const previousKeys = Object.keys(previous);
  let same = keys.length === previousKeys.length;
  const kept: object[] = [];
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = Object.hasOwn(previous, k) ? share(next[k], previous[k]) : next[k];
    if (v !== next[k]) {
      Object.defineProperty(next, k, { value: v, writable: true, enumerable: true, configurable: true });
      kept.push(v as object);
    } else if (v === previous[k] && typeof v === 'object' && v !== null) kept.push(v);
    if (same && (previousKeys[i] !== k || !Object.is(v, previous[k]))) same = false;
  }
  return same ? previous : adopted(next, kept);
}

function shareItems(next: unknown[], previous: readonly unknown[]): unknown {
  const kept: object[] = [];
  const item = (i: number, p: number): boolean => {
    const v = share(next[i], previous[p]);
    if (v === next[i]) {
      // Already the previous part (a value read from the previous one): it is deep-frozen with it.
      if (v === previous[p] && typeof v === 'object' && v !== null) kept.push(v);
      return Object.is(v, previous[p]);
    }
    next[i] = v;
    kept.push(v as object);
    return true;
  };
  if (next.length === previous.length) {
    let same = true;
    for (let i = 0; i < next.length; i++) if (!item(i, i)) same = false;
    if (same) return previous;
  } else {
    const common = Math.min(next.length, previous.length);
    let head = 0;
    while (head < common && item(head, head)) head++;
    // The new item the prefix stopped at was compared (and rewritten) already: the suffix stops before it.
    const stop = head < common ? head + 1 : head;
    let tail = 1;
    while (next.length - tail >= stop && previous.length - tail >= head && item(next.length - tail, previous.length - tail)) tail++;
  }
  return adopted(next, kept);
}

/**
 * `value`, with the parts of a deep-frozen value it now holds (`kept`) marked deep-frozen, so
 * `deepFreeze` does not walk them again. Only the outermost kept parts are marked: a part's own
 * members are marked by nobody, as the walk never reaches them.
 */
function adopted<T>(value: T, kept: readonly object[]): T {
  for (const part of kept) deepFrozen.add(part);
  return value;
}

/**
 * `[` + the texts `textOf` writes for `items`, joined by commas, + `]` (for a `textOf` giving JSON,
 * the JSON of the list), each item's text kept in `memo` by item when `root`, which holds the items,
 * was deep-frozen here: a frozen item has the same text wherever it appears again, as in a catalog
 * read from its previous version.
 */
export function frozenItemsText<T extends object>(root: unknown, items: readonly T[], memo: WeakMap<T, string>, textOf: (item: T) => string): string {
  const frozen = isDeepFrozen(root);
  const text = (item: T): string => {
    if (!frozen) return textOf(item);
    let t = memo.get(item);
    if (t === undefined) memo.set(item, (t = textOf(item)));
    return t;
  };
  return `[${items.map(text).join(',')}]`;
}
