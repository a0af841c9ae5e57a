/** Bytes held in pieces read as one: against the same bytes joined. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ByteSegments } from '../../../src/canonical/byte-segments.ts';

const pieces = fc.array(fc.uint8Array({ maxLength: 40 }), { maxLength: 8 });

describe('ByteSegments', () => {
  it('slices any range as the joined bytes would', () => {
    fc.assert(
      fc.property(pieces, fc.nat(), fc.nat(), (parts, a, b) => {
        const joined = Buffer.concat(parts);
        const s = new ByteSegments(parts);
        expect(s.length).toBe(joined.length);
        const [start, end] = [a % (joined.length + 1), b % (joined.length + 1)].sort((x, y) => x - y) as [number, number];
        expect(Buffer.from(s.slice(start, end)).equals(joined.subarray(start, end))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('compares ranges of two piece lists as their joined bytes compare', () => {
    fc.assert(
      fc.property(pieces, pieces, fc.nat(), fc.nat(), fc.nat(), (x, y, a, b, n) => {
        const [jx, jy] = [Buffer.concat(x), Buffer.concat(y)];
        const length = n % (Math.min(jx.length, jy.length) + 1);
        const start = a % (jx.length - length + 1);
        const otherStart = b % (jy.length - length + 1);
        const expected = jx.subarray(start, start + length).equals(jy.subarray(otherStart, otherStart + length));
        expect(new ByteSegments(x).equalRange(start, new ByteSegments(y), otherStart, length)).toBe(expected);
        // A range compared with itself, split differently, is equal.
        expect(new ByteSegments(x).equalRange(start, new ByteSegments([jx]), start, length)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
