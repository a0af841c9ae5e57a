/**
 * The output-folder commit protocol of `compile`: a kill at any instant (SIGKILL, power loss after
 * the fsyncs) leaves in --out either the whole previous artifact set or the whole new one, never a
 * mix, and the next run removes what a killed run left behind.
 *
 * Layout. --out is a symbolic link to a generation folder beside it, in the same parent (so every
 * rename stays on one filesystem):
 *
 *   out -> .out.tg-gen-<pid>-<hex>/        the current set (what `ls out/` and `sha256sum -c` see)
 *   .out.tg-gen-<pid>-<hex>/               a set being written, or an old one not yet removed
 *   .out.tg-link-<pid>-<hex>               a new link not yet renamed over `out`
 *   .out.tg-migrate                        journal: `out` was a real folder being replaced by a link
 *
 * Why a link and not a real folder: replacing one folder by another needs two renames
 * (out -> old, new -> out), and between them `out` is missing; Linux's renameat2(RENAME_EXCHANGE)
 * would swap them in one step but Node does not expose it. rename(2) of a symlink over a symlink is
 * atomic, so the commit is one rename.
 *
 * Commit: write every file into a fresh generation folder (open O_EXCL, mode 0600, fsync), fsync
 * the folder, make a link to it under a temp name, fsync the parent, rename the link over `out`,
 * fsync the parent, then remove the previous generation. A file the caller read from the current
 * set and passes back unchanged (`ArtifactFile.kept`) is hard-linked into the new generation
 * instead, when it is still the file that was read (same inode, size and times); the old set is
 * not touched either way, so a kill still leaves one whole set.
 *
 * A real folder at --out (made by the user, or by an earlier toolgate that wrote files in place) is
 * replaced once by the link. That is the one step with a window: the journal naming the new, fully
 * synced generation is written first, the folder is moved aside, then the link is renamed in; a
 * kill between the last two leaves `out` missing, and the next run (of any `compile` into that
 * --out) finishes the swap from the journal before doing anything else. A real folder holding files
 * toolgate did not write is refused (OUTPUT_NOT_ARTIFACT, as is a file at --out), so nothing of the user's is ever moved; so is a generation
 * folder someone wrote other files into (through the link), since it is removed after the swap. A symlink at --out that
 * toolgate did not make is followed: the protocol runs where it points.
 *
 * Leftovers (generation folders, links and journal temps of runs that are no longer alive) are
 * removed by the next run; a generation folder whose pid is a live process is left alone, so two
 * compiles into different --out folders of one parent never remove each other's work.
 */
import { linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ToolgateError } from '../errors.ts';
import { fsyncFolder, makeFolders, writeNewFileSynced, type StreamedBytes } from './fs-io.ts';

/** A step of the protocol, after which the test hook may pause. */
export type CommitStep =
  | 'recovered'
  | 'generation-created'
  | `wrote:${string}`
  | 'generation-synced'
  | 'link-created'
  | 'journal-written'
  | 'folder-moved-aside'
  | 'swapped'
  | 'done';

export interface ArtifactFile {
  /** A plain file name (no folder part). */
  readonly name: string;
  readonly bytes: Uint8Array | StreamedBytes;
  /** The file of the current set these bytes were read from, which the new set may share (see `keptFile`). */
  readonly kept?: KeptFile;
}

/** A file of the current set, with its identity (`fileIdentity`) when its bytes were read. */
export interface KeptFile {
  readonly path: string;
  readonly identity: string;
}

/** Device, inode, size, mtime and ctime (ns) of a file, or undefined when it is not a regular file. */
export function fileIdentity(path: string): string | undefined {
  const st = statSync(path, { bigint: true, throwIfNoEntry: false });
  return st?.isFile() ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : undefined;
}

export interface ArtifactSetOptions {
  /** Called after each step; the CLI passes the TOOLGATE_TEST_PAUSE_AT hook here. */
  readonly pause?: (step: CommitStep) => void;
  readonly mode?: number;
}

const TAG = '.tg-';

/**
 * The test hook: with TOOLGATE_TEST_PAUSE_AT=STEP in the environment, the process prints
 * `toolgate: test pause at STEP (pid N)` on stderr when it reaches STEP and then blocks forever
 * (a test kills it there). Without the variable there is no hook at all.
 */
export function testPauseFromEnv(env: Readonly<Record<string, string | undefined>>): ((step: CommitStep) => void) | undefined {
  const at = env.TOOLGATE_TEST_PAUSE_AT;
  if (at === undefined || at === '') return undefined;
  return (step) => {
    if (step !== at) return;
    writeSync(2, `toolgate: test pause at ${step} (pid ${process.pid})\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  };
}

function fail(message: string, cause?: unknown): never {
  throw new ToolgateError('OUTPUT_UNWRITABLE', message, cause === undefined ? {} : { cause });
}

function errno(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | undefined)?.code;
}

interface Names {
  readonly out: string;
  readonly parent: string;
  readonly base: string;
  readonly journal: string;
}

function namesOf(out: string): Names {
  const parent = dirname(out);
  const base = basename(out);
  return { out, parent, base, journal: join(parent, `.${base}${TAG}migrate`) };
}

function fresh(n: Names, kind: 'gen' | 'link' | 'journal'): string {
  return `.${n.base}${TAG}${kind}-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/** The pid of a leftover name of this --out, or undefined when the name is not one of ours. */
function leftoverPid(n: Names, name: string): number | undefined {
  const prefix = `.${n.base}${TAG}`;
  if (!name.startsWith(prefix)) return undefined;
  const m = /^(?:gen|link|journal)-(\d+)-[0-9a-f]{12}$/.exec(name.slice(prefix.length));
  return m ? Number(m[1]) : undefined;
}

function isManagedTarget(n: Names, target: string): boolean {
  return !target.includes('/') && target.startsWith(`.${n.base}${TAG}gen-`) && leftoverPid(n, target) !== undefined;
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errno(e) === 'EPERM';
  }
}

type OutState = { kind: 'missing' } | { kind: 'link'; target: string } | { kind: 'folder' };

function stateOf(n: Names): OutState {
  let st;
  try {
    st = lstatSync(n.out);
  } catch (e) {
    if (errno(e) === 'ENOENT') return { kind: 'missing' };
    fail(`cannot write output: ${n.out}: ${errno(e) ?? (e as Error).message}`, e);
  }
  if (st.isSymbolicLink()) return { kind: 'link', target: readlinkSync(n.out) };
  if (st.isDirectory()) return { kind: 'folder' };
  refuseForeign(`refusing to replace ${n.out}: it is a file, not a folder`, n.out);
}

/** What an --out of compile may be: said in every refusal, so the fix is obvious. */
const EXPECTED_OUT = 'compile --out takes a new or empty folder, or one toolgate compiled into (its files listed in SHA256SUMS)';

function refuseForeign(message: string, path: string): never {
  throw new ToolgateError('OUTPUT_NOT_ARTIFACT', `${message}; ${EXPECTED_OUT}`, { at: [{ file: path }] });
}

/** Where the protocol runs: --out itself, or where a symlink that toolgate did not make points. */
function resolveOut(out: string): Names {
  const n = namesOf(out);
  const s = stateOf(n);
  if (s.kind !== 'link' || isManagedTarget(n, s.target)) return n;
  let real: string;
  try {
    real = realpathSync(out);
  } catch (e) {
    fail(`cannot write output: ${out} is a symbolic link to ${s.target}, which cannot be reached (${errno(e) ?? (e as Error).message})`, e);
  }
  const r = namesOf(real);
  if (stateOf(r).kind !== 'folder') fail(`cannot write output: ${out} points to ${real}, which is not a folder`);
  return r;
}

/** Renames a fresh link to `target` over --out (one atomic step), with the parent fsynced. */
function swapLink(n: Names, target: string, pause?: (step: CommitStep) => void): void {
  const link = join(n.parent, fresh(n, 'link'));
  symlinkSync(target, link);
  fsyncFolder(n.parent);
  pause?.('link-created');
  renameSync(link, n.out);
  fsyncFolder(n.parent);
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
  } catch {
    // A leftover that cannot be removed now is tried again by the next run.
  }
}

/**
 * Finishes an interrupted replacement of a real folder and removes what killed runs left behind.
 * Touches nothing in --out itself except to restore it. Returns the folder the protocol runs on.
 */
export function recoverArtifactSet(out: string, options: ArtifactSetOptions = {}): string {
  const n = resolveOut(out);
  let journal: string | undefined;
  try {
    journal = readFileSync(n.journal, 'utf8').trim();
  } catch (e) {
    if (errno(e) !== 'ENOENT' && errno(e) !== 'ENOTDIR') fail(`cannot write output: cannot read ${n.journal}: ${errno(e) ?? (e as Error).message}`, e);
  }
  try {
    if (journal !== undefined) {
      // The journal is written only once the generation it names is complete and synced.
      if (stateOf(n).kind === 'missing' && isManagedTarget(n, journal) && statSync(join(n.parent, journal), { throwIfNoEntry: false })?.isDirectory()) {
        swapLink(n, journal);
      }
      rmSync(n.journal, { force: true });
      fsyncFolder(n.parent);
    }
    const s = stateOf(n);
    const current = s.kind === 'link' ? s.target : undefined;
    let entries: string[] = [];
    try {
      entries = readdirSync(n.parent);
    } catch {
      entries = [];
    }
    for (const name of entries) {
      if (name === current) continue;
      const pid = leftoverPid(n, name);
      if (pid === undefined || alive(pid)) continue;
      removeQuietly(join(n.parent, name));
    }
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    fail(`cannot write output: cannot recover ${n.out}: ${errno(e) ?? (e as Error).message}`, e);
  }
  options.pause?.('recovered');
  return n.out;
}

/** Links `kept` at `target` when it is still the file its bytes were read from; false (nothing made) otherwise. */
function linkedUnchanged(kept: KeptFile, target: string): boolean {
  if (fileIdentity(kept.path) !== kept.identity) return false;
  try {
    linkSync(kept.path, target);
    return true;
  } catch {
    return false;
  }
}

/** Names a previous set in a real folder may hold: its SHA256SUMS entries and the old writer's temps. */
function previousSetNames(dir: string): Set<string> {
  const names = new Set<string>(['SHA256SUMS']);
  try {
    for (const line of readFileSync(join(dir, 'SHA256SUMS'), 'utf8').split('\n')) {
      const m = /^[0-9a-f]+ [ *](.+)$/.exec(line);
      if (m) names.add(m[1]!);
    }
  } catch {
    // no SHA256SUMS: only the new set's names are accepted
  }
  return names;
}

/**
 * Commits `files` as the artifact set in `out`, all or nothing (see the module comment).
 *
 * @example
 * commitArtifactSet('/srv/out', [{ name: 'data.json', bytes }, { name: 'SHA256SUMS', bytes: sums }]);
 */
export function commitArtifactSet(out: string, files: readonly ArtifactFile[], options: ArtifactSetOptions = {}): void {
  const pause = options.pause;
  const mode = options.mode ?? 0o600;
  for (const f of files) if (f.name === '' || f.name.includes('/') || f.name.startsWith('.')) throw new Error(`artifact name ${JSON.stringify(f.name)} is not a plain file name`);
  const n = namesOf(recoverArtifactSet(out));
  const before = stateOf(n);
  if (before.kind !== 'missing') {
    // Only a folder holding nothing but a toolgate set (or nothing) is replaced: a file someone
    // else put in --out (or in the generation it links to) would be removed with it.
    const allowed = previousSetNames(n.out);
    for (const f of files) allowed.add(f.name);
    const foreign = readdirSync(n.out).filter((e) => !allowed.has(e) && !/^\..+\.[0-9a-f]{12}\.tmp$/.test(e)).sort();
    if (foreign.length > 0) {
      refuseForeign(`refusing to replace ${n.out}: it holds files toolgate did not write (${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ', …' : ''})`, n.out);
    }
  }
  makeFolders(n.parent);
  const gen = fresh(n, 'gen');
  const genPath = join(n.parent, gen);
  try {
    mkdirSync(genPath, { mode: 0o700 });
  } catch (e) {
    fail(`cannot write output: cannot make a folder beside ${n.out}: ${errno(e) ?? (e as Error).message}`, e);
  }
  let swapped = false;
  let aside: string | undefined;
  try {
    pause?.('generation-created');
    for (const f of files) {
      // A file the new set holds unchanged is linked into it, not written again: the link names
      // the same synced bytes, and the current set is left as it was (its own name stays).
      if (f.kept === undefined || !linkedUnchanged(f.kept, join(genPath, f.name))) writeNewFileSynced(join(genPath, f.name), f.bytes, mode);
      pause?.(`wrote:${f.name}`);
    }
    fsyncFolder(genPath);
    fsyncFolder(n.parent);
    pause?.('generation-synced');
    if (before.kind === 'folder') {
      const tmp = join(n.parent, fresh(n, 'journal'));
      writeNewFileSynced(tmp, new TextEncoder().encode(`${gen}\n`), 0o600);
      renameSync(tmp, n.journal);
      fsyncFolder(n.parent);
      pause?.('journal-written');
      aside = fresh(n, 'gen');
      renameSync(n.out, join(n.parent, aside));
      fsyncFolder(n.parent);
      pause?.('folder-moved-aside');
    }
    swapLink(n, gen, pause);
    swapped = true;
    pause?.('swapped');
    if (before.kind === 'folder') {
      rmSync(n.journal, { force: true });
      fsyncFolder(n.parent);
    }
    const old = before.kind === 'link' ? before.target : aside;
    if (old !== undefined && old !== gen) removeQuietly(join(n.parent, old));
    pause?.('done');
  } catch (e) {
    if (!swapped) {
      // Not committed: put a folder moved aside back, then drop the new generation and the journal.
      try {
        if (aside !== undefined && stateOf(n).kind === 'missing') renameSync(join(n.parent, aside), n.out);
        if (stateOf(n).kind !== 'missing') {
          rmSync(n.journal, { force: true });
          removeQuietly(genPath);
        }
        fsyncFolder(n.parent);
      } catch {
        // the journal and the generation stay: the next run finishes the swap
      }
    }
    if (e instanceof ToolgateError) throw e;
    fail(`cannot write output: ${n.out}: ${errno(e) ?? (e as Error).message}`, e);
  }
}
