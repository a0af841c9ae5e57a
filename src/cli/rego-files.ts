/** Loading Rego modules and JSON data documents from files and folders for the `rego` commands. */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ToolgateError } from '../errors.ts';
import { fromJSON, ObjectValue, type Value, type ModuleSource } from '../rego/index.ts';
import { parse as parseYaml } from 'yaml';
import { readTextFile } from './fs-io.ts';

export interface LoadedSources {
  readonly modules: ModuleSource[];
  /** Base document merged from every JSON data file found (objects merged deeply). */
  readonly data: Value | undefined;
}

function walk(path: string, out: string[]): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new ToolgateError('FILE_UNREADABLE', `${path}: no such file or folder`, { at: [{ file: path }] });
  }
  if (st.isFile()) {
    out.push(path);
    return;
  }
  for (const name of readdirSync(path).sort()) {
    if (name.startsWith('.')) continue;
    const p = join(path, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.rego') || name === 'data.json') out.push(p);
  }
}

/** Parses JSON text exactly: integers beyond 2^53 stay exact. */
export function parseJsonValue(text: string, file: string): Value {
  try {
    const raw: unknown = JSON.parse(text);
    // integers beyond 2^53 lose digits in JSON.parse: read such documents again with exact integers
    if (/\d{16,}/.test(text)) return fromJSON(parseYaml(text, { intAsBigInt: true, schema: 'json' }));
    return fromJSON(raw);
  } catch (e) {
    throw new ToolgateError('PARSE_ERROR', `${file}: invalid JSON: ${(e as Error).message}`, { at: [{ file }] });
  }
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
  for (const p of paths) walk(resolve(cwd, p), files);
  const modules: ModuleSource[] = [];
  let data: Value | undefined;
  for (const f of files) {
    if (f.endsWith('.rego')) modules.push({ name: f, text: readTextFile(f) });
    else if (f.endsWith('.json')) data = mergeData(data, parseJsonValue(readTextFile(f), f));
    else throw new ToolgateError('USAGE', `${f}: expected a .rego or .json file`, { at: [{ file: f }] });
  }
  return { modules, data };
}
