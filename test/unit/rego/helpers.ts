/** Helpers shared by the Rego unit tests. */
import { compileModules, RegoError, toJSON, type EvalOptions } from '../../../src/rego/index.ts';

/** Compiles the modules (named m0.rego, m1.rego, ...), evaluates the query, and returns each result's bindings as plain JSON. */
export function run(text: string | string[], query: string, opts: EvalOptions & { v0?: boolean } = {}): unknown[] {
  const texts = Array.isArray(text) ? text : [text];
  const p = compileModules(
    texts.map((t, i) => ({ name: `m${i}.rego`, text: t })),
    { regoVersion: opts.v0 ? 'v0' : 'v1' },
  );
  return p
    .prepareQuery(query)
    .evaluate(opts)
    .map((r) => Object.fromEntries([...r.bindings].map(([k, v]) => [k, toJSON(v)])));
}

/** The RegoError that `fn` throws; fails the test if it throws nothing, and rethrows any other error. */
export function regoError(fn: () => unknown): RegoError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RegoError) return e;
    throw e;
  }
  throw new Error('expected a RegoError');
}
