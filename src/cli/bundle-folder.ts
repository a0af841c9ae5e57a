/**
 * The filesystem side of `toolgate bundle serve`: compile output folders watched for a new
 * revision, and the status / decision-log files the receivers append to.
 *
 * A revision is taken up only whole: `bundle.tar.gz` is read in one go (compile renames it into
 * place, so a read sees the old bytes or the new, never a mix), checked as a bundle (safe tarball,
 * a `.manifest`), and only then swapped in; a folder caught half-written, or a bundle that does not
 * read, leaves the previous revision served and says so. A delta (`delta.tar.gz` with its
 * `delta.json`) is offered only when its record names the bundle being served as its target and the
 * delta's bytes match the recorded digest, so a delta left from an older compile is never served.
 */
import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, statSync, watch, writeSync, type FSWatcher } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { readTarball } from '../bundle/read-tarball.ts';
import { ToolgateError } from '../errors.ts';
import type { BundleSource, ReportSink, ServedBundle } from '../bundle-service/handler.ts';
import type { ReportKind } from '../bundle-service/reports.ts';
import { DELTA_RECORD_FILE, DELTA_TARBALL_FILE, parseDeltaRecord } from '../compile/delta.ts';
import { makeFolders, readBytesFile, readTextFile } from './fs-io.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export interface FolderSpec {
  readonly name: string;
  readonly dir: string;
}

/** `NAME=DIR` or `DIR` (the name is the folder's base name). */
export function folderSpec(arg: string, cwd: string): FolderSpec {
  const eq = arg.indexOf('=');
  const name = eq > 0 ? arg.slice(0, eq) : basename(resolve(cwd, arg));
  const dir = resolve(cwd, eq > 0 ? arg.slice(eq + 1) : arg);
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name)) {
    throw new ToolgateError('USAGE', `bundle name ${JSON.stringify(name)} (from ${JSON.stringify(arg)}) must be letters, digits, '.', '_' or '-'; write NAME=DIR`);
  }
  return { name, dir };
}

async function loadFolder(spec: FolderSpec): Promise<ServedBundle> {
  const path = join(spec.dir, 'bundle.tar.gz');
  let bytes: Uint8Array;
  try {
    // The checked reader: a FIFO or device put where the bundle goes is refused, never waited on by the server.
    // Not recorded as an input: the server reloads each new bundle for as long as it runs.
    bytes = readBytesFile(path, { input: false });
  } catch (e) {
    throw new ToolgateError('BUNDLE_SERVE_REFUSED', (e as Error).message, { at: [{ file: path }], cause: e });
  }
  const files = await readTarball(bytes, path);
  const manifestFile = files.find((f) => f.name === '.manifest');
  if (!manifestFile) throw new ToolgateError('BUNDLE_SERVE_REFUSED', `${path}: no .manifest (not a compiled bundle)`, { at: [{ file: path }] });
  let revision: string | null = null;
  try {
    const m = JSON.parse(new TextDecoder().decode(manifestFile.bytes)) as { revision?: unknown };
    revision = typeof m.revision === 'string' ? m.revision : null;
  } catch {
    throw new ToolgateError('BUNDLE_SERVE_REFUSED', `${path}: .manifest is not JSON`, { at: [{ file: path, path: '.manifest' }] });
  }
  const etag = sha256(bytes);
  return { name: spec.name, etag, revision, bytes, ...deltaFor(spec.dir, etag) };
}

function deltaFor(dir: string, etag: string): Pick<ServedBundle, 'delta'> {
  try {
    const record = parseDeltaRecord(readTextFile(join(dir, DELTA_RECORD_FILE), { input: false }), join(dir, DELTA_RECORD_FILE));
    if (record.to.sha256 !== etag) return {};
    const bytes = readBytesFile(join(dir, DELTA_TARBALL_FILE), { input: false });
    if (sha256(bytes) !== record.sha256) return {};
    return { delta: { fromEtag: record.from.sha256, bytes } };
  } catch {
    return {};
  }
}

function identity(dir: string): string {
  try {
    const s = statSync(join(dir, 'bundle.tar.gz'));
    let d = '';
    try {
      const r = statSync(join(dir, DELTA_RECORD_FILE));
      d = `${r.ino}:${r.mtimeMs}:${r.size}`;
    } catch {
      // no delta record
    }
    return `${s.ino}:${s.mtimeMs}:${s.size}:${d}`;
  } catch {
    return 'missing';
  }
}

export interface WatchedFolders extends BundleSource {
  close(): void;
}

/**
 * Loads every folder (refusing to start when one holds no readable bundle), then re-reads a folder
 * whenever its bundle's identity (inode, mtime, size) changes: on a watch event, and every
 * `pollMs` as a fallback for filesystems without events.
 */
export async function watchFolders(specs: readonly FolderSpec[], options: { pollMs?: number; settleMs?: number; warn?: (line: string) => void; onCommit?: (b: ServedBundle) => void } = {}): Promise<WatchedFolders> {
  const warn = options.warn ?? (() => {});
  const settleMs = options.settleMs ?? 50;
  const current = new Map<string, ServedBundle>();
  const ids = new Map<string, string>();
  const listeners = new Set<(name: string) => void>();
  for (const spec of specs) {
    if (current.has(spec.name)) throw new ToolgateError('USAGE', `bundle name ${JSON.stringify(spec.name)} is served twice; write NAME=DIR`);
    ids.set(spec.name, identity(spec.dir));
    current.set(spec.name, await loadFolder(spec));
  }
  const busy = new Set<string>();
  const check = async (spec: FolderSpec) => {
    if (busy.has(spec.name)) return;
    let id = identity(spec.dir);
    if (id === ids.get(spec.name)) return;
    busy.add(spec.name);
    try {
      // Let a writer that renames files one at a time (bundle, then delta) finish: read once the
      // folder has looked the same for settleMs (a set committed by one link swap settles at once).
      for (let i = 0; i < 20; i++) {
        await new Promise((r) => setTimeout(r, settleMs));
        const again = identity(spec.dir);
        if (again === id) break;
        id = again;
      }
      const next = await loadFolder(spec);
      ids.set(spec.name, id);
      const prev = current.get(spec.name);
      if (prev?.etag === next.etag && Boolean(prev.delta) === Boolean(next.delta)) return;
      current.set(spec.name, next);
      options.onCommit?.(next);
      for (const l of listeners) l(spec.name);
    } catch (e) {
      // Keep serving the previous revision; look again on the next event or poll.
      warn(`toolgate: warning: ${spec.name}: keeping revision ${current.get(spec.name)?.revision ?? '?'}: ${(e as Error).message}\n`);
      ids.set(spec.name, id);
    } finally {
      busy.delete(spec.name);
    }
  };
  const watchers: FSWatcher[] = [];
  // The folder itself, and its parent: compile commits a new set by renaming a link over --out,
  // which the parent sees (the old generation folder, watched through the link, never changes).
  for (const spec of specs) {
    for (const d of [spec.dir, dirname(spec.dir)]) {
      try {
        watchers.push(watch(d, { persistent: false }, () => void check(spec)));
      } catch {
        // polling alone
      }
    }
  }
  const timer = setInterval(() => specs.forEach((s) => void check(s)), options.pollMs ?? 250);
  timer.unref();
  return {
    get: (name) => current.get(name),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      clearInterval(timer);
      for (const w of watchers) w.close();
    },
  };
}

/**
 * Appends reports as JSON lines to `DIR/status.jsonl` and `DIR/decision-logs.jsonl`: one write
 * per POST, fsynced before the POST is acknowledged, serialised so batches never interleave.
 */
export function fileReportSink(dir: string): ReportSink & { readonly files: Record<ReportKind, string> } {
  makeFolders(dir);
  const files: Record<ReportKind, string> = { status: join(dir, 'status.jsonl'), logs: join(dir, 'decision-logs.jsonl') };
  let queue: Promise<void> = Promise.resolve();
  return {
    files,
    append(kind, records) {
      const text = records.map((r) => `${JSON.stringify(r)}\n`).join('');
      const run = queue.then(() => {
        const path = files[kind];
        makeFolders(dirname(path));
        const fd = openSync(path, 'a', 0o600);
        const before = fstatSync(fd).size;
        try {
          const bytes = Buffer.from(text);
          let off = 0;
          while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
          fsyncSync(fd);
        } catch (e) {
          // A batch half written (a full disk) is taken back whole: OPA retries it, and the file
          // never holds a torn line or, after the retry, a duplicated half.
          try {
            ftruncateSync(fd, before);
          } catch {
            // nothing more can be done; the error below still fails the POST
          }
          throw e;
        } finally {
          closeSync(fd);
        }
      });
      queue = run.catch(() => {});
      return run;
    },
  };
}
