/**
 * The folder `toolgate decide` keeps compiled-policy certificates in (bundle/decider.ts says what
 * they are): TOOLGATE_CACHE_DIR, else $XDG_CACHE_HOME/toolgate, else ~/.cache/toolgate. One file
 * per key, written to a temp name and renamed into place, so concurrent writers never leave a
 * mixed file (they write the same value; the last rename wins). Each file starts with the SHA-256
 * of the rest: an entry cut short or altered reads as absent, and the next run rewrites it. A cache
 * that cannot be read or written costs the compile it would have saved, never the command.
 *
 * The key includes the build's digest (dist/build-id.txt, written by the build), so a different
 * toolgate never trusts another's entry. Run from the sources there is no build digest: the cache
 * is then used only when TOOLGATE_CACHE_DIR names it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { PolicyCacheOptions, PolicyCertificateStore } from '../bundle/decider.ts';
import { makeFolders } from './fs-io.ts';
import { packageVersion } from './version.ts';

/** The cache folder the environment names, or undefined when it names none. */
export function cacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (env.TOOLGATE_CACHE_DIR) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.cache', 'toolgate');
  return undefined;
}

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
  return { store: folderStore(join(folder, 'policy')), engine: `toolgate ${packageVersion()} ${build ?? 'sources'}` };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Entries as files in `dir`: `<key>.json`, the SHA-256 of the body on the first line. */
export function folderStore(dir: string): PolicyCertificateStore {
  const file = (key: string) => join(dir, `${key}.json`);
  return {
    get(key) {
      let text: string;
      try {
        text = readFileSync(file(key), 'utf8');
      } catch {
        return undefined;
      }
      const nl = text.indexOf('\n');
      const body = text.slice(nl + 1);
      if (nl !== 64 || text.slice(0, nl) !== sha256(body)) return undefined;
      try {
        return JSON.parse(body) as unknown;
      } catch {
        return undefined;
      }
    },
    put(key, value) {
      const body = JSON.stringify(value);
      const tmp = join(dir, `.${key}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      try {
        makeFolders(dir, 0o700);
        writeFileSync(tmp, `${sha256(body)}\n${body}`, { flag: 'wx', mode: 0o600 });
        renameSync(tmp, file(key));
      } catch {
        rmSync(tmp, { force: true });
      }
    },
  };
}
