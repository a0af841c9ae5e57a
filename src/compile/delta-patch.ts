/**
 * The `patch.json` operations of a delta bundle
 * (https://www.openpolicyagent.org/docs/management-bundles#delta-bundles), chosen and ordered for
 * what OPA's in-memory store does with them inside the activation transaction
 * (open-policy-agent/opa v1/bundle/store.go applyPatches, v1/storage/inmem/txn.go Read):
 *
 * - Reading a path under which the transaction already holds a write deep-copies the whole stored
 *   subtree at that path. OPA reads the parent of every `upsert` (to create it when missing), so
 *   an upsert whose parent already has a pending write beneath it copies that parent. `replace`
 *   and `remove` read nothing. So a changed value is a `replace`, a removed key a `remove`, and
 *   only a new key is an `upsert`; a new key whose value is an object is written member by member
 *   one level down, where the parent does not exist yet and the read copies nothing. Upserts go
 *   first, before the writes whose pending state they could otherwise have to copy.
 * - After the patch, OPA's path-conflict check reads, for every rule of the bundle, each prefix of
 *   the rule's path until one exists. Policy packages and data share the bundle root, so without
 *   help each rule reads the root itself and copies every datum beneath it: a patch of three
 *   leaves cost a hundred copies of the data document (seconds, growing with the estate). An empty
 *   object at each policy package's path stops that walk at the package, so the patch first puts
 *   one there (`packageMarkers`). It adds no key a query can see: `data.<package>` is the package's
 *   rules merged with the empty object. The next full bundle replaces the root and drops them.
 *
 * Paths are JSON pointers (RFC 6901 `~0`/`~1`) that OPA also URL-unescapes (storage
 * ParsePathEscaped), so `%` is written `%25`. Keys are visited in sorted order: the same bundles
 * give the same patch.
 *
 * Pure: data documents and parsed packages in, operations out.
 */
import { isJsonObject } from '../canonical/json-object.ts';
import { ToolgateError } from '../errors.ts';

export type PatchOperation =
  | { readonly op: 'upsert'; readonly path: string; readonly value: unknown }
  | { readonly op: 'replace'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string };

/** One JSON-pointer reference token as OPA's patch path parser reads it. */
export function patchPathSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1').replace(/%/g, '%25');
}

const pointer = (segments: readonly string[]) => segments.map((s) => `/${patchPathSegment(s)}`).join('');

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isJsonObject(a)) {
    if (!isJsonObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

const sortedKeys = (o: Record<string, unknown>) => Object.keys(o).sort();

/**
 * The operations that turn the data document `before` into `after`, in the order OPA should apply
 * them (see the module comment). Objects are compared key by key; any other value that differs is
 * replaced whole.
 *
 * @example
 * diffData({ a: { b: 1, c: 2, l: [1] } }, { a: { b: 1, d: { e: 3 }, l: [1, 2] } })
 * // [{ op: 'upsert', path: '/a/d/e', value: 3 },
 * //  { op: 'replace', path: '/a/l', value: [1, 2] }, { op: 'remove', path: '/a/c' }]
 */
export function diffData(before: unknown, after: unknown): PatchOperation[] {
  if (!isJsonObject(before) || !isJsonObject(after)) throw new ToolgateError('DELTA_REFUSED', 'the data document root is not an object on both sides');
  // A new key's upsert reads its parent, which exists: the first one under a parent is free, a
  // later one may copy the parent. A member of a new object has a parent that does not exist yet.
  const newKeys: PatchOperation[] = [];
  const newMembers: PatchOperation[] = [];
  const replaced: PatchOperation[] = [];
  const removed: PatchOperation[] = [];
  const walk = (a: Record<string, unknown>, b: Record<string, unknown>, at: string[]) => {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const path = [...at, k];
      if (!Object.hasOwn(b, k)) removed.push({ op: 'remove', path: pointer(path) });
      else if (!Object.hasOwn(a, k)) {
        const v = b[k];
        if (isJsonObject(v) && Object.keys(v).length > 0) for (const m of sortedKeys(v)) newMembers.push({ op: 'upsert', path: pointer([...path, m]), value: v[m] });
        else newKeys.push({ op: 'upsert', path: pointer(path), value: v });
      } else if (isJsonObject(a[k]) && isJsonObject(b[k])) walk(a[k], b[k], path);
      else if (!deepEqual(a[k], b[k])) replaced.push({ op: 'replace', path: pointer(path), value: b[k] });
    }
  };
  walk(before, after, []);
  return [...newKeys, ...newMembers, ...replaced, ...removed];
}

/** A policy module as the marker planner needs it: its package path and its rules' first names. */
export interface PackageRules {
  /** Path below `data`, e.g. `['toolgate', 'authz']`. */
  readonly path: readonly string[];
  /** The first name of each rule's head (`decision`, `allow`, ...). */
  readonly ruleNames: readonly string[];
}

function valueAt(doc: unknown, path: readonly string[]): { found: boolean; objectsOnTheWay: boolean } {
  let v: unknown = doc;
  for (const s of path) {
    if (!isJsonObject(v)) return { found: false, objectsOnTheWay: false };
    if (!Object.hasOwn(v, s)) return { found: false, objectsOnTheWay: true };
    v = v[s];
  }
  return { found: true, objectsOnTheWay: true };
}

const isPrefix = (p: readonly string[], q: readonly string[]) => p.length <= q.length && p.every((s, i) => q[i] === s);

/**
 * Empty-object upserts at the policy packages' paths (see the module comment), to go before the
 * data operations. A package gets none when it is a root itself (nothing above it to stop at),
 * lies outside every root, already has data at or under its path in either bundle, sits under
 * another marked package (that marker already stops the walk), or is a rule of an enclosing
 * package (data there would conflict with that rule). Shallow paths come first: the first upsert
 * under the root reads it before any write and copies nothing.
 */
export function packageMarkers(packages: readonly PackageRules[], roots: readonly string[], before: unknown, after: unknown): PatchOperation[] {
  const rootPaths = roots.map((r) => r.split('/').filter((s) => s !== ''));
  const ruleAt = (path: readonly string[]) =>
    packages.some((p) => p.path.length < path.length && isPrefix(p.path, path) && p.ruleNames.includes(path[p.path.length]!));
  const candidates = [...new Map(packages.map((p) => [JSON.stringify(p.path), p.path])).values()]
    .filter((path) => rootPaths.some((r) => r.length < path.length && isPrefix(r, path)))
    .filter((path) => {
      const a = valueAt(before, path);
      const b = valueAt(after, path);
      return !a.found && !b.found && a.objectsOnTheWay && b.objectsOnTheWay && !ruleAt(path);
    })
    .sort((p, q) => p.length - q.length || (JSON.stringify(p) < JSON.stringify(q) ? -1 : 1));
  const kept: (readonly string[])[] = [];
  for (const path of candidates) if (!kept.some((k) => isPrefix(k, path))) kept.push(path);
  return kept.map((path) => ({ op: 'upsert', path: pointer(path), value: {} }));
}
