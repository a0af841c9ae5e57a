/**
 * Loading a bundle's files (read by read-tarball.ts) into what OPA's bundle reader makes of them
 * (OPA v1/bundle/bundle.go `Reader.Read` with verification skipped, then
 * `Manifest.validateAndInjectDefaults`): the manifest, the data document and the Rego modules.
 * What this loads is what `opa run --bundle B --skip-verify` loads; what OPA refuses is refused
 * with BUNDLE_INVALID naming the bundle, the entry and the fault.
 *
 * The rules, as OPA has them (entry names are the raw tar names):
 * - `.signatures.json` (exact base name) is not content; checking it is verify's business.
 * - a name ending in `.rego` is a module, base `policy.wasm` a wasm module, `plan.json`/`plan.pb` a
 *   plan (opaque), base `data.json` JSON data, base `data.yaml`/`data.yml` YAML (or JSON) data, a
 *   name ending in `.manifest` the manifest (two of them: refused), base `patch.json` a delta patch.
 *   Anything else (`x.data.json`, `data.JSON`, `README`) is ignored.
 * - data is mounted at the entry's directory, leading `/` and `.` characters stripped (so
 *   `.hidden/data.json` mounts at `hidden`); a root data file must hold an object; data files are
 *   deep-merged and two values for one key that are not both objects are an error.
 * - JSON is read as Go reads it: no BOM in data.json (the YAML path strips one), trailing content
 *   after the value refused in data files but ignored after the manifest's first value, invalid
 *   UTF-8 and lone `\uD800` escapes become U+FFFD, the last of repeated keys wins.
 * - the manifest is decoded into OPA's Go struct: keys match case-insensitively, unknown keys
 *   are ignored, a wrong type is an error; `roots` absent or null means `[""]`; roots are trimmed
 *   of `/` and may not overlap; every module's package, every data value and every wasm entrypoint
 *   must sit under a root; `rego_version` (or the first matching `file_rego_versions` glob, in
 *   sorted order) must be 0, 1 or 2 for each module it applies to; only data under the roots is
 *   kept (an empty object elsewhere passes the check and is dropped).
 * - a module may start with a UTF-8 BOM; invalid UTF-8 in a module is a parse error.
 *
 * Deliberate differences (stricter; the module comment of read-tarball.ts lists the archive ones):
 * - delta bundles (a `patch.json` with operations) are refused: toolgate reads snapshots only;
 * - `.manifest.pb` (protobuf manifest) is refused as unsupported;
 * - `rego_version` 2 (OPA 1.22's newest language level) is refused: toolgate's parser reads v0 and v1;
 * - numbers are read as JavaScript numbers, so digits beyond double precision are lost;
 * - YAML is read with the `yaml` package's core schema plus Go's legacy octal (`012` is 10);
 *   goyaml v3 corner cases (null keys, float keys) may differ.
 */
import { createRequire } from 'node:module';
import { ToolgateError } from '../errors.ts';
import { parseModule, type Module, type RegoVersion } from '../rego/index.ts';
import { cleanPath, type TarballFile } from './read-tarball.ts';
import { goFold, goUtf8, JsonError, parseGoJson, type JNode } from './go-json.ts';

export interface LoadedModule {
  /** The module's id relative to the bundle: its cleaned entry name, e.g. `toolgate/authz.rego`. */
  readonly id: string;
  readonly entryName: string;
  readonly text: string;
  readonly regoVersion: RegoVersion;
  /** Package as a slash path, e.g. `toolgate/authz`. */
  readonly package: string;
  readonly parsed: Module;
}

export interface WasmResolver {
  readonly entrypoint: string;
  readonly module: string;
  readonly annotations?: unknown[];
}

/** The manifest after OPA's decoding and defaults. */
export interface BundleManifest {
  readonly revision: string;
  /** Roots trimmed of `/`; `[""]` (everything) when the manifest names none. */
  readonly roots: readonly string[];
  readonly rego_version?: number;
  readonly file_rego_versions?: Readonly<Record<string, number>>;
  readonly wasm: readonly WasmResolver[];
  readonly metadata?: Readonly<Record<string, unknown>>;
}

export interface LoadedBundle {
  /** The `.manifest` file's first JSON value as written (`{}` when there is none). */
  readonly manifestJSON: Record<string, unknown>;
  readonly manifest: BundleManifest;
  readonly data: Record<string, unknown>;
  readonly modules: readonly LoadedModule[];
  readonly wasm: readonly { entryName: string; bytes: Uint8Array }[];
}

type Where = { source: string; entry: string };

function refuse(w: Where, message: string, cause?: unknown): never {
  throw new ToolgateError('BUNDLE_INVALID', `${w.source}: ${w.entry === '' ? '' : `${w.entry}: `}${message}`, {
    at: [{ file: w.source, ...(w.entry === '' ? {} : { path: w.entry }) }],
    ...(cause === undefined ? {} : { cause }),
  });
}

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function toJS(n: JNode): unknown {
  switch (n.t) {
    case 'obj': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of n.entries) setOwn(o, k, toJS(v));
      return o;
    }
    case 'arr':
      return n.items.map(toJS);
    case 'str':
      return n.v;
    case 'num':
      return Number(n.lit);
    case 'lit':
      return n.v;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readJsonFile(bytes: Uint8Array, w: Where): unknown {
  try {
    return toJS(parseGoJson(goUtf8(bytes), false));
  } catch (e) {
    if (e instanceof JsonError) refuse(w, `not valid JSON: ${e.message}`);
    throw e;
  }
}

/** Go's legacy octal and binary integers, which goyaml v3 still resolves (`012` is 10). */
function goYamlInt(source: string): number | undefined {
  const m = /^([-+]?)0([0-7]+)$/.exec(source) ?? /^([-+]?)0b([01_]+)$/.exec(source);
  if (!m) return undefined;
  const v = Number.parseInt(m[2]!.replace(/_/g, ''), source.includes('b') ? 2 : 8);
  return m[1] === '-' ? -v : v;
}

function readYamlFile(bytes: Uint8Array, w: Where): unknown {
  let b = bytes;
  if (b.length > 2 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) b = b.subarray(3);
  const text = goUtf8(b);
  try {
    return toJS(parseGoJson(text, false));
  } catch (e) {
    if (!(e instanceof JsonError)) throw e;
  }
  // `yaml` loads here, on a bundle's first YAML data file: importing it costs ~100 ms per run.
  const { parseAllDocuments, isScalar, visit } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: false, prettyErrors: false });
  const all = Array.isArray(docs) ? docs : [docs];
  for (const d of all) if (d.errors.length > 0) refuse(w, `not valid YAML: ${d.errors[0]!.message}`);
  const doc = all[0];
  if (doc === undefined || doc.contents === null) return null;
  visit(doc, {
    Scalar(_k, node) {
      if (isScalar(node) && node.type === 'PLAIN' && typeof node.source === 'string') {
        const v = goYamlInt(node.source);
        if (v !== undefined) node.value = v;
      }
    },
  });
  try {
    return jsonable(doc.toJS({ maxAliasCount: 10_000 }), w);
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    refuse(w, `not valid YAML: ${(e as Error).message}`);
  }
}

function jsonable(v: unknown, w: Where): unknown {
  if (Array.isArray(v)) return v.map((x) => jsonable(x, w));
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) setOwn(o, String(k), jsonable(x, w));
    return o;
  }
  if (isObject(v)) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(o, k, jsonable(x, w));
    return o;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) refuse(w, `YAML value ${v} has no JSON form`);
  if (typeof v === 'bigint') return Number(v);
  return v;
}

// ---------------------------------------------------------------------------------------------
// The manifest, decoded into OPA's Go struct.

const MANIFEST_FIELDS = ['revision', 'roots', 'wasm', 'rego_version', 'file_rego_versions', 'metadata'] as const;
type ManifestField = (typeof MANIFEST_FIELDS)[number];

function fieldOf(key: string, fields: readonly string[]): string | undefined {
  if (fields.includes(key)) return key;
  const f = goFold(key);
  return fields.find((x) => goFold(x) === f);
}

function goInt(n: JNode): number | undefined {
  if (n.t !== 'num' || !/^-?[0-9]+$/.test(n.lit)) return undefined;
  const v = Number(n.lit);
  return Number.isSafeInteger(v) ? v : undefined;
}

function decodeManifest(node: JNode | undefined, w: Where): BundleManifest {
  let revision = '';
  let roots: string[] | undefined;
  let regoVersion: number | undefined;
  let fileRegoVersions: Record<string, number> | undefined;
  let wasm: { entrypoint: string; module: string; annotations?: unknown[] }[] = [];
  let metadata: Record<string, unknown> | undefined;
  const wrong: (field: string, n: JNode) => never = (field, n) => refuse(w, `cannot decode ${field}: a JSON ${n.t === 'lit' ? JSON.stringify(n.v) : n.t} does not fit`);
  const str = (field: string, n: JNode, prior: string): string => (n.t === 'str' ? n.v : n.t === 'lit' && n.v === null ? prior : wrong(field, n));
  if (node !== undefined && !(node.t === 'lit' && node.v === null)) {
    if (node.t !== 'obj') wrong('the manifest', node);
    for (const [k, v] of node.entries) {
      const f = fieldOf(k, MANIFEST_FIELDS) as ManifestField | undefined;
      const isNull = v.t === 'lit' && v.v === null;
      switch (f) {
        case 'revision':
          revision = str('revision', v, revision);
          break;
        case 'roots':
          if (isNull) roots = undefined;
          else if (v.t !== 'arr') wrong('roots', v);
          else roots = v.items.map((x) => str('roots[]', x, ''));
          break;
        case 'rego_version':
          if (isNull) regoVersion = undefined;
          else regoVersion = goInt(v) ?? wrong('rego_version', v);
          break;
        case 'file_rego_versions':
          if (isNull) fileRegoVersions = undefined;
          else if (v.t !== 'obj') wrong('file_rego_versions', v);
          else {
            fileRegoVersions ??= {};
            for (const [g, x] of v.entries) setOwn(fileRegoVersions, g, x.t === 'lit' && x.v === null ? 0 : (goInt(x) ?? wrong('file_rego_versions', x)));
          }
          break;
        case 'metadata':
          if (isNull) metadata = undefined;
          else if (v.t !== 'obj') wrong('metadata', v);
          else {
            metadata ??= {};
            for (const [g, x] of v.entries) setOwn(metadata, g, toJS(x));
          }
          break;
        case 'wasm': {
          if (isNull) {
            wasm = [];
            break;
          }
          if (v.t !== 'arr') wrong('wasm', v);
          const prior = wasm;
          wasm = v.items.map((x, i) => {
            const r = { ...(prior[i] ?? { entrypoint: '', module: '' }) };
            if (x.t === 'lit' && x.v === null) return r;
            if (x.t !== 'obj') wrong(`wasm[${i}]`, x);
            for (const [wk, wv] of x.entries) {
              const wf = fieldOf(wk, ['entrypoint', 'module', 'annotations']);
              if (wf === 'entrypoint') r.entrypoint = str('wasm[].entrypoint', wv, r.entrypoint);
              else if (wf === 'module') r.module = str('wasm[].module', wv, r.module);
              else if (wf === 'annotations') {
                if (wv.t === 'arr') r.annotations = wv.items.map(toJS);
                else if (!(wv.t === 'lit' && wv.v === null)) wrong('wasm[].annotations', wv);
              }
            }
            return r;
          });
          break;
        }
        default:
      }
    }
  }
  return {
    revision,
    roots: (roots ?? ['']).map((r) => r.replace(/^\/+|\/+$/g, '')),
    ...(regoVersion !== undefined ? { rego_version: regoVersion } : {}),
    ...(fileRegoVersions !== undefined ? { file_rego_versions: fileRegoVersions } : {}),
    wasm,
    ...(metadata !== undefined ? { metadata } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Roots, data mounting and validation, as OPA's bundle package has them.

function rootContains(root: readonly string[], other: readonly string[]): boolean {
  if (root.length === 1 && root[0] === '') return true;
  if (root.length > other.length) return false;
  return root.every((s, j) => s === other[j]);
}

/** OPA's RootPathsContain: some root contains the slash path. */
export function rootPathsContain(roots: readonly string[], path: string): boolean {
  const segs = path.split('/');
  return roots.some((r) => rootContains(r.split('/'), segs));
}

export function rootPathsOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  return rootContains(x, y) || rootContains(y, x);
}

/** Go's path.Dir followed by OPA's trimming of leading `/` and `.` characters. */
function dataKey(entryName: string): string[] {
  const slash = entryName.lastIndexOf('/');
  const dir = cleanPath(slash < 0 ? '' : entryName.slice(0, slash + 1));
  const trimmed = dir.replace(/^[/.]+/, '');
  return trimmed === '' ? [] : trimmed.split('/');
}

function base(entryName: string): string {
  const s = entryName.replace(/\/+$/, '');
  if (s === '') return entryName === '' ? '.' : '/';
  return s.slice(s.lastIndexOf('/') + 1);
}

/** OPA's merge.InterfaceMaps: false when some key holds two values that are not both objects. */
function hasConflict(a: Record<string, unknown>, b: Record<string, unknown>): string[] | undefined {
  for (const k of Object.keys(b).sort()) {
    if (!Object.hasOwn(a, k)) continue;
    const x = a[k];
    const y = b[k];
    if (!isObject(x) || !isObject(y)) return [k];
    const deeper = hasConflict(x, y);
    if (deeper) return [k, ...deeper];
  }
  return undefined;
}

function mergeInto(a: Record<string, unknown>, b: Record<string, unknown>): void {
  for (const k of Object.keys(b)) {
    const x = a[k];
    const y = b[k];
    if (Object.hasOwn(a, k) && isObject(x) && isObject(y)) mergeInto(x, y);
    else setOwn(a, k, y);
  }
}

function insertData(data: Record<string, unknown>, key: string[], value: unknown, w: Where): void {
  let tree: Record<string, unknown>;
  if (key.length === 0) {
    if (!isObject(value)) refuse(w, 'a data file at the bundle root must hold a JSON object');
    tree = value;
  } else {
    tree = {};
    let node = tree;
    for (let i = 0; i < key.length - 1; i++) {
      const next = {};
      setOwn(node, key[i]!, next);
      node = next;
    }
    setOwn(node, key[key.length - 1]!, value);
  }
  const conflict = hasConflict(data, tree);
  if (conflict) refuse(w, `data at /${conflict.join('/')} collides with another data file`);
  mergeInto(data, tree);
}

/** OPA's data check (dfs in validateAndInjectDefaults), quirks included: empty objects pass. */
function checkDataRoots(value: unknown, path: string, roots: readonly string[], w: Where): void {
  const p = path.replace(/^\/+|\/+$/g, '');
  if (rootPathsContain(roots, p)) return;
  if (isObject(value)) {
    if (!roots.some((r) => rootPathsContain(p.split('/'), r))) {
      refuse(w, `manifest roots ${JSON.stringify(roots)} do not permit data at path /${p}`);
    }
    for (const k of Object.keys(value)) checkDataRoots(value[k], `${path}/${k}`, roots, w);
    return;
  }
  refuse(w, `manifest roots ${JSON.stringify(roots)} do not permit data at path /${p}`);
}

/** Go's url.PathEscape, which OPA applies to each package segment before the roots check. */
function pathEscape(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~$&+:=@]/.test(c)) out += c;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** gobwas/glob without separators, as OPA compiles `file_rego_versions` keys. */
function globRegExp(glob: string): RegExp | undefined {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '\\') {
      const n = glob[++i];
      if (n === undefined) return undefined;
      re += n.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
    } else if (c === '*') {
      while (glob[i + 1] === '*') i++;
      re += '[^]*';
    } else if (c === '?') re += '[^]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) return undefined;
      let body = glob.slice(i + 1, end);
      const neg = body.startsWith('!');
      if (neg) body = body.slice(1);
      re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{') {
      const end = glob.indexOf('}', i + 1);
      if (end < 0) return undefined;
      const alts = glob.slice(i + 1, end).split(',').map((a) => globRegExp(a));
      if (alts.some((a) => a === undefined)) return undefined;
      re += `(?:${alts.map((a) => a!.source.slice(1, -1)).join('|')})`;
      i = end;
    } else re += c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

function regoVersionFor(entryName: string, m: BundleManifest, w: Where): RegoVersion {
  // OPA tries the globs in sorted key order; the first that matches decides.
  let v: number | undefined;
  const globs = Object.keys(m.file_rego_versions ?? {}).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const g of globs) {
    const re = globRegExp(g);
    if (re === undefined) refuse({ ...w, entry: '.manifest' }, `file_rego_versions glob ${JSON.stringify(g)} does not compile`);
    if (re.test(entryName)) {
      v = m.file_rego_versions![g];
      break;
    }
  }
  v ??= m.rego_version;
  if (v === undefined || v === 1) return 'v1';
  if (v === 0) return 'v0';
  if (v === 2) return refuse(w, 'rego_version 2 is not supported by toolgate (OPA 1.22 accepts it)');
  return refuse(w, `unknown bundle rego-version ${v} (expected 0, 1 or 2)`);
}

/** What OPA's activation writes to its store: only the values under the bundle's roots. */
function underRoots(data: Record<string, unknown>, roots: readonly string[]): Record<string, unknown> {
  if (roots.includes('')) return data;
  const out: Record<string, unknown> = {};
  for (const r of roots) {
    const key = r.split('/');
    let v: unknown = data;
    for (const k of key) v = isObject(v) && Object.hasOwn(v, k) ? v[k] : undefined;
    if (v === undefined) continue;
    let node = out;
    for (let i = 0; i < key.length - 1; i++) {
      const k = key[i]!;
      if (!isObject(node[k])) setOwn(node, k, {});
      node = node[k] as Record<string, unknown>;
    }
    setOwn(node, key[key.length - 1]!, v);
  }
  return out;
}

/** Loads a bundle's files as OPA's bundle reader does, or refuses what it refuses. */
export function loadBundle(files: readonly TarballFile[], source: string): LoadedBundle {
  const data: Record<string, unknown> = {};
  const pending: { f: TarballFile; w: Where }[] = [];
  const wasm: { entryName: string; bytes: Uint8Array }[] = [];
  let manifestNode: JNode | undefined;
  let manifestAt: string | undefined;
  for (const f of files) {
    const raw = f.entryName ?? f.name;
    const w: Where = { source, entry: raw };
    const b = base(raw);
    if (b === '.signatures.json') continue;
    if (b === 'patch.json') {
      const p = readJsonFirst(f.bytes, w);
      if (p === undefined) refuse(w, 'patch.json is empty');
      if (p.t === 'obj') {
        const ops = p.entries.filter(([k]) => goFold(k) === 'data').at(-1)?.[1];
        if (ops !== undefined && ops.t === 'arr' && ops.items.length > 0) refuse(w, 'delta bundles (patch.json operations) are not supported; toolgate reads snapshot bundles');
        if (ops !== undefined && ops.t !== 'arr' && !(ops.t === 'lit' && ops.v === null)) refuse(w, 'cannot decode patch.json data');
      } else if (!(p.t === 'lit' && p.v === null)) refuse(w, 'cannot decode patch.json');
    }
    if (raw.endsWith('.rego')) pending.push({ f, w });
    else if (b === 'policy.wasm') wasm.push({ entryName: raw, bytes: f.bytes });
    else if (b === 'plan.json' || b === 'plan.pb') continue;
    else if (b === 'data.json') insertData(data, dataKey(raw), readJsonFile(f.bytes, w), w);
    else if (b === 'data.yaml' || b === 'data.yml') insertData(data, dataKey(raw), readYamlFile(f.bytes, w), w);
    else if (raw.endsWith('.manifest.pb')) refuse(w, 'protobuf manifests are not supported');
    else if (raw.endsWith('.manifest')) {
      if (manifestAt !== undefined) refuse(w, `the bundle has two manifest files (${JSON.stringify(manifestAt)} and ${JSON.stringify(raw)})`);
      manifestAt = raw;
      manifestNode = readJsonFirst(f.bytes, w);
      if (manifestNode === undefined) refuse(w, 'the manifest is empty');
    }
  }
  const mw: Where = { source, entry: manifestAt ?? '' };
  const manifest = decodeManifest(manifestNode, mw);
  const modules: LoadedModule[] = pending.map(({ f, w }) => {
    const raw = f.entryName ?? f.name;
    const version = regoVersionFor(raw, manifest, w);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(f.bytes);
    } catch {
      refuse(w, 'rego_parse_error: illegal utf-8 character');
    }
    const id = cleanPath('/' + raw).slice(1);
    let parsed: Module;
    try {
      parsed = parseModule(text, id, version);
    } catch (e) {
      refuse(w, (e as Error).message, e);
    }
    return { id, entryName: raw, text, regoVersion: version, package: parsed.pkg.slice(1).map(pathEscape).join('/'), parsed };
  });
  const roots = manifest.roots;
  for (let i = 0; i < roots.length; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      if (rootPathsOverlap(roots[i]!, roots[j]!)) refuse(mw, `manifest has overlapped roots: ${JSON.stringify(roots[i])} and ${JSON.stringify(roots[j])}`);
    }
  }
  for (const m of modules) {
    if (!rootPathsContain(roots, m.package)) refuse({ source, entry: m.entryName }, `manifest roots ${JSON.stringify(roots)} do not permit package ${m.package.replace(/\//g, '.')}`);
  }
  const wasmPaths = new Set(wasm.map((x) => x.entryName));
  const eps = new Set<string>();
  for (const r of manifest.wasm) {
    if (!wasmPaths.has(r.module)) refuse(mw, `manifest references wasm module ${JSON.stringify(r.module)} but the bundle has no such file`);
    if (!rootPathsContain(roots, r.entrypoint)) refuse(mw, `manifest roots ${JSON.stringify(roots)} do not permit entrypoint ${JSON.stringify(r.entrypoint)}`);
    if (eps.has(r.entrypoint)) refuse(mw, `entrypoint ${JSON.stringify(r.entrypoint)} is used by more than one wasm module`);
    eps.add(r.entrypoint);
  }
  checkDataRoots(data, '', roots, { source, entry: 'data' });
  const stored = underRoots(data, roots);
  const manifestJSON = manifestNode !== undefined && manifestNode.t === 'obj' ? (toJS(manifestNode) as Record<string, unknown>) : {};
  return { manifestJSON, manifest, data: stored, modules, wasm };
}

function readJsonFirst(bytes: Uint8Array, w: Where): JNode | undefined {
  const text = goUtf8(bytes);
  if (/^[ \t\r\n]*$/.test(text)) return undefined;
  try {
    return parseGoJson(text, true);
  } catch (e) {
    if (e instanceof JsonError) refuse(w, `not valid JSON: ${e.message}`);
    throw e;
  }
}

/** The data document of a bundle as OPA loads it: data files mounted at their folders. */
export function bundleData(files: readonly TarballFile[], source: string): Record<string, unknown> {
  return loadBundle(files, source).data;
}

/** A bundle's `.manifest` as written (`{}` when absent), after OPA's checks of the whole bundle. */
export function bundleManifest(files: readonly TarballFile[], source: string): Record<string, unknown> {
  return loadBundle(files, source).manifestJSON;
}
