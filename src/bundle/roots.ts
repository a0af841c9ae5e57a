/**
 * Bundle roots as OPA's bundle package checks them: containment and overlap of slash paths, the
 * check that every data value sits under a root, and the part of the data OPA keeps.
 */
import { refuse, type Where } from './entry-fault.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { setOwn } from './data-file.ts';

function rootContains(root: readonly string[], other: readonly string[]): boolean {
  if (root.length === 1 && root[0] === '') return true;
  if (root.length > other.length) return false;
  return root.every((s, j) => s === other[j]);
}

/** OPA's RootPathsContain: some root contains the slash path. */
export function rootPathsContain(roots: readonly string[], path: string): boolean {
  const segs = path.split('/');
  return roots.some((r) => rootContains(r.split('/'), segs));
}

export function rootPathsOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return rootContains(x, y) || rootContains(y, x);
}

/** OPA's data check (dfs in validateAndInjectDefaults), quirks included: empty objects pass. */
export function checkDataRoots(value: unknown, path: string, roots: readonly string[], w: Where): void {
  const p = path.replace(/^\/+|\/+$/g, '');
  if (rootPathsContain(roots, p)) return;
  if (isJsonObject(value)) {
    if (!roots.some((r) => rootPathsContain(p.split('/'), r))) {
      refuse(w, `manifest roots ${JSON.stringify(roots)} do not permit data at path /${p}`);
    }
    for (const k of Object.keys(value)) checkDataRoots(value[k], `${path}/${k}`, roots, w);
    return;
  }
  refuse(w, `manifest roots ${JSON.stringify(roots)} do not permit data at path /${p}`);
}

/** What OPA's activation writes to its store: only the values under the bundle's roots. */
export function underRoots(data: Record<string, unknown>, roots: readonly string[]): Record<string, unknown> {
  if (roots.includes('')) return data;
  const out: Record<string, unknown> = {};
  for (const r of roots) {
    const key = r.split('/');
    let v: unknown = data;
    for (const k of key) v = isJsonObject(v) && Object.hasOwn(v, k) ? v[k] : undefined;
    if (v === undefined) continue;
    let node = out;
    for (let i = 0; i < key.length - 1; i++) {
      const k = key[i]!;
      if (!isJsonObject(node[k])) setOwn(node, k, {});
      node = node[k] as Record<string, unknown>;
    }
    setOwn(node, key[key.length - 1]!, v);
  }
  return out;
}
