import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolgateError } from '../../../src/errors.ts';
import { firstInvalidOffset, utf8Text } from '../../../src/parse/utf8-text.ts';

/** The longest prefix Node's own validator accepts: where the first bad sequence starts. */
function longestValidPrefix(bytes: Uint8Array): number {
  let p = bytes.length;
  while (!isUtf8(bytes.subarray(0, p))) p--;
  return p;
}

const fault = (bytes: Uint8Array): ToolgateError => {
  try {
    utf8Text(bytes, 'in.yaml');
  } catch (e) {
    return e as ToolgateError;
  }
  throw new Error('expected a refusal');
};

describe('utf8Text', () => {
  it('decodes UTF-8 and drops a leading byte-order mark', () => {
    expect(utf8Text(new TextEncoder().encode('\ufeffagents: [é, 𝄞]'), 'a.yaml')).toBe('agents: [é, 𝄞]');
  });

  it('names the line, the column in characters and the byte of the first fault', () => {
    const bytes = Buffer.concat([Buffer.from('a: 1\nb: "é'), Buffer.from([0xff]), Buffer.from('"\n')]);
    const e = fault(bytes);
    expect(e.code).toBe('PARSE_ERROR');
    expect(e.at).toEqual([{ file: 'in.yaml', line: 2, col: 6 }]);
    expect(e.message).toContain('0xff');
  });

  it('refuses overlong forms, surrogates, code points above U+10FFFF and a cut-off last sequence', () => {
    for (const bad of [[0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0x41, 0xe2, 0x82]]) {
      expect(fault(Uint8Array.from(bad)).code).toBe('PARSE_ERROR');
    }
  });

  it('finds the fault where Node stops accepting the bytes, on any bytes', () => {
    const utf8ish = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0x0a, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9d, 0x84, 0x9e, 0xed, 0xf4)), { maxLength: 40 });
    fc.assert(
      fc.property(utf8ish, (xs) => {
        const bytes = Uint8Array.from(xs);
        const valid = isUtf8(bytes);
        expect(firstInvalidOffset(bytes)).toBe(valid ? bytes.length : longestValidPrefix(bytes));
        if (!valid) expect(fault(bytes).at[0]!.line).toBe(bytes.subarray(0, longestValidPrefix(bytes)).filter((b) => b === 0x0a).length + 1);
      }),
      { numRuns: 2000 },
    );
  });
});
