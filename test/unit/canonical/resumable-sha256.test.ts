/** Resumed SHA-256 against node:crypto's digest of the whole bytes, hashed afresh. */
import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { resumablePartsSha256, resumableSha256 } from '../../../src/canonical/resumable-sha256.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const MiB = 1 << 20;

describe('resumableSha256', () => {
  it('gives the SHA-256 of the bytes after any edit, resumed from any earlier version (and from that one again)', () => {
    const base = new Uint8Array(3 * MiB + 12_345).map((_, i) => (i * 31 + (i >> 11)) & 255);
    const edit = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), cut: fc.integer({ min: 0, max: 2 * MiB }), insert: fc.uint8Array({ maxLength: 100 }) });
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 3 }), (edits) => {
        const first = resumableSha256(base);
        expect(first.hex).toBe(sha256(base));
        let bytes: Uint8Array = base;
        for (const e of edits) {
          const at = Math.floor(e.at * bytes.length);
          bytes = Buffer.concat([bytes.subarray(0, at), e.insert, bytes.subarray(Math.min(bytes.length, at + e.cut))]);
        }
        const next = resumableSha256(bytes, first);
        expect(next.hex).toBe(sha256(bytes));
        // The states the resumed digest kept are as good as fresh ones: resuming from them again agrees too.
        expect(resumableSha256(base, next).hex).toBe(sha256(base));
        expect(resumableSha256(bytes, next).hex).toBe(sha256(bytes));
      }),
      { numRuns: 15 },
    );
  });

  it('resumes from the state saved before the first changed step, not from the start', () => {
    const base = new Uint8Array(4 * MiB).fill(1);
    const first = resumableSha256(base);
    const edited = Uint8Array.from(base);
    edited[2 * MiB + 5] = 9;
    const next = resumableSha256(edited, first);
    expect(next.hex).toBe(sha256(edited));
    // 128 KiB steps: the first 16 are shared, the one holding the change is hashed again.
    expect(next.states[16]).toBe(first.states[16]);
    expect(next.states[17]).not.toBe(first.states[17]);
  });

  it('hashes empty, short and exact-step inputs as plain SHA-256', () => {
    for (const n of [0, 1, MiB - 1, MiB, 2 * MiB]) {
      const b = new Uint8Array(n).fill(7);
      expect(resumableSha256(b).hex).toBe(sha256(b));
      expect(resumableSha256(b, resumableSha256(new Uint8Array(3 * MiB).fill(7))).hex).toBe(sha256(b));
    }
  });
});

describe('resumablePartsSha256', () => {
  const joined = (parts: readonly (string | Uint8Array)[]) => sha256(Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p))));
  const part = fc.oneof(fc.string({ maxLength: 20 }), fc.integer({ min: 0, max: 70_000 }).map((n) => new Uint8Array(n).fill(n & 255)));

  it('gives the SHA-256 of the parts joined, resumed from an earlier sequence after any edits', () => {
    const edit = fc.record({ at: fc.nat(), remove: fc.nat(3), insert: fc.array(part, { maxLength: 3 }) });
    fc.assert(
      fc.property(fc.array(part, { maxLength: 12 }), fc.array(edit, { maxLength: 3 }), (parts, edits) => {
        const first = resumablePartsSha256(parts);
        expect(first.hex).toBe(joined(parts));
        let next = [...parts];
        for (const e of edits) next.splice(e.at % (next.length + 1), e.remove, ...e.insert);
        const again = resumablePartsSha256(next, first);
        expect(again.hex).toBe(joined(next));
        expect(resumablePartsSha256(parts, again).hex).toBe(joined(parts));
      }),
      { numRuns: 200 },
    );
  });

  it('resumes from a state saved before the first part that differs', () => {
    const big = (n: number) => new Uint8Array(100_000).fill(n);
    const parts = ['{', big(1), ',', big(2), ',', big(3), '}'];
    const first = resumablePartsSha256(parts);
    const edited = [...parts.slice(0, 5), big(9), '}'];
    const next = resumablePartsSha256(edited, first);
    expect(next.hex).toBe(joined(edited));
    expect(next.states.length).toBeGreaterThan(1);
    expect(next.states[1]).toBe(first.states[1]);
  });
});
