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
import { ToolgateError } from '../errors.ts';
import { loadBundle } from '../bundle/load.ts';
import { readTarball } from '../bundle/read-tarball.ts';
import { dottedEntrypoint, jsonType, slashEntrypoint, type Evaluation, type LoadedPolicy } from './engine.ts';

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

/** Loads a wasm bundle tarball: every module its manifest lists, with the bundle's data. */
export async function loadWasmBundle(bytes: Uint8Array, source = 'bundle.tar.gz'): Promise<LoadedPolicy> {
  const files = await readTarball(bytes, source);
  const loaded = loadBundle(files, source);
  const wasm = loaded.manifest.wasm;
  if (wasm.length === 0) {
    throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest lists no wasm modules (build it with opa build -t wasm -e ENTRYPOINT)`, { at: [{ file: source, path: '.manifest' }] });
  }
  // loadBundle has checked, as OPA does, that each module names a policy.wasm entry exactly.
  const byName = new Map(loaded.wasm.map((f) => [f.entryName, f]));
  const mods = new Map<string, Module>();
  const byEntry = new Map<string, Module>();
  for (const [i, w] of wasm.entries()) {
    const file = byName.get(w.module)!;
    const modName = w.module.replace(/^\//, '');
    let m = mods.get(w.module);
    if (m === undefined) {
      m = { name: `${source}:${modName}`, policy: await instantiate(file.bytes, `${source}:${modName}`) };
      mods.set(w.module, m);
    }
    const ep = w.entrypoint.replace(/^\/+|\/+$/g, '');
    if (!(ep in (m.policy.entrypoints ?? {}))) throw new ToolgateError('BUNDLE_INVALID', `${source}: entrypoint ${ep} is not exported by ${modName}`, { at: [{ file: source, path: `.manifest/wasm/${i}` }] });
    byEntry.set(ep, m);
  }
  return makeLoaded([...mods.values()], byEntry, loaded.data);
}
