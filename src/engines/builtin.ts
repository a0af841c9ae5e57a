/**
 * The `builtin` engine: toolgate's own Rego interpreter (src/rego) behind the engine interface,
 * compiled once and bound to one data document at a time. Its errors come back as ToolgateErrors
 * with the engine's REGO_* code.
 */
import { ToolgateError, toolgateErrorFromRego } from '../errors.ts';
import { bindPolicy, isSet, RegoError, toJSON, typeName, wallClockNs, type ModuleSource, type RegoLimits, type RegoVersion, type Value } from '../rego/index.ts';
import { dottedEntrypoint, type LoadedPolicy } from './engine.ts';

function asToolgateError(e: unknown): unknown {
  return e instanceof RegoError ? toolgateErrorFromRego(e) : e;
}

/** `clock`: ns since the epoch, read at each evaluation (engine.ts LoadOptions); absent, the wall clock, as OPA's. */
export function loadBuiltin(modules: readonly ModuleSource[], regoVersion: RegoVersion = 'v1', clock: () => bigint = wallClockNs): LoadedPolicy {
  let bound;
  try {
    bound = bindPolicy(modules, { regoVersion });
  } catch (e) {
    throw asToolgateError(e);
  }
  const policy = bound;
  const refs = new Map<string, string>();
  return {
    engine: 'builtin',
    entrypoints: [],
    setData(d: unknown) {
      try {
        policy.setData(d);
      } catch (e) {
        throw asToolgateError(e);
      }
    },
    evaluate(input: unknown, entrypoint: string, limits?: RegoLimits) {
      let ref = refs.get(entrypoint);
      if (ref === undefined) {
        ref = dottedEntrypoint(entrypoint);
        refs.set(entrypoint, ref);
      }
      let v: Value | undefined;
      try {
        // io.jwt.decode_verify checks exp/nbf against it, time.now_ns reads it
        v = policy.evaluate(ref, { input, now: clock(), ...(limits ? { limits } : {}) });
      } catch (e) {
        if (e instanceof RegoError) throw toolgateErrorFromRego(e);
        if (e instanceof ToolgateError) throw e;
        throw new ToolgateError('REGO_EVAL_ERROR', `${ref}: ${(e as Error).message}`, { cause: e });
      }
      if (v === undefined) return { defined: false };
      return { defined: true, value: toJSON(v), type: isSet(v) ? 'set' : typeName(v) };
    },
  };
}
