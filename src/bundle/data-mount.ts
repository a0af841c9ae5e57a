/**
 * Mounting a bundle's data files into one data document as OPA does: each file at its entry's
 * folder, deep-merged, two values for one key that are not both objects refused.
 */
import { refuse, type Where } from './entry-fault.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { setOwn } from './data-file.ts';
import { cleanPath } from './entry-names.ts';

/** Go's path.Dir followed by OPA's trimming of leading `/` and `.` characters. */
export function dataKey(entryName: string): string[] {
  const slash = entryName.lastIndexOf('/');
  const dir = cleanPath(slash < 0 ? '' : entryName.slice(0, slash + 1));
  const trimmed = dir.replace(/^[/.]+/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

/** OPA's merge.InterfaceMaps: false when some key holds two values that are not both objects. */
function hasConflict(a: Record<string, unknown>, b: Record<string, unknown>): string[] | undefined {
  for (const k of Object.keys(b).sort()) {
    if (!Object.hasOwn(a, k)) continue;
    const x = a[k];
    const y = b[k];
    if (!isJsonObject(x) || !isJsonObject(y)) return [k];
    const deeper = hasConflict(x, y);
    if (deeper) return [k, ...deeper];
  }
  return undefined;
}

function mergeInto(a: Record<string, unknown>, b: Record<string, unknown>): void {
  for (const k of Object.keys(b)) {
    const x = a[k];
    const y = b[k];
    if (Object.hasOwn(a, k) && isJsonObject(x) && isJsonObject(y)) mergeInto(x, y);
    else setOwn(a, k, y);
  }
}

/** Merges one data file's value, mounted at `key`, into the data document. */
export function insertData(data: Record<string, unknown>, key: string[], value: unknown, w: Where): void {
  let tree: Record<string, unknown>;
  if (key.length === 0) {
    if (!isJsonObject(value)) refuse(w, 'a data file at the bundle root must hold a JSON object');
    tree = value;
  } else {
    tree = {};
    let node = tree;
    for (let i = 0; i < key.length - 1; i++) {
      const next = {};
      setOwn(node, key[i]!, next);
      node = next;
    }
    setOwn(node, key[key.length - 1]!, value);
  }
  const conflict = hasConflict(data, tree);
  if (conflict) refuse(w, `data at /${conflict.join('/')} collides with another data file`);
  mergeInto(data, tree);
}
