/**
 * base64.decode and base64url.decode against the real OPA on generated text: valid and broken
 * quanta, padding in and out of place, CR/LF, characters of the other alphabet and outside both,
 * unpadded url input of every length, and url text that decodes to ASCII. Errors must agree on the byte offset Go reports.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';

const text = fc
  .array(fc.constantFrom('Q', 'U', 'J', 'h', 'z', '0', '9', '+', '/', '-', '_', '=', '\n', '\r', '^', ' ', 'é'), { maxLength: 14 })
  .map((cs) => cs.join(''));
const valid = fc.uint8Array({ maxLength: 10 }).map((b) => Buffer.from(b).toString('base64'));
const validUrl = fc.uint8Array({ maxLength: 10 }).map((b) => Buffer.from(b).toString('base64url'));
// text that decodes to ASCII, as a JWT segment does (the decoder's short path)
const asciiUrl = fc.uint8Array({ maxLength: 12 }).map((b) => Buffer.from(b.map((x) => x & 0x7f)).toString('base64url'));

describeWithOpa('base64 decoding against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([
      { name: 'base64.decode', arity: 1 },
      { name: 'base64url.decode', arity: 1 },
    ]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('agrees on 1,400 generated strings, errors by message', async () => {
    const inputs = [...fc.sample(text, { numRuns: 400, seed: 5 }), ...fc.sample(valid, { numRuns: 100, seed: 6 }), ...fc.sample(validUrl, { numRuns: 100, seed: 7 }), ...fc.sample(asciiUrl, { numRuns: 100, seed: 8 })];
    const cases = inputs.flatMap((s) => [
      { name: 'base64.decode', args: [s] },
      { name: 'base64url.decode', args: [s] },
    ]);
    const t = await oracle.compare(cases);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(200);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(200);
  }, 60_000);
});
