/**
 * An exclusive lock between processes, as a lock file created with O_EXCL ('wx') and held open by
 * its owner for as long as it holds the lock.
 *
 * - The file names its owner as `{"pid":N,"host":"H"}`. A lock is stale only when its host is this
 *   host and that pid no longer runs; a lock from another host (a shared folder) or one whose
 *   content cannot be read is never taken over: the waiter gives up with the path to remove.
 * - Taking over a stale lock is serialised by a second exclusive file (`<lock>.break`), and the
 *   owner is re-read under it, so two waiters that both saw the same dead owner cannot each delete
 *   the lock the other has just created.
 * - Release unlinks the lock only while the path is still the file this owner created.
 *
 * Node has no flock(2); an O_EXCL create is the portable exclusive step on local file systems.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { ToolgateError } from '../errors.ts';

export interface LockOwner {
  readonly pid: number;
  readonly host: string;
}

/** The owner a lock file names, or undefined while it is being written or when it is not ours to read. */
export function parseLockOwner(text: string): LockOwner | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v !== 'object' || v === null) return undefined;
    const { pid, host } = v as Record<string, unknown>;
    if (typeof pid !== 'number' || !Number.isSafeInteger(pid) || pid <= 0 || typeof host !== 'string' || host === '') return undefined;
    return { pid, host };
  } catch {
    return undefined;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: the pid runs under another user.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(owner: LockOwner | undefined, host: string): boolean {
  return owner !== undefined && owner.host === host && !pidAlive(owner.pid);
}

function readOwner(path: string): { owner: LockOwner | undefined; ino: number } | undefined {
  try {
    const ino = statSync(path).ino;
    return { owner: parseLockOwner(readFileSync(path, 'utf8')), ino };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function lockError(path: string, message: string): ToolgateError {
  return new ToolgateError('OUTPUT_UNWRITABLE', `${path}: ${message}`, { at: [{ file: path }] });
}

/** Creates `path` exclusively with this process as owner; the open fd, or undefined when it exists. */
function tryCreate(path: string, host: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw lockError(path, `cannot create the lock: ${(e as NodeJS.ErrnoException).code}`);
  }
  writeSync(fd, JSON.stringify({ pid: process.pid, host }));
  fsyncSync(fd);
  return fd;
}

function releaseFd(path: string, fd: number): void {
  try {
    const mine = fstatSync(fd).ino;
    const now = readOwner(path);
    if (now !== undefined && now.ino === mine) rmSync(path, { force: true });
  } finally {
    closeSync(fd);
  }
}

/** Removes `lock` if it still is the stale file seen as `seen`; false when another waiter is breaking it. */
function breakStale(lock: string, seen: { owner: LockOwner | undefined; ino: number }, host: string): boolean {
  const gate = `${lock}.break`;
  let fd = tryCreate(gate, host);
  if (fd === undefined) {
    // A breaker that died inside this short section leaves the gate behind; it is stale the same way.
    const g = readOwner(gate);
    if (g !== undefined && isStale(g.owner, host)) rmSync(gate, { force: true });
    fd = tryCreate(gate, host);
    if (fd === undefined) return false;
  }
  try {
    const now = readOwner(lock);
    if (now !== undefined && now.ino === seen.ino && now.owner?.pid === seen.owner?.pid && isStale(now.owner, host)) rmSync(lock, { force: true });
    return true;
  } finally {
    releaseFd(gate, fd);
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export interface LockOptions {
  /** How long to wait for a live owner before giving up. */
  readonly waitMs?: number;
  /** The name this host writes into its locks (tests use another to stand for a second machine). */
  readonly host?: string;
}

/** Runs `fn` holding the exclusive lock file `lock`, waiting for another owner up to `waitMs`. */
export function withFileLock<T>(lock: string, fn: () => T, options: LockOptions = {}): T {
  const host = options.host ?? hostname();
  const deadline = Date.now() + (options.waitMs ?? 10_000);
  let fd = tryCreate(lock, host);
  while (fd === undefined) {
    const seen = readOwner(lock);
    if (seen !== undefined && isStale(seen.owner, host) && breakStale(lock, seen, host)) {
      // Broken: try to create it at once.
    } else if (Date.now() > deadline) {
      const who = seen?.owner === undefined ? 'an unreadable owner' : `pid ${seen.owner.pid} on ${seen.owner.host === host ? 'this host' : `host ${seen.owner.host}`}`;
      throw lockError(lock, `the lock is held by ${who}; if no writer is running, remove the file`);
    } else {
      Atomics.wait(sleeper, 0, 0, 20);
    }
    fd = tryCreate(lock, host);
  }
  try {
    return fn();
  } finally {
    releaseFd(lock, fd);
  }
}
