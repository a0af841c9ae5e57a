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
import { parseModule, type Module, type RegoVersion } from '../rego/index.ts';
import { cleanPath } from './entry-names.ts';
import type { TarballFile } from './read-tarball.ts';
import { goFold, type JNode } from './go-json.ts';
import { refuse, type Where } from './entry-fault.ts';
import { readDataJson, readJsonFirst, readYamlFile, toJSIn } from './data-file.ts';
import { decodeManifest, regoVersionFor, type BundleManifest } from './manifest.ts';
import { dataKey, insertData } from './data-mount.ts';
import { checkDataRoots, rootPathsContain, rootPathsOverlap, underRoots } from './roots.ts';

export type { BundleManifest, WasmResolver } from './manifest.ts';
export { rootPathsContain, rootPathsOverlap } from './roots.ts';

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

export interface LoadedBundle<M extends BundleModule = LoadedModule> {
  /** The `.manifest` file's first JSON value as written (`{}` when there is none). */
  readonly manifestJSON: Record<string, unknown>;
  readonly manifest: BundleManifest;
  readonly data: Record<string, unknown>;
  readonly modules: readonly M[];
  readonly wasm: readonly { entryName: string; bytes: Uint8Array }[];
}

/** A module as the loader found it, before (or without) parsing: what a package lookup is keyed on. */
export interface ModuleEntry {
  readonly id: string;
  readonly entryName: string;
  readonly bytes: Uint8Array;
  readonly regoVersion: RegoVersion;
}

/** A loaded module whose parse may have been skipped (its package was known). */
export type BundleModule = Omit<LoadedModule, 'parsed'> & { readonly parsed?: Module };

export interface LoadOptions {
  /**
   * Given every module with its rego version, the package of each (as `LoadedModule.package`) when
   * they are already known to parse (a compiled-policy cache keyed on their bytes): parsing is then
   * skipped. `undefined` parses them as usual.
   */
  readonly knownPackages?: (modules: readonly ModuleEntry[]) => readonly string[] | undefined;
}

function base(entryName: string): string {
  const s = entryName.replace(/\/+$/, '');
  if (s === '') return entryName === '' ? '.' : '/';
  return s.slice(s.lastIndexOf('/') + 1);
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

/** Loads a bundle's files as OPA's bundle reader does, or refuses what it refuses. */
export function loadBundle(files: readonly TarballFile[], source: string): LoadedBundle {
  return loadBundleWith(files, source, {}) as LoadedBundle;
}

/**
 * loadBundle, with the packages of modules already known to parse looked up instead of parsed.
 * The refusals are the same: a module known to parse can fail none of the checks parsing makes.
 */
export function loadBundleWith(files: readonly TarballFile[], source: string, options: LoadOptions): LoadedBundle<BundleModule> {
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
    else if (b === 'data.json') insertData(data, dataKey(raw), readDataJson(f.bytes, w), w);
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
  const known = options.knownPackages && knownPackagesOf(pending, manifest, options.knownPackages);
  const modules: BundleModule[] = pending.map(({ f, w }, i) => {
    const raw = f.entryName ?? f.name;
    const version = regoVersionFor(raw, manifest, w);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(f.bytes);
    } catch {
      refuse(w, 'rego_parse_error: illegal utf-8 character');
    }
    const id = cleanPath('/' + raw).slice(1);
    if (known) return { id, entryName: raw, text, regoVersion: version, package: known[i]! };
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
  const manifestJSON = manifestNode !== undefined && manifestNode.t === 'obj' ? (toJSIn(manifestNode, mw) as Record<string, unknown>) : {};
  return { manifestJSON, manifest, data: stored, modules, wasm };
}

/**
 * The known packages, or undefined when a module's rego version is refused: the usual walk then
 * reports that refusal in its place among the parse errors, as OPA would.
 */
function knownPackagesOf(pending: readonly { f: TarballFile; w: Where }[], manifest: BundleManifest, lookup: NonNullable<LoadOptions['knownPackages']>): readonly string[] | undefined {
  const entries: ModuleEntry[] = [];
  for (const { f, w } of pending) {
    const raw = f.entryName ?? f.name;
    let regoVersion: RegoVersion;
    try {
      regoVersion = regoVersionFor(raw, manifest, w);
    } catch {
      return undefined;
    }
    entries.push({ id: cleanPath('/' + raw).slice(1), entryName: raw, bytes: f.bytes, regoVersion });
  }
  const packages = lookup(entries);
  return packages !== undefined && packages.length === entries.length ? packages : undefined;
}

/** The data document of a bundle as OPA loads it: data files mounted at their folders. */
export function bundleData(files: readonly TarballFile[], source: string): Record<string, unknown> {
  return loadBundle(files, source).data;
}

/** A bundle's `.manifest` as written (`{}` when absent), after OPA's checks of the whole bundle. */
export function bundleManifest(files: readonly TarballFile[], source: string): Record<string, unknown> {
  return loadBundle(files, source).manifestJSON;
}
