/**
 * One interface over the three Rego engines (DESIGN.md §5): load a policy once, set the data
 * document once, evaluate many inputs at a data entrypoint, with one result shape for every engine.
 *
 *   const policy = await loadPolicy({ kind: 'rego', modules }, { engine: 'builtin' });
 *   policy.setData(dataDocument);                          // plain JSON, converted once
 *   policy.evaluate({ edge }, 'data.toolgate.signs.sign'); // { defined: true, value: 'deny', type: 'string' }
 *
 * Engines: `builtin` (toolgate's own interpreter, Rego source), `wasm` (@open-policy-agent/opa-wasm
 * over an OPA-compiled policy.wasm or wasm bundle tarball), `opa` (the `opa` binary compiles Rego
 * to a wasm bundle, then the `wasm` engine runs it; needs an injected runner, see cli/opa-runner.ts).
 * Engine and ABI checks happen at load time; evaluation errors come back as ToolgateErrors.
 */
import { ToolgateError } from '../errors.ts';
import { scalarTypeName, type ModuleSource, type RegoLimits, type RegoVersion } from '../rego/index.ts';

export const ENGINES = ['builtin', 'wasm', 'opa'] as const;
export type EngineName = (typeof ENGINES)[number];

export function isEngineName(v: unknown): v is EngineName {
  return typeof v === 'string' && (ENGINES as readonly string[]).includes(v);
}

/** What a policy is loaded from. */
export type PolicySource =
  | { readonly kind: 'rego'; readonly modules: readonly ModuleSource[]; readonly regoVersion?: RegoVersion }
  | { readonly kind: 'wasm'; readonly bytes: Uint8Array; readonly name?: string }
  | { readonly kind: 'bundle'; readonly bytes: Uint8Array; readonly name?: string };

/** The JSON type of a result; `set` only from engines that keep sets apart from arrays (builtin). */
export type ResultType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'set' | 'object';

/** One evaluation at one entrypoint. `value` is plain JSON (sets as sorted arrays). */
export type Evaluation =
  | { readonly defined: false }
  | { readonly defined: true; readonly value: unknown; readonly type: ResultType }
  /** The engine produced more than one result (an OPA result set with several rows). */
  | { readonly defined: true; readonly multiple: readonly unknown[]; readonly type: 'multiple' };

export interface LoadedPolicy {
  readonly engine: EngineName;
  /** Entrypoints the policy declares (dotted `data.a.b` form); empty when any data ref may be asked (builtin). */
  readonly entrypoints: readonly string[];
  /** Replaces the whole `data` document (plain JSON). */
  setData(data: unknown): void;
  /**
   * Evaluates `entrypoint` (`data.a.b` or `a/b`) for one input (plain JSON). `limits` bound the
   * evaluation in the builtin engine; the wasm engines run OPA-compiled wasm, which takes none.
   */
  evaluate(input: unknown, entrypoint: string, limits?: RegoLimits): Evaluation;
}

/** Runs the `opa` binary: builds Rego modules into a wasm bundle for the given entrypoints. */
export interface OpaRunner {
  /** Null when `opa` is not installed, with the reason. */
  available(): { ok: true; version: string } | { ok: false; reason: string };
  buildWasm(modules: readonly ModuleSource[], entrypoints: readonly string[]): Uint8Array;
}

export interface LoadOptions {
  readonly engine?: EngineName;
  /** Entrypoints to compile for (`opa` engine; `opa build -t wasm` needs them up front). */
  readonly entrypoints?: readonly string[];
  /** Needed by the `opa` engine. */
  readonly opa?: OpaRunner;
  /**
   * The builtin engine's clock, in ns since the epoch, read at each evaluation (time.now_ns, token
   * expiry); absent, the wall clock, as OPA reads its host's (the wasm engines read it inside OPA's
   * wasm runtime). A caller that needs a fixed time passes its own.
   */
  readonly clock?: () => bigint;
}

/** `data.a.b` or `a/b` -> `['a', 'b']`. */
export function entrypointPath(entrypoint: string): string[] {
  const e = entrypoint.trim();
  const parts = e.startsWith('data.') ? e.slice(5).split('.') : e === 'data' ? [] : e.replace(/^\/+|\/+$/g, '').split('/');
  if (parts.some((p) => p === '')) throw new ToolgateError('USAGE', `bad entrypoint ${JSON.stringify(entrypoint)}: expected data.a.b or a/b`);
  return parts;
}

export function dottedEntrypoint(entrypoint: string): string {
  return ['data', ...entrypointPath(entrypoint)].join('.');
}

export function slashEntrypoint(entrypoint: string): string {
  return entrypointPath(entrypoint).join('/');
}

/** The JSON type of a plain value. */
export function jsonType(v: unknown): ResultType {
  if (Array.isArray(v)) return 'array';
  return scalarTypeName(v) ?? 'object';
}

/** Loads a policy into the chosen engine (default: `builtin` for Rego, `wasm` for wasm and bundles). */
export async function loadPolicy(source: PolicySource, options: LoadOptions = {}): Promise<LoadedPolicy> {
  const engine = options.engine ?? (source.kind === 'rego' ? 'builtin' : 'wasm');
  switch (engine) {
    case 'builtin': {
      if (source.kind !== 'rego') {
        throw new ToolgateError('ENGINE_UNAVAILABLE', `the builtin engine evaluates Rego source; a ${source.kind === 'wasm' ? 'policy.wasm' : 'bundle tarball'} needs --engine wasm`);
      }
      const { loadBuiltin } = await import('./builtin.ts');
      return loadBuiltin(source.modules, source.regoVersion, options.clock);
    }
    case 'wasm': {
      const { loadWasm, loadWasmBundle } = await import('./wasm.ts');
      if (source.kind === 'wasm') return loadWasm(source.bytes, source.name ?? 'policy.wasm');
      if (source.kind === 'bundle') return loadWasmBundle(source.bytes, source.name ?? 'bundle.tar.gz');
      throw new ToolgateError('ENGINE_UNAVAILABLE', 'the wasm engine runs OPA-compiled wasm; Rego source needs --engine builtin, or --engine opa to compile it with the opa binary');
    }
    case 'opa': {
      const { loadWithOpa } = await import('./opa.ts');
      return loadWithOpa(source, options);
    }
  }
}
