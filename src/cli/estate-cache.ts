/**
 * A one-entry cache for a value loaded from files (the estate `toolgate serve` answers from),
 * keyed on the files' identity: device, inode, size, mtime and ctime in nanoseconds. An edit in
 * place changes the size or the times; a re-crawl written atomically (temp file + rename) changes
 * the inode. Either way the next `get` loads afresh.
 *
 * Timestamps can be coarser than the edits they should reveal (a filesystem with one-second
 * times, a rewrite of the same size within that second). As git does for its index ("racy
 * clean"), an entry whose files' mtime was less than RACY_MS old when they were stat'ed is not
 * kept: the next call loads again, until the files are older than that when looked at. (The
 * ctime is in the key but not in this check, so a same-size rewrite that restores the mtime, as
 * `cp -p` or `rsync -t` do, is still seen by its new ctime.)
 */
import { statSync } from 'node:fs';

export const RACY_MS = 2000;

export interface CacheStats {
  /** Calls to `get`. */
  readonly gets: number;
  /** How many of them ran the loader. */
  readonly loads: number;
}

export class FileKeyedCache<T> {
  private key: string | undefined;
  private value: T | undefined;
  private gets = 0;
  private loads = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The cached value while every file in `paths` is unchanged, else `load()`'s (cached when it
   * returns). A file that cannot be stat'ed is left to `load` to report; nothing is cached then.
   */
  get(paths: readonly string[], load: () => T): T {
    this.gets++;
    const seen = identity(paths, this.now());
    if (seen !== undefined && seen.key === this.key && this.value !== undefined) return this.value;
    this.loads++;
    // Identity is taken before reading, so a write during the load shows up as a change next time.
    const value = load();
    this.key = seen !== undefined && !seen.racy ? seen.key : undefined;
    this.value = this.key === undefined ? undefined : value;
    return value;
  }

  stats(): CacheStats {
    return { gets: this.gets, loads: this.loads };
  }
}

function identity(paths: readonly string[], now: number): { key: string; racy: boolean } | undefined {
  const parts: string[] = [];
  let racy = false;
  for (const p of paths) {
    const st = statSync(p, { bigint: true, throwIfNoEntry: false });
    if (st === undefined || !st.isFile()) return undefined;
    parts.push(`${p}\0${st.dev}\0${st.ino}\0${st.size}\0${st.mtimeNs}\0${st.ctimeNs}`);
    if (now - Number(st.mtimeMs) < RACY_MS) racy = true;
  }
  return { key: parts.join('\n'), racy };
}
