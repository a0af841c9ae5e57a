import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goUtf8 } from '../../../src/bundle/go-json.ts';

/** Go's rune conversion, from Node's strict decoder: the shortest prefix at each byte that decodes whole, else U+FFFD for that one byte. */
function reference(bytes: Uint8Array): string {
  const strict = new TextDecoder('utf-8', { fatal: true });
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    let k = 1;
    let piece: string | undefined;
    for (; k <= 4 && i + k <= bytes.length && piece === undefined; k++) {
      try {
        piece = strict.decode(bytes.subarray(i, i + k));
      } catch {
        piece = undefined;
      }
    }
    if (piece === undefined) {
      out += '\uFFFD';
      i++;
    } else {
      out += piece;
      i += k - 1;
    }
  }
  return out;
}

describe('goUtf8', () => {
  it('replaces each byte that starts no well-formed sequence with one U+FFFD, as Go does', () => {
    expect(goUtf8(Uint8Array.from([0x61, 0xe2, 0x82, 0x62]))).toBe('a\uFFFD\uFFFDb');
    const bytes = fc.array(fc.oneof(fc.integer({ min: 0, max: 0xff }), fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xf4, 0x90)), { maxLength: 32 });
    fc.assert(
      fc.property(bytes, (xs) => {
        expect(goUtf8(Uint8Array.from(xs))).toBe(reference(Uint8Array.from(xs)));
      }),
      { numRuns: 3000 },
    );
  });
});
