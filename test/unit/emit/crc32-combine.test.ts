/** The CRC-32 of two byte strings joined, from theirs, against node:zlib's CRC-32 of the joined bytes. */
import { describe, it, expect } from 'vitest';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { crc32Combine } from '../../../src/emit/crc32-combine.ts';

describe('crc32Combine', () => {
  it('equals the CRC-32 of the concatenation, for any two byte strings', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), fc.uint8Array({ maxLength: 2000 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])) >>> 0);
      }),
      { numRuns: 300 },
    );
  });

  it('carries a CRC past long runs too (lengths with high bits set)', () => {
    const a = Buffer.from('toolgate');
    for (const length of [65_536, 1_048_577, 3_000_001]) {
      const b = Buffer.alloc(length, 0x5a);
      expect(crc32Combine(crc32(a), crc32(b), length)).toBe(crc32(Buffer.concat([a, b])) >>> 0);
    }
  });

  it('leaves a CRC unchanged by an empty second part', () => {
    expect(crc32Combine(0xcbf43926, 0, 0)).toBe(0xcbf43926);
  });
});
