/** OPA semantics the regorus corpus review turned up (each case checked against OPA's behaviour). */
import { describe, expect, it } from 'vitest';
import { compileModules, fromJSON, RegoError, toJSON, type EvalOptions } from '../../../src/rego/index.ts';

function run(text: string, query: string, opts: EvalOptions & { v0?: boolean } = {}): unknown[] {
  const p = compileModules([{ name: 'm.rego', text }], { regoVersion: opts.v0 ? 'v0' : 'v1' });
  return p
    .prepareQuery(query)
    .evaluate(opts)
    .map((r) => Object.fromEntries([...r.bindings].map(([k, v]) => [k, toJSON(v)])));
}

function err(fn: () => unknown): RegoError {
  try {
    fn();
  } catch (e) {
    if (e instanceof RegoError) return e;
    throw e;
  }
  throw new Error('expected a RegoError');
}

describe('null-valued documents', () => {
  it('a rule whose value is null stays null when read again (not undefined)', () => {
    const m = 'package t\nfoo := input.a\nn := count(foo)\nm := foo == null\n';
    expect(err(() => run(m, 'x := data.t', { input: fromJSON({ a: null }), strict: true })).message).toContain(
      'count: operand 1 must be one of {array, object, set, string} but got null',
    );
    expect(run(m, 'x := data.t', { input: fromJSON({ a: null }) })).toEqual([{ x: { foo: null, m: true } }]);
  });

  it('a function returning null is memoised as null', () => {
    const m = 'package t\nf(_) := null\np := [f(1), f(1)]\n';
    expect(run(m, 'x := data.t.p')).toEqual([{ x: [null, null] }]);
  });
});
