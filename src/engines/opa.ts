/**
 * The `opa` engine: the `opa` binary (through an injected OpaRunner) compiles Rego source into a
 * wasm bundle for the requested entrypoints, which the `wasm` engine then evaluates, so results
 * carry OPA's own semantics. Without `opa` on PATH this says so (ENGINE_UNAVAILABLE).
 */
import { ToolgateError } from '../errors.ts';
import { slashEntrypoint, type LoadOptions, type LoadedPolicy, type PolicySource } from './engine.ts';
import { loadWasm, loadWasmBundle } from './wasm.ts';

export async function loadWithOpa(source: PolicySource, options: LoadOptions): Promise<LoadedPolicy> {
  if (source.kind === 'wasm') return loadWasm(source.bytes, source.name);
  if (source.kind === 'bundle') return loadWasmBundle(source.bytes, source.name);
  const runner = options.opa;
  if (runner === undefined) throw new ToolgateError('ENGINE_UNAVAILABLE', 'the opa engine needs a runner for the opa binary (none was given)');
  const a = runner.available();
  if (!a.ok) throw new ToolgateError('ENGINE_UNAVAILABLE', `the opa engine needs the opa binary: ${a.reason}`);
  const entrypoints = options.entrypoints ?? [];
  if (entrypoints.length === 0) throw new ToolgateError('USAGE', 'the opa engine compiles for named entrypoints; give at least one');
  if (source.regoVersion === 'v0') throw new ToolgateError('ENGINE_UNAVAILABLE', 'the opa engine builds Rego v1 modules only');
  const bundle = runner.buildWasm(source.modules, entrypoints.map(slashEntrypoint));
  return loadWasmBundle(bundle, 'opa build -t wasm');
}
