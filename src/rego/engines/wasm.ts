/**
 * The `wasm` engine: @open-policy-agent/opa-wasm 1.10 evaluating an OPA-compiled `policy.wasm`, or a
 * wasm bundle tarball (`opa build -t wasm`) read with the safe tarball reader, its entrypoints and
 * modules taken from `.manifest` `wasm[]` and its data files mounted at their folders
 * (reference/opa-bundle-format.md §1, §2, §5; reference/opa-wasm-abi-notes.md).
 *
 * The SDK throws strings, TypeErrors, RangeErrors and SyntaxErrors alike; every one is caught here
 * and turned into a ToolgateError naming the module and entrypoint.
 */
import { loadPolicy as sdkLoadPolicy } from '@open-policy-agent/opa-wasm';
import { ToolgateError } from '../../errors.ts';
import { readTarball } from '../../bundle/read-tarball.ts';
import { dottedEntrypoint, jsonType, slashEntrypoint, type Evaluation, type LoadedPolicy } from '../engine.ts';

interface SdkPolicy {
  entrypoints: Record<string, number>;
  evaluate(input: unknown, entrypoint?: number | string): unknown;
  setData(data: unknown): void;
}

const encoder = new TextEncoder();

function describeThrown(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return String(e);
}

/** A fresh ArrayBuffer holding the JSON text: the one form the SDK takes as raw JSON (a Buffer is not). */
function jsonArrayBuffer(v: unknown): ArrayBuffer {
  const bytes = encoder.encode(JSON.stringify(v));
  const ab = new ArrayBuffer(bytes.length);
  new Uint8Array(ab).set(bytes);
  return ab;
}

async function instantiate(bytes: Uint8Array, name: string): Promise<SdkPolicy> {
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new ToolgateError('BUNDLE_INVALID', `${name}: not a WebAssembly module (no \\0asm header)`, { at: [{ file: name }] });
  }
  try {
    const ab = new ArrayBuffer(bytes.length);
    new Uint8Array(ab).set(bytes);
    return (await sdkLoadPolicy(ab)) as unknown as SdkPolicy;
  } catch (e) {
    throw new ToolgateError('ENGINE_UNAVAILABLE', `${name}: opa-wasm could not load the module: ${describeThrown(e)}`, { at: [{ file: name }], cause: e });
  }
}

/** Turns an SDK result set (`[{result: v}, ...]`) into an Evaluation, checking its shape. */
export function resultSetToEvaluation(rs: unknown, where: string): Evaluation {
  if (!Array.isArray(rs)) throw new ToolgateError('REGO_EVAL_ERROR', `${where}: the module returned ${JSON.stringify(rs)}, not a result set`);
  const values: unknown[] = [];
  for (const row of rs) {
    if (typeof row !== 'object' || row === null || !('result' in row)) {
      throw new ToolgateError('REGO_EVAL_ERROR', `${where}: result set row ${JSON.stringify(row)} has no "result"`);
    }
    values.push((row as { result: unknown }).result);
  }
  if (values.length === 0) return { defined: false };
  if (values.length > 1) return { defined: true, multiple: values, type: 'multiple' };
  return { defined: true, value: values[0], type: jsonType(values[0]) };
}

interface Module {
  readonly name: string;
  readonly policy: SdkPolicy;
}

function makeLoaded(modules: readonly Module[], entryModule: Map<string, Module>, initialData: unknown): LoadedPolicy {
  const entrypoints = [...entryModule.keys()].sort().map((e) => dottedEntrypoint(e));
  const setData = (d: unknown) => {
    const ab = jsonArrayBuffer(d);
    for (const m of modules) {
      try {
        m.policy.setData(ab);
      } catch (e) {
        throw new ToolgateError('REGO_EVAL_ERROR', `${m.name}: setting data failed: ${describeThrown(e)}`, { cause: e });
      }
    }
  };
  if (initialData !== undefined) setData(initialData);
  const slashCache = new Map<string, string>();
  return {
    engine: 'wasm',
    entrypoints,
    setData,
    evaluate(input: unknown, entrypoint: string): Evaluation {
      let slash = slashCache.get(entrypoint);
      if (slash === undefined) {
        slash = slashEntrypoint(entrypoint);
        slashCache.set(entrypoint, slash);
      }
      const m = entryModule.get(slash);
      if (m === undefined) {
        throw new ToolgateError('USAGE', `entrypoint ${dottedEntrypoint(entrypoint)} is not compiled into the wasm policy; it has ${entrypoints.join(', ') || 'none'}`);
      }
      let rs: unknown;
      try {
        rs = m.policy.evaluate(jsonArrayBuffer(input ?? null), slash);
      } catch (e) {
        throw new ToolgateError('REGO_EVAL_ERROR', `${m.name} at ${slash}: ${describeThrown(e)}`, { cause: e });
      }
      return resultSetToEvaluation(rs, `${m.name} at ${slash}`);
    },
  };
}

/** Loads one OPA-compiled policy.wasm. */
export async function loadWasm(bytes: Uint8Array, name = 'policy.wasm'): Promise<LoadedPolicy> {
  const policy = await instantiate(bytes, name);
  const m: Module = { name, policy };
  const byEntry = new Map<string, Module>();
  for (const e of Object.keys(policy.entrypoints ?? {})) byEntry.set(e, m);
  return makeLoaded([m], byEntry, undefined);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep-merges `value` at `path` into `into`; a collision is an error, as OPA's loader has it. */
function mountData(into: Record<string, unknown>, path: string[], value: unknown, file: string): void {
  let node = into;
  for (let i = 0; i < path.length; i++) {
    const k = path[i]!;
    if (i === path.length - 1) {
      if (k in node) {
        if (!isPlainObject(node[k]) || !isPlainObject(value)) throw new ToolgateError('BUNDLE_INVALID', `${file}: data at ${path.join('/')} collides with another data file`);
        for (const [kk, vv] of Object.entries(value)) mountData(node[k] as Record<string, unknown>, [kk], vv, file);
      } else node[k] = value;
      return;
    }
    if (!(k in node)) node[k] = {};
    if (!isPlainObject(node[k])) throw new ToolgateError('BUNDLE_INVALID', `${file}: data at ${path.slice(0, i + 1).join('/')} collides with another data file`);
    node = node[k] as Record<string, unknown>;
  }
  if (!isPlainObject(value)) throw new ToolgateError('BUNDLE_INVALID', `${file}: a root data file must hold a JSON object`);
  for (const [kk, vv] of Object.entries(value)) mountData(into, [kk], vv, file);
}

/** The data document of a bundle: every `data.json` mounted at its folder. */
export function bundleData(files: readonly { name: string; bytes: Uint8Array }[], source: string): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const f of files) {
    const parts = f.name.split('/');
    if (parts[parts.length - 1] !== 'data.json') continue;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(f.bytes).replace(/^\uFEFF/, ''));
    } catch (e) {
      throw new ToolgateError('BUNDLE_INVALID', `${source}: ${f.name} is not valid JSON: ${(e as Error).message}`, { at: [{ file: source, path: f.name }] });
    }
    mountData(data, parts.slice(0, -1).filter((p) => p !== '').map((p) => p.replace(/^\.+/, '')), value, `${source}:${f.name}`);
  }
  return data;
}

/** Parses a bundle's `.manifest` (an object, or `{}` when absent). */
export function bundleManifest(files: readonly { name: string; bytes: Uint8Array }[], source: string): Record<string, unknown> {
  const f = files.find((x) => x.name === '.manifest');
  if (f === undefined) return {};
  let m: unknown;
  try {
    m = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(f.bytes).replace(/^\uFEFF/, ''));
  } catch (e) {
    throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest is not valid JSON: ${(e as Error).message}`, { at: [{ file: source, path: '.manifest' }] });
  }
  if (!isPlainObject(m)) throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest must be a JSON object`, { at: [{ file: source, path: '.manifest' }] });
  return m;
}

/** Loads a wasm bundle tarball: every module its manifest lists, with the bundle's data. */
export async function loadWasmBundle(bytes: Uint8Array, source = 'bundle.tar.gz'): Promise<LoadedPolicy> {
  const files = await readTarball(bytes, source);
  const manifest = bundleManifest(files, source);
  const wasm = manifest.wasm;
  if (!Array.isArray(wasm) || wasm.length === 0) {
    throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest lists no wasm modules (build it with opa build -t wasm -e ENTRYPOINT)`, { at: [{ file: source, path: '.manifest' }] });
  }
  const byName = new Map(files.map((f) => [f.name, f]));
  const loaded = new Map<string, Module>();
  const byEntry = new Map<string, Module>();
  for (const [i, w] of wasm.entries()) {
    if (!isPlainObject(w) || typeof w.entrypoint !== 'string' || typeof w.module !== 'string') {
      throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest wasm[${i}] needs string "entrypoint" and "module"`, { at: [{ file: source, path: `.manifest/wasm/${i}` }] });
    }
    const modName = w.module.replace(/^\//, '');
    const file = byName.get(modName);
    if (file === undefined) throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest wasm[${i}] names module ${JSON.stringify(w.module)}, which the bundle does not hold`, { at: [{ file: source, path: `.manifest/wasm/${i}` }] });
    let m = loaded.get(modName);
    if (m === undefined) {
      m = { name: `${source}:${modName}`, policy: await instantiate(file.bytes, `${source}:${modName}`) };
      loaded.set(modName, m);
    }
    const ep = w.entrypoint.replace(/^\/+|\/+$/g, '');
    if (byEntry.has(ep)) throw new ToolgateError('BUNDLE_INVALID', `${source}: entrypoint ${ep} is listed for more than one module`, { at: [{ file: source, path: `.manifest/wasm/${i}` }] });
    if (!(ep in (m.policy.entrypoints ?? {}))) throw new ToolgateError('BUNDLE_INVALID', `${source}: entrypoint ${ep} is not exported by ${modName}`, { at: [{ file: source, path: `.manifest/wasm/${i}` }] });
    byEntry.set(ep, m);
  }
  return makeLoaded([...loaded.values()], byEntry, bundleData(files, source));
}
