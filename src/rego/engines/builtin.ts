/**
 * The `builtin` engine: toolgate's own Rego interpreter behind the engine interface (compiled once).
 * Rule documents that depend on `data` alone (data-only.ts) are computed once per data document and
 * shared by every evaluation until `setData` replaces it: a sign policy's `violated` set is derived
 * once, not once per edge.
 */
import { ToolgateError } from '../../errors.ts';
import type { SharedDocs } from '../eval.ts';
import type { RegoLimits } from '../limits.ts';
import { dataOnlyNodes } from './data-only.ts';
import { compileModules, fromJSON, isSet, toJSON, typeName, type ModuleSource, type RegoVersion, type Value } from '../index.ts';
import { dottedEntrypoint, type LoadedPolicy } from '../engine.ts';

export function loadBuiltin(modules: readonly ModuleSource[], regoVersion: RegoVersion = 'v1'): LoadedPolicy {
  const policy = compileModules(modules, { regoVersion });
  const dataOnly = dataOnlyNodes(policy.compiled);
  const sharedFor = (d: Value): SharedDocs | undefined => (dataOnly.size > 0 ? { nodes: dataOnly, data: d, docs: new Map() } : undefined);
  let data: Value = fromJSON({});
  let shared = sharedFor(data);
  const refs = new Map<string, string>();
  return {
    engine: 'builtin',
    entrypoints: [],
    setData(d: unknown) {
      try {
        data = fromJSON(d);
      } catch (e) {
        if (e instanceof RangeError && /call stack/i.test(e.message)) throw new ToolgateError('REGO_LIMIT_EXCEEDED', 'the data document is nested too deeply for the builtin engine');
        throw e;
      }
      shared = sharedFor(data);
    },
    evaluate(input: unknown, entrypoint: string, limits?: RegoLimits) {
      let ref = refs.get(entrypoint);
      if (ref === undefined) {
        ref = dottedEntrypoint(entrypoint);
        refs.set(entrypoint, ref);
      }
      let v: Value | undefined;
      try {
        // the wall clock, as OPA's: io.jwt.decode_verify checks exp/nbf against it, time.now_ns reads it
        const now = BigInt(Date.now()) * 1_000_000n;
        v = policy.evalRule(ref, { input: input === undefined ? undefined : fromJSON(input), data, now, ...(shared ? { shared } : {}), ...(limits ? { limits } : {}) });
      } catch (e) {
        if (e instanceof ToolgateError) throw e;
        throw new ToolgateError('REGO_EVAL_ERROR', `${ref}: ${(e as Error).message}`, { cause: e });
      }
      if (v === undefined) return { defined: false };
      return { defined: true, value: toJSON(v), type: isSet(v) ? 'set' : typeName(v) };
    },
  };
}
