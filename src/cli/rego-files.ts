/** Loading Rego modules and JSON data documents from files and folders for the `rego` commands. */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { JsonFloat, parseStrictJson, type StrictJsonValue } from '../canonical/strict-json.ts';
import { ToolgateError } from '../errors.ts';
import { fromJSON, ObjectValue, type Value, type ModuleSource } from '../rego/index.ts';
import { readTextFile } from './fs-io.ts';

export interface LoadedSources {
  readonly modules: ModuleSource[];
  /** Base document merged from every JSON data file found (objects merged deeply). */
  readonly data: Value | undefined;
}

function statOf(path: string): Stats {
  try {
    return statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file or folder' : `cannot read: ${code ?? (e as Error).message}`;
    throw new ToolgateError('FILE_UNREADABLE', `${path}: ${why}`, { at: [{ file: path }], cause: e });
  }
}

/**
 * The files under `path` whose names `keep` takes (`path` itself when it is a file), symlinks
 * followed, in name order; names starting with `.` are passed over. Anything that is neither a
 * file nor a folder (a FIFO, a device) and a folder met again inside itself (a symlink loop) are
 * refused with the path, rather than read forever or walked until the stack runs out.
 */
export function filesUnder(path: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  walk(path, keep, out);
  return out;
}

function walk(path: string, keep: (name: string) => boolean, out: string[], folders: ReadonlySet<string> = new Set()): void {
  const st = statOf(path);
  if (st.isFile()) {
    out.push(path);
    return;
  }
  if (!st.isDirectory()) throw new ToolgateError('FILE_UNREADABLE', `${path}: not a regular file or folder`, { at: [{ file: path }] });
  const id = `${st.dev}:${st.ino}`;
  if (folders.has(id)) throw new ToolgateError('FILE_UNREADABLE', `${path}: a symlink loop (this folder is one of its own parents)`, { at: [{ file: path }] });
  const inside = new Set(folders).add(id);
  let names: string[];
  try {
    names = readdirSync(path).sort();
  } catch (e) {
    throw new ToolgateError('FILE_UNREADABLE', `${path}: cannot list: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { at: [{ file: path }], cause: e });
  }
  for (const name of names) {
    if (name.startsWith('.')) continue;
    const p = join(path, name);
    if (statOf(p).isDirectory()) walk(p, keep, out, inside);
    else if (keep(name)) out.push(p);
  }
}

/**
 * Parses a JSON data document with the strict reader: integers beyond 2^53 stay exact, a repeated
 * key is refused with both places; a fraction or exponent becomes a double, as OPA's JSON reads it.
 */
export function parseJsonValue(text: string, file: string): Value {
  return fromJSON(doublesOf(parseStrictJson(text, file), file));
}

function doublesOf(v: StrictJsonValue, file: string): unknown {
  if (v instanceof JsonFloat) {
    const n = Number(v.text);
    if (!Number.isFinite(n)) throw new ToolgateError('PARSE_ERROR', `${file}: the number ${v.text} is out of range`, { at: [{ file }] });
    return n;
  }
  if (Array.isArray(v)) return v.map((x) => doublesOf(x, file));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) Object.defineProperty(out, k, { value: doublesOf(v[k]!, file), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return v;
}

/** A data file's document: OPA loads only an object there ("document must be of type object"), never an array or scalar at the data root. */
export function parseDataDocument(text: string, file: string): Value {
  const v = parseJsonValue(text, file);
  if (!(v instanceof ObjectValue)) throw new ToolgateError('SCHEMA_INVALID', `${file}: document must be of type object`, { at: [{ file }] });
  return v;
}

export function mergeData(a: Value | undefined, b: Value): Value {
  if (a instanceof ObjectValue && b instanceof ObjectValue) {
    const out = new ObjectValue(a.unordered());
    for (const [k, v] of b.unordered()) {
      const prev = out.get(k);
      out.set(k, prev === undefined ? v : mergeData(prev, v));
    }
    return out;
  }
  return b;
}

export function loadSources(cwd: string, paths: readonly string[]): LoadedSources {
  const files: string[] = [];
  for (const p of paths) walk(resolve(cwd, p), (name) => name.endsWith('.rego') || name === 'data.json', files);
  const modules: ModuleSource[] = [];
  let data: Value | undefined;
  for (const f of files) {
    if (f.endsWith('.rego')) modules.push({ name: f, text: readTextFile(f) });
    else if (f.endsWith('.json')) data = mergeData(data, parseDataDocument(readTextFile(f), f));
    else throw new ToolgateError('USAGE', `${f}: expected a .rego or .json file`, { at: [{ file: f }] });
  }
  return { modules, data };
}
