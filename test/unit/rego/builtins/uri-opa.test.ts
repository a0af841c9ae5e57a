/**
 * uri.parse / uri.is_valid and the compiler's internal.template_string / internal.test_case against
 * the real OPA, on generated URI references (valid and broken: bad escapes, ports, IP literals,
 * control bytes, non-ASCII) and template parts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';

const piece = fc.constantFrom(
  'http', 'https', 'mongodb', 'HTTP', 'a+b', '1x', ':', '://', '//', '///', '/', '?', '#', '@', '[', ']', '%', '%2f', '%41', '%zz', '%2', '%25',
  '%e2%82', '%c3%a9', 'é', '€', ' ', '+', 'example.com', 'a', 'user', 'p@ss', ':80', ':8x', '::1', 'fe80::1', '%25en0', '1.2.3.4', '[::1]',
  '[fe80::1%25en0]', '[1.2.3.4]', '[zz]', '[::ffff:1.2.3.4]', 'x=1&y=2', '*', '.', '..', '\t', '\u007f', ';', '!', "'", '(', '~', '$',
);
const uri = fc.oneof(
  fc.array(piece, { maxLength: 8 }).map((xs) => xs.join('')),
  fc.tuple(fc.constantFrom('http', 'https', 'ftp', 'urn', 'file', ''), fc.constantFrom('://', ':', ''), fc.array(piece, { maxLength: 5 }))
    .map(([s, sep, rest]) => `${s}${sep}${rest.join('')}`),
  fc.string({ maxLength: 12 }),
);
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean(), fc.constant(null), fc.integer({ min: -999, max: 999 }).map((n) => n / 8));
// Not exponent-form floats: OPA prints an input number as the text it arrived as (`4e-156`), the engine keeps
// only its value and prints it in full (a known difference, see src/rego/builtins/README.md).

describeWithOpa('uri.* and internal.* against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([
      { name: 'uri.parse', arity: 1 },
      { name: 'uri.is_valid', arity: 1 },
      { name: 'internal.template_string', arity: 1 },
      { name: 'internal.test_case', arity: 1, statement: true },
    ]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('uri.parse and uri.is_valid agree on 1,200 generated references', async () => {
    const refs = fc.sample(uri, { numRuns: 600, seed: 16 });
    const calls = [...refs, 1, null, ['x']].flatMap((r) => [{ name: 'uri.parse', args: [r] }, { name: 'uri.is_valid', args: [r] }]);
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(300);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(50);
    expect(t.kinds.eval_type_error).toBeGreaterThan(0);
  }, 60_000);

  it('internal.template_string and internal.test_case agree on generated parts', async () => {
    // Sets cannot travel in JSON input, so template parts here are scalars, arrays and objects.
    const parts = fc.sample(fc.oneof(fc.array(fc.oneof(scalar, fc.array(scalar, { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 2 }), scalar, { maxKeys: 2 })), { maxLength: 4 }), scalar), { numRuns: 200, seed: 7 });
    const calls = parts.flatMap((p) => [{ name: 'internal.template_string', args: [p] }, { name: 'internal.test_case', args: [p] }]);
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.eval_internal_error).toBeGreaterThan(0);
  }, 60_000);
});
