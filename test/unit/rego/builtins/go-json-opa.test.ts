/**
 * The engine's Go JSON reader (src/rego/go-json.ts) through json.unmarshal and json.is_valid, against
 * the real OPA on generated texts: valid documents, and documents cut short, with a character put in
 * or taken out (bad escapes, lone surrogates, broken literals, stray delimiters). Results and error
 * messages must agree, except for json.unmarshal of a value with more text after it, which OPA reads
 * as json.Decoder's first value and then one more token (a known difference, builtins/README.md).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';
import { GoJsonSyntaxError, readGoJson } from '../../../../src/rego/go-json.ts';

/** Whether the whole text reads, or fails for a reason other than text after a complete value. */
function noTrailingText(t: string): boolean {
  const ignore = () => null;
  try {
    readGoJson(t, { string: ignore, number: ignore, literal: ignore, array: ignore, openObject: ignore, member: ignore, closeObject: ignore });
    return true;
  } catch (e) {
    return !(e instanceof GoJsonSyntaxError && e.phrase === 'after top-level value');
  }
}

const atom = fc.constantFrom(
  '"a"', '"\\n"', '"\\u00e9"', '"\\ud83d\\ude00"', '"\\ud800"', '"\\udc00x"', '"\\ud800\\u0041"', '"\\x"', '"\\u12"', '"\\/"',
  '0', '12', '-3', '2.5', '01', '-', '1.', 'true', 'false', 'null', 'tru', 'nul', 'fals', '"é"', '[]', '{}', '"\u0001"', '"\u007f"',
);
const doc: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    atom,
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc.array(fc.tuple(fc.constantFrom('a', 'b', 'é'), tie('value')), { maxLength: 3 }).map((ms) => `{${ms.map(([k, v]) => `"${k}":${v}`).join(', ')}}`),
    tie('value').map((v) => ` ${v}\n`),
  ),
})).value as fc.Arbitrary<string>;
const text = fc.oneof(
  doc,
  fc.tuple(doc, fc.nat()).map(([d, p]) => d.slice(0, p % (d.length + 1))),
  fc.tuple(doc, fc.nat(), fc.constantFrom(',', ':', '[', ']', '{', '}', '"', '\\', 'x', ' ', '1', 't')).map(([d, p, c]) => {
    const at = p % (d.length + 1);
    return d.slice(0, at) + c + d.slice(at);
  }),
  fc.tuple(doc, fc.nat()).map(([d, p]) => {
    const at = p % (d.length + 1);
    return d.slice(0, at) + d.slice(at + 1);
  }),
);

describeWithOpa('json.unmarshal and json.is_valid against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([
      { name: 'json.unmarshal', arity: 1 },
      { name: 'json.is_valid', arity: 1 },
    ]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('agree on 800 generated texts, errors by message', async () => {
    const texts = fc.sample(text, { numRuns: 800, seed: 20261201 });
    const calls = [...texts, '', ' ', '\t\n'].flatMap((t) => [
      ...(noTrailingText(t) ? [{ name: 'json.unmarshal', args: [t] }] : []),
      { name: 'json.is_valid', args: [t] },
    ]);
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(800);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(100);
  }, 120_000);
});
