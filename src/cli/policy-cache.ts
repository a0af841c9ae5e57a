/**
 * The folder `toolgate decide` keeps compiled-policy certificates in (bundle/decider.ts says what
 * they are): TOOLGATE_CACHE_DIR, else $XDG_CACHE_HOME/toolgate, else ~/.cache/toolgate. One file
 * per key, written to a temp name and renamed into place, so concurrent writers never leave a
 * mixed file (they write the same value; the last rename wins). Each file starts with the length
 * and CRC-32 of the rest (what gzip checks its members with; node:crypto is not loaded for it): an
 * entry cut short or altered reads as absent, and the next run rewrites it. A cache
 * that cannot be read or written costs the compile it would have saved, never the command.
 *
 * The key includes the build's digest (dist/build-id.txt, written by the build), so a different
 * toolgate never trusts another's entry. Run from the sources there is no build digest: the cache
 * is then used only when TOOLGATE_CACHE_DIR names it.
 *
 * An entry is trusted (it decides which modules are compiled, and holds the parsed trees of those
 * the decision reaches), so a folder someone else could write to is not used: it must belong to
 * the user running toolgate and be writable by nobody else. A write also removes entries nobody
 * has rewritten for PRUNE_AFTER_DAYS, so the folder does not grow with every bundle ever decided.
 *
 * Bundle views (bundle/decider.ts) go in a folder of their own beside the certificates, kept and
 * pruned alike; none is shipped. The folder records misses, so a view is written on a bundle's
 * second decide, not its first.
 *
 * A build also ships the certificate of the Rego `compile` puts in a bundle (dist/policy-certificates/,
 * made by the build's own decide on the quickstart), so the first decide on such a bundle is warm
 * too. It is read after the user's folder misses, never written, and checked as an entry is: it is
 * part of the package, as trusted as its code.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from '../bundle/gzip-wasm.ts';
import type { PolicyCacheOptions, PolicyCertificateStore } from '../bundle/decider.ts';
import { makeFolders } from './fs-io.ts';
import { packageVersion } from './version.ts';

/** The cache folder the environment names, or undefined when it names none. */
function cacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.TOOLGATE_CACHE_DIR) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.cache', 'toolgate');
  return undefined;
}

/** The certificates the build shipped beside the code. */
const SHIPPED_CERTIFICATES = new URL('../policy-certificates/', import.meta.url);

function buildDigest(): string | undefined {
  try {
    return readFileSync(new URL('../build-id.txt', import.meta.url), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The certificate cache for `decide`, or undefined when there is none to use. */
export function policyCache(env: Readonly<Record<string, string | undefined>>): PolicyCacheOptions | undefined {
  const folder = cacheFolder(env);
  if (folder === undefined) return undefined;
  const build = buildDigest();
  if (build === undefined && !env.TOOLGATE_CACHE_DIR) return undefined;
  const own = folderStore(join(folder, 'policy'));
  const store = build === undefined ? own : withShipped(own, fileURLToPath(SHIPPED_CERTIFICATES));
  // the build digest names the code exactly; from the sources the version is the best there is
  return { store, views: folderStore(join(folder, 'bundles')), engine: build === undefined ? `toolgate ${packageVersion()} sources` : `toolgate ${build}` };
}

/** `own`, falling back on a miss to the read-only entries in `shipped` (a folder of the package). */
export function withShipped(own: PolicyCertificateStore, shipped: string): PolicyCertificateStore {
  return {
    get: (key) => own.get(key) ?? readEntry(join(shipped, `${key}.json`)),
    put: (key, value) => own.put(key, value),
  };
}

/** The body of an entry file, or undefined when it is absent, cut short or altered. */
function readEntry(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const nl = text.indexOf('\n');
  const body = text.slice(nl + 1);
  if (nl < 0 || text.slice(0, nl) !== checkLine(body)) return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** An entry's first line: the body's length in UTF-16 units and its CRC-32 (of the UTF-8 bytes). */
const checkLine = (body: string, utf8: Uint8Array | string = body): string => `${body.length} ${(crc32(utf8) >>> 0).toString(16).padStart(8, '0')}`;

/** Temp names differ between writes of one process; `wx` refuses one that exists all the same. */
let writes = 0;

export const PRUNE_AFTER_DAYS = 30;

/** Whether `dir` is a folder of this user's that nobody else may write to (no owner check where there are no uids). */
function isPrivateFolder(dir: string): boolean {
  let st;
  try {
    st = statSync(dir, { throwIfNoEntry: false });
  } catch {
    return false; // a path through a file, or a symlink loop: no cache there
  }
  if (st === undefined || !st.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  return (st.mode & 0o022) === 0 && (process.getuid === undefined || st.uid === process.getuid());
}

/**
 * Entries as files in `dir`: `<key>.json`, the length and CRC-32 of the body on the first line. A
 * miss is recorded as an empty `<key>.miss` file, removed when the entry is written.
 */
export function folderStore(dir: string, now: () => number = Date.now): PolicyCertificateStore {
  const file = (key: string) => join(dir, `${key}.json`);
  const miss = (key: string) => join(dir, `${key}.miss`);
  return {
    get(key) {
      try {
        if (!isPrivateFolder(dir)) return undefined;
      } catch {
        return undefined;
      }
      return readEntry(file(key));
    },
    put(key, value) {
      const body = JSON.stringify(value);
      const tmp = join(dir, `.${key}.${process.pid}.${now()}.${writes++}.tmp`);
      try {
        makeFolders(dir);
        if (!isPrivateFolder(dir)) return;
        // the body encoded once, for its CRC and for the file
        const bytes = Buffer.from(body, 'utf8');
        writeFileSync(tmp, Buffer.concat([Buffer.from(`${checkLine(body, bytes)}\n`), bytes]), { flag: 'wx', mode: 0o600 });
        renameSync(tmp, file(key));
        rmSync(miss(key), { force: true });
        pruneOlderThan(dir, now() - PRUNE_AFTER_DAYS * 86_400_000);
      } catch {
        removeQuietly(tmp);
      }
    },
    missedBefore(key) {
      try {
        makeFolders(dir);
        if (!isPrivateFolder(dir)) return false;
      } catch {
        return false;
      }
      try {
        writeFileSync(miss(key), '', { flag: 'wx', mode: 0o600 });
        return false;
      } catch (e) {
        // only the record of an earlier miss, not a folder that cannot be written, admits a view
        return (e as { code?: string }).code === 'EEXIST';
      }
    },
  };
}

/** A cache that cannot be written is no cache: not even removing the temp file may fail the command (a cache path through a file, a loop). */
function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // nothing was written there
  }
}

/** Removes the entries (and abandoned temp files, and misses) last written before `before` (ms since the epoch). */
function pruneOlderThan(dir: string, before: number): void {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json') && !name.endsWith('.tmp') && !name.endsWith('.miss')) continue;
    const st = statSync(join(dir, name), { throwIfNoEntry: false });
    if (st !== undefined && st.isFile() && st.mtimeMs < before) rmSync(join(dir, name), { force: true });
  }
}
