/**
 * What `--out FILE` may replace: nothing, an empty file, or an earlier output of the same kind.
 * Anything else (the user's notes, a hand-written catalog, a folder) is refused untouched with
 * OUTPUT_NOT_ARTIFACT, saying what toolgate expected to find there, so a mistyped --out never
 * overwrites a file toolgate did not write. The artifact set of `compile` has its own rule
 * (artifact-set.ts).
 */
import { lstatSync, readSync, openSync, closeSync, statSync, type Stats } from 'node:fs';
import { ToolgateError } from '../errors.ts';

export interface OutputKind {
  /** What an earlier output of this kind is, for the refusal ("a toolgate catalog (kind toolgate.catalog)"). */
  readonly what: string;
  /** True when the sample of an existing file (its first and last SNIFF_BYTES) is an earlier output of this kind. */
  readonly recognise: (head: string) => boolean;
}

/** How much of each end of an existing file is read to recognise it. */
export const SNIFF_BYTES = 64 * 1024;

/**
 * A JSON artifact carrying `"kind": KIND`. Canonical key order can put `kind` after a long member
 * (an audit report's `audits`), so the marker may be in either end of the sample.
 */
export function jsonKind(kind: string, what: string): OutputKind {
  const marker = new RegExp(`"kind"\\s*:\\s*"${kind.replace(/\./g, '\\.')}"`);
  return { what: `${what} (JSON with "kind": "${kind}")`, recognise: (head) => head.trimStart().startsWith('{') && marker.test(head) };
}

export function anyOf(what: string, kinds: readonly OutputKind[]): OutputKind {
  return { what: `${what}: ${kinds.map((k) => k.what).join(', or ')}`, recognise: (head) => kinds.some((k) => k.recognise(head)) };
}

function refuse(path: string, found: string, kind: OutputKind): never {
  throw new ToolgateError('OUTPUT_NOT_ARTIFACT', `refusing to overwrite ${path}: it is ${found}, and toolgate replaces only ${kind.what} there; move it away or choose another --out`, {
    at: [{ file: path }],
  });
}

/** The first SNIFF_BYTES of a file, followed by its last SNIFF_BYTES when it is longer than that. */
function sample(path: string, size: number): string {
  const fd = openSync(path, 'r');
  try {
    const read = (at: number) => {
      const buf = Buffer.alloc(SNIFF_BYTES);
      return buf.subarray(0, readSync(fd, buf, 0, SNIFF_BYTES, at)).toString('utf8');
    };
    return size <= SNIFF_BYTES ? read(0) : `${read(0)}\n${read(Math.max(SNIFF_BYTES, size - SNIFF_BYTES))}`;
  } finally {
    closeSync(fd);
  }
}

/**
 * Refuses `path` unless writing `kind` there loses nothing: it is missing, empty, or an earlier
 * output of that kind. A symbolic link is judged by what it points to.
 *
 * @example
 * assertReplaceableOutput('/work/catalog.json', CATALOG_OUTPUT); // throws OUTPUT_NOT_ARTIFACT on a README
 */
export function assertReplaceableOutput(path: string, kind: OutputKind): void {
  if (statOrFail(path, lstatSync) === undefined) return;
  const st = statOrFail(path, statSync);
  // A dangling link: writing replaces the link itself, which points nowhere.
  if (st === undefined) return;
  if (st.isDirectory()) refuse(path, 'a folder', kind);
  if (!st.isFile()) refuse(path, 'not a regular file', kind);
  if (st.size === 0) return;
  if (!kind.recognise(sample(path, st.size))) refuse(path, 'a file toolgate did not write', kind);
}

/** stat or lstat of an output path; missing is undefined, and any other fault (a parent that is a file, a symlink loop) is the output's. */
function statOrFail(path: string, stat: typeof statSync): Stats | undefined {
  try {
    return stat(path, { throwIfNoEntry: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new ToolgateError('OUTPUT_UNWRITABLE', `cannot write output: ${path}: ${code === 'ENOTDIR' ? 'a folder above it is a file' : code}`, { at: [{ file: path }], cause: e });
  }
}

export const CATALOG_OUTPUT = jsonKind('toolgate.catalog', 'a catalog written by toolgate crawl');

export const AUDIT_REPORT_OUTPUT = anyOf('an earlier toolgate audit report', [
  jsonKind('toolgate.audit-report', 'JSON'),
  { what: 'markdown starting "# toolgate audit report"', recognise: (h) => h.startsWith('# toolgate audit report\n') },
  { what: 'HTML titled "toolgate audit report"', recognise: (h) => /^<!DOCTYPE html>/i.test(h) && h.includes('<title>toolgate audit report</title>') },
]);
