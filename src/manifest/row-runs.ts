/** A sequence section of the manifest (grants, data_access) as the runs of rows its YAML pieces were read in. */
import type { YamlPiece } from '../parse/yaml-pieces.ts';

/** The runs of `key`'s rows in `pieces`, in order, or undefined when they are not exactly `rows`. */
export function rowRuns<T>(pieces: readonly YamlPiece[], key: string, rows: readonly T[]): (readonly T[])[] | undefined {
  const runs = pieces.filter((p) => p.key === key).map((p) => p.value);
  if (!runs.every((r): r is T[] => Array.isArray(r))) return undefined;
  let n = 0;
  for (const r of runs) n += r.length;
  return n === rows.length ? runs : undefined;
}
