/** The `builtin` engine: toolgate's own Rego interpreter behind the engine interface (compiled once). */
import { ToolgateError } from '../../errors.ts';
import { compileModules, fromJSON, isSet, toJSON, typeName, type ModuleSource, type RegoVersion, type Value } from '../index.ts';
import { dottedEntrypoint, type LoadedPolicy } from '../engine.ts';

export function loadBuiltin(modules: readonly ModuleSource[], regoVersion: RegoVersion = 'v1'): LoadedPolicy {
  const policy = compileModules(modules, { regoVersion });
  let data: Value = fromJSON({});
  const refs = new Map<string, string>();
  return {
    engine: 'builtin',
    entrypoints: [],
    setData(d: unknown) {
      data = fromJSON(d);
    },
    evaluate(input: unknown, entrypoint: string) {
      let ref = refs.get(entrypoint);
      if (ref === undefined) {
        ref = dottedEntrypoint(entrypoint);
        refs.set(entrypoint, ref);
      }
      let v: Value | undefined;
      try {
        v = policy.evalRule(ref, { input: input === undefined ? undefined : fromJSON(input), data });
      } catch (e) {
        if (e instanceof ToolgateError) throw e;
        throw new ToolgateError('REGO_EVAL_ERROR', `${ref}: ${(e as Error).message}`, { cause: e });
      }
      if (v === undefined) return { defined: false };
      return { defined: true, value: toJSON(v), type: isSet(v) ? 'set' : typeName(v) };
    },
  };
}
