/**
 * Where review sidecars live and how one is changed safely.
 *
 * - Paths: the sidecar defaults to `<REPORT>.toolgraph-review.json`. Both the report and the
 *   sidecar are resolved through symlinks before anything is read, locked or replaced, so two
 *   aliases of one sidecar share one lock and one history; a sidecar that resolves to the report
 *   itself is refused.
 * - Lock: `<real sidecar>.lock` (cli/file-lock.ts). A writer waits for it (bounded); a lock whose
 *   owner no longer runs on this host is taken over, so a crashed writer does not block the next.
 * - Replace: under the lock the sidecar is re-read, the event appended, the bytes written to a
 *   temp sibling, fsynced and renamed into place (`writeFilesAtomic`), then the folder is fsynced
 *   so the rename itself is durable. A folder fsync that fails after the rename leaves the event
 *   recorded; the caller warns (a retry would append a duplicate).
 */
import { closeSync, existsSync, fsyncSync, openSync, realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ToolgateError } from '../errors.ts';
import { SIDECAR_SUFFIX } from '../review/annotations.ts';
import { withFileLock } from './file-lock.ts';
import { readTextFile, writeFilesAtomic, type ReadOptions } from './fs-io.ts';

/** The real path of `path`, or of its folder joined with its name when the file does not exist yet. */
export function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new ToolgateError('FILE_UNREADABLE', `${path}: cannot resolve: ${(e as NodeJS.ErrnoException).code}`, { at: [{ file: path }] });
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      throw new ToolgateError('FILE_UNREADABLE', `${path}: its folder does not exist`, { at: [{ file: path }] });
    }
  }
}

export interface ReviewPaths {
  readonly report: string;
  readonly sidecar: string;
}

export function reviewPaths(reportPath: string, sidecarPath: string | undefined): ReviewPaths {
  const report = realPathOf(reportPath);
  const sidecar = realPathOf(sidecarPath ?? `${reportPath}${SIDECAR_SUFFIX}`);
  if (sidecar === report) throw new ToolgateError('USAGE', `the review sidecar ${sidecarPath ?? sidecar} is the report itself; the report is never written`);
  return { report, sidecar };
}

/** Runs `fn` holding the sidecar's lock (`<real sidecar>.lock`); waits up to `waitMs` for another writer. */
export function withSidecarLock<T>(sidecar: string, fn: () => T, waitMs = 10_000): T {
  return withFileLock(`${sidecar}.lock`, fn, { waitMs });
}

/** Atomically replaces `path` with `bytes`, then fsyncs its folder; returns a warning when only that last step failed. */
export function replaceDurably(path: string, bytes: Uint8Array): string | undefined {
  writeFilesAtomic([{ path, bytes, flag: '--sidecar' }]);
  let dirFd: number | undefined;
  try {
    dirFd = openSync(dirname(path), 'r');
    fsyncSync(dirFd);
    return undefined;
  } catch (e) {
    return `${dirname(path)}: the folder could not be fsynced after the replace (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); the event is recorded but may not survive a power loss; do not retry (it would append a duplicate)`;
  } finally {
    if (dirFd !== undefined) closeSync(dirFd);
  }
}

/** The sidecar's text, or undefined when there is none; `options.input` false when the run replaces it (annotate). */
export function readSidecarText(sidecar: string, options: ReadOptions = {}): string | undefined {
  if (!existsSync(sidecar)) return undefined;
  // The checked reader: a FIFO is refused rather than waited on, and bytes that are not UTF-8 are refused rather than replaced.
  return readTextFile(sidecar, options);
}
