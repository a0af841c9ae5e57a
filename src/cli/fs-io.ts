/**
 * The filesystem edge: reading inputs with located errors and writing outputs atomically
 * (temp file in the same folder, fsync, rename) with private permissions.
 */
import { constants, mkdirSync, openSync, writeSync, fsyncSync, fstatSync, closeSync, readSync, renameSync, rmSync, statSync, existsSync } from 'node:fs';
import { dirname, basename, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolgateError } from '../errors.ts';
import { utf8Text } from '../parse/utf8-text.ts';
import { recordInput, refuseOutputsOverInputs } from './run-inputs.ts';

/** Largest input file toolgate reads (bytes). Larger files are refused before parsing. */
export const MAX_INPUT_BYTES = 256 * 1024 * 1024;

export interface ReadOptions {
  /**
   * false for a file that is not an input an output of this run could destroy: the earlier version
   * of an output the run replaces (the --out file whose graph_state it continues, a sidecar it
   * updates), or a bundle a server reloads for as long as it runs. Default true (run-inputs.ts).
   */
  readonly input?: boolean;
}

export function readTextFile(path: string, options: ReadOptions = {}): string {
  return utf8Text(readBytesFile(path, options), path);
}

function unreadable(path: string, e: unknown): ToolgateError {
  return new ToolgateError('FILE_UNREADABLE', `${path}: cannot read: ${errno(e) ?? (e as Error).message}`, { at: [{ file: path }], cause: e });
}

function tooLarge(path: string, size: number | string): ToolgateError {
  return new ToolgateError('INPUT_TOO_LARGE', `${path}: ${size} bytes exceeds the ${MAX_INPUT_BYTES}-byte input limit`, { at: [{ file: path }] });
}

/**
 * An input file's bytes. Opened without blocking and checked on the open descriptor, so a FIFO
 * (whose open would wait for a writer) or a device such as /dev/zero (which never ends) is refused
 * instead of hanging; read from that one descriptor up to the input limit, so a file swapped or
 * grown while it is read cannot slip past the checks made on it.
 */
export function readBytesFile(path: string, options: ReadOptions = {}): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw errno(e) === 'EISDIR' ? new ToolgateError('FILE_UNREADABLE', `${path}: not a regular file`, { at: [{ file: path }] }) : unreadable(path, e);
  }
  try {
    let size: number;
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) throw new ToolgateError('FILE_UNREADABLE', `${path}: not a regular file`, { at: [{ file: path }] });
      size = st.size;
      if (options.input !== false) recordInput(path, st);
    } catch (e) {
      throw e instanceof ToolgateError ? e : unreadable(path, e);
    }
    if (size > MAX_INPUT_BYTES) throw tooLarge(path, size);
    return readToEnd(fd, path, size);
  } finally {
    closeSync(fd);
  }
}

/** Reads `fd` to its end, starting with a buffer of the size fstat gave (0 for /proc files, which still hold bytes). */
function readToEnd(fd: number, path: string, sizeHint: number): Uint8Array {
  let buf = Buffer.allocUnsafe(Math.max(sizeHint + 1, 4096));
  let len = 0;
  for (;;) {
    if (len === buf.length) {
      if (len > MAX_INPUT_BYTES) throw tooLarge(path, `more than ${MAX_INPUT_BYTES}`);
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, MAX_INPUT_BYTES + 1));
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    let n: number;
    try {
      n = readSync(fd, buf, len, buf.length - len, null);
    } catch (e) {
      throw unreadable(path, e);
    }
    if (n === 0) break;
    len += n;
  }
  if (len > MAX_INPUT_BYTES) throw tooLarge(path, `more than ${MAX_INPUT_BYTES}`);
  return buf.subarray(0, len);
}

/** Bytes made in pieces: calls `write` with each chunk in order (a chunk is valid only during the call). */
export type StreamedBytes = (write: (chunk: Uint8Array) => void) => void;

export interface OutputFile {
  readonly path: string;
  /** How the user named this output, for messages: its option (`--out`, `--sidecar`). */
  readonly flag: string;
  /** The file's bytes, whole or streamed (a large artifact never held whole). */
  readonly bytes: Uint8Array | StreamedBytes;
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

/** fsync of a folder, so the names in it (renames, new entries) are durable. */
export function fsyncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    // Some filesystems cannot fsync a folder; there is nothing more to do there.
    if (!['EINVAL', 'ENOTSUP', 'EISDIR', 'EPERM', 'EBADF'].includes(errno(e) ?? '')) throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * `mkdir -p` without Node's `{ recursive: true }`, which never returns for a path under /proc
 * (it retries forever); each missing level is made once, and any failure is an error.
 */
export function makeFolders(dir: string, mode = 0o700): void {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      if (!statSync(d).isDirectory()) throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${d} is not a folder`);
      break;
    } catch (e) {
      if (e instanceof ToolgateError) throw e;
      if (errno(e) !== 'ENOENT' || dirname(d) === d) throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${d}: ${errno(e) ?? (e as Error).message}`, { cause: e });
      missing.push(d);
    }
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d, { mode });
    } catch (e) {
      if (errno(e) !== 'EEXIST') throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: cannot make folder ${d}: ${errno(e) ?? (e as Error).message}`, { cause: e });
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Creates `path` (it must not exist), writes the bytes or the stream into it and fsyncs it. */
export function writeNewFileSynced(path: string, bytes: Uint8Array | StreamedBytes, mode: number): void {
  const fd = openSync(path, 'wx', mode);
  try {
    if (typeof bytes === 'function') bytes((chunk) => writeAll(fd, chunk));
    else writeAll(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes every file to a temp sibling, fsyncs, then renames them all into place. Everything is
 * produced in memory first (or streamed into the temp file), so an error before the renames
 * leaves earlier artifacts untouched, and no temp file is left behind. A SIGINT or SIGTERM that
 * arrives meanwhile takes effect once the renames are done (see deferringSignals), so a signal
 * never leaves some files old and some new; only SIGKILL can, and `compile` writes its set with
 * commitArtifactSet, which survives even that.
 */
export function writeFilesAtomic(files: readonly OutputFile[], mode = 0o600): void {
  deferringSignals(() => writeFilesNow(files, mode));
}

function writeFilesNow(files: readonly OutputFile[], mode: number): void {
  // Two outputs in one place: the second rename would silently replace the first.
  const seen = new Set<string>();
  for (const f of files) {
    const p = resolve(f.path);
    if (seen.has(p)) throw new ToolgateError('USAGE', `${f.path} is named for two outputs of this run; give each output its own file`, { at: [{ file: f.path }] });
    seen.add(p);
  }
  refuseOutputsOverInputs(files);
  const temps: { tmp: string; path: string }[] = [];
  const inPlace: OutputFile[] = [];
  let current = files[0]?.path ?? '';
  try {
    for (const f of files) {
      current = f.path;
      const st = statSync(f.path, { throwIfNoEntry: false });
      // Caught here, before any byte is written: a rename onto a folder fails only after the temp file was made.
      if (st?.isDirectory()) throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${f.path} is a folder`, { at: [{ file: f.path }] });
      // A device or FIFO (/dev/null, /dev/stdout) is written into, never renamed over: that would put
      // a regular file where the device was, in /dev itself when run as root.
      if (st !== undefined && !st.isFile()) {
        inPlace.push(f);
        continue;
      }
      const dir = dirname(f.path);
      makeFolders(dir);
      const tmp = join(dir, tempName(basename(f.path)));
      temps.push({ tmp, path: f.path });
      writeNewFileSynced(tmp, f.bytes, mode);
    }
    for (const f of inPlace) {
      current = f.path;
      writeInPlace(f);
    }
    for (const t of temps) {
      current = t.path;
      renameSync(t.tmp, t.path);
      testPause('write-files:renamed-one');
    }
    for (const dir of new Set(temps.map((t) => dirname(t.path)))) fsyncFolder(dir);
  } catch (e) {
    for (const t of temps) if (existsSync(t.tmp)) rmSync(t.tmp, { force: true });
    if (e instanceof ToolgateError) throw e;
    throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${current}: ${errno(e) ?? (e as Error).message}`, { at: [{ file: current }], cause: e });
  }
}

/** Writes into an existing device or FIFO; a FIFO nobody reads is refused rather than waited on. */
function writeInPlace(f: OutputFile): void {
  let fd: number;
  try {
    fd = openSync(f.path, constants.O_WRONLY | constants.O_NONBLOCK);
  } catch (e) {
    if (errno(e) === 'ENXIO') throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${f.path} is a FIFO no process is reading`, { at: [{ file: f.path }], cause: e });
    throw e;
  }
  try {
    const put = (chunk: Uint8Array) => writeAllWaiting(fd, chunk);
    if (typeof f.bytes === 'function') f.bytes(put);
    else put(f.bytes);
  } finally {
    closeSync(fd);
  }
}

/** writeAll on a descriptor opened non-blocking: a full pipe (EAGAIN) is waited out a millisecond at a time. */
function writeAllWaiting(fd: number, bytes: Uint8Array): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(fd, bytes, off, bytes.length - off);
    } catch (e) {
      if (errno(e) !== 'EAGAIN') throw e;
      Atomics.wait(pause, 0, 0, 1);
    }
  }
}

/**
 * The temp sibling of an output named `base`: the name's start, so a leftover says whose it was,
 * cut short so that a name the filesystem takes (up to 255 bytes) still has a temp name it takes.
 */
function tempName(base: string): string {
  const head = [...base].slice(0, 48).join('');
  return `.${head}.${randomBytes(6).toString('hex')}.tmp`;
}

const DEFERRED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const deferred = { writes: 0, attached: false, caught: new Set<NodeJS.Signals>() };
const holdSignal = (signal: NodeJS.Signals): void => void deferred.caught.add(signal);

/**
 * Runs a synchronous write with SIGINT, SIGTERM and SIGHUP caught. Node delivers a caught signal
 * to JavaScript only between synchronous runs, so the write finishes first; the signal is then
 * raised again with the listener gone, and acts as it would have (the default ends the process,
 * a command's own listener such as --watch's still runs). The listener stays until the event loop
 * has polled once after the write (two turns of setImmediate), which is when a signal that came
 * during the write is delivered.
 */
function deferringSignals(write: () => void): void {
  if (!deferred.attached) {
    for (const s of DEFERRED_SIGNALS) process.on(s, holdSignal);
    deferred.attached = true;
  }
  deferred.writes++;
  try {
    write();
  } finally {
    deferred.writes--;
    setImmediate(() => setImmediate(releaseSignals));
  }
}

function releaseSignals(): void {
  if (deferred.writes > 0 || !deferred.attached) return;
  for (const s of DEFERRED_SIGNALS) process.off(s, holdSignal);
  deferred.attached = false;
  const caught = [...deferred.caught];
  deferred.caught.clear();
  for (const s of caught) process.kill(process.pid, s);
}

/**
 * The test hook: with TOOLGATE_TEST_PAUSE_AT=STEP, the process prints
 * `toolgate: test pause at STEP (pid N)` on stderr and waits 2 s there, so a test can signal it
 * mid-write. Read from the process environment: only a test that spawns the CLI sets it.
 */
function testPause(step: string): void {
  if (process.env.TOOLGATE_TEST_PAUSE_AT !== step) return;
  writeSync(2, `toolgate: test pause at ${step} (pid ${process.pid})\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000);
}

export function writeFileAtomic(out: { readonly path: string; readonly flag: string }, bytes: Uint8Array | string, mode = 0o600): void {
  writeFilesAtomic([{ ...out, bytes: typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes }], mode);
}
