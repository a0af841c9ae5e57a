/**
 * The files one CLI run reads as inputs, so that none of its outputs replaces one of them:
 * `diff --declared d.json ... --out d.json` would overwrite the very graph the record was computed
 * from. A file is known by its device and inode (taken from the descriptor it was read through),
 * so `./d.json`, a symbolic link to it and a hard link all name the same input. Every single-file
 * output goes through writeFilesAtomic, which asks here before writing a byte; outside a CLI run
 * (the library) nothing is recorded and nothing refused.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { statSync } from 'node:fs';
import { ToolgateError } from '../errors.ts';

interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/** Per run: each input's identity, and the path it was first read by. */
const runs = new AsyncLocalStorage<Map<string, string>>();

const keyOf = (id: FileIdentity): string => `${id.dev}:${id.ino}`;

/** Runs `fn` (one CLI command) recording the inputs it reads; outputs it writes are checked against them. */
export function recordingInputs<T>(fn: () => T): T {
  return runs.run(new Map(), fn);
}

/** Notes that the current run read `path` (a regular file, identified by `id`) as an input. */
export function recordInput(path: string, id: FileIdentity): void {
  const inputs = runs.getStore();
  if (inputs !== undefined && !inputs.has(keyOf(id))) inputs.set(keyOf(id), path);
}

/** True when both paths exist and are the same file (a link to it included). */
export function isSameFile(a: string, b: string): boolean {
  try {
    const x = statSync(a, { throwIfNoEntry: false });
    const y = statSync(b, { throwIfNoEntry: false });
    return x !== undefined && y !== undefined && x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

/**
 * Refuses, as bad usage, an output that is a file the current run read as an input. Called before
 * anything is written, so a refused run leaves every file as it was. An output that cannot be
 * stat'ed is left to the write, which reports it.
 *
 * @example
 * refuseOutputsOverInputs([{ path: '/w/declared.json', flag: '--out' }]); // USAGE after diff read it
 */
export function refuseOutputsOverInputs(files: readonly { readonly path: string; readonly flag: string }[]): void {
  const inputs = runs.getStore();
  if (inputs === undefined || inputs.size === 0) return;
  for (const f of files) {
    let st;
    try {
      st = statSync(f.path, { throwIfNoEntry: false });
    } catch {
      continue;
    }
    if (!st?.isFile()) continue;
    const input = inputs.get(keyOf(st));
    if (input === undefined) continue;
    const what = input === f.path ? 'is also an input of this run' : `is ${input}, an input of this run`;
    throw new ToolgateError('USAGE', `${f.flag} ${f.path} ${what}; an output never replaces an input: choose another file for ${f.flag}`, { at: [{ file: f.path }] });
  }
}
