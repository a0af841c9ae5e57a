import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ArtifactBuffers } from '../../../src/compile/incremental/artifact-buffers.ts';

describe('ArtifactBuffers', () => {
  it('writes a later artifact into the memory of a retired one that fits it', () => {
    const buffers = new ArtifactBuffers();
    const first = buffers.take(10_000);
    expect(first.length).toBe(10_000);
    buffers.retire([first], []);
    const next = buffers.take(10_050);
    expect(next.buffer).toBe(first.buffer);
    expect(next.length).toBe(10_050);
  });

  it('reserves memory for a set like the one given, taken once each', () => {
    const buffers = new ArtifactBuffers();
    const set = [buffers.take(8_000), buffers.take(20_000)];
    buffers.reserve(set);
    const next = [buffers.take(8_100), buffers.take(19_900)];
    for (const b of next) expect(set.map((s) => s.buffer)).not.toContain(b.buffer);
    expect(next[0]!.buffer).not.toBe(next[1]!.buffer);
    expect(next[0]!.buffer.byteLength).toBeLessThan(10_000);
    expect(next[1]!.buffer.byteLength).toBeGreaterThan(19_900);
  });

  it('keeps a buffer the new state still holds, and a buffer it did not make', () => {
    const buffers = new ArtifactBuffers();
    const held = buffers.take(5_000);
    const foreign = Buffer.alloc(5_000);
    buffers.retire([held, foreign], [held.subarray(10, 20)]);
    const next = buffers.take(5_000);
    expect(next.buffer).not.toBe(held.buffer);
    expect(next.buffer).not.toBe(foreign.buffer);
  });

  it('never hands out one buffer twice, and never one that is in use', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 4_000 }), fc.boolean()), { minLength: 1, maxLength: 40 }), (steps) => {
        const buffers = new ArtifactBuffers();
        const live = new Set<ArrayBufferLike>();
        let current: Buffer[] = [];
        for (const [size, replace] of steps) {
          const b = buffers.take(size);
          expect(b.length).toBe(size);
          expect(live.has(b.buffer)).toBe(false);
          live.add(b.buffer);
          if (replace) {
            // The set so far is replaced by the new buffer: what it held may be reused, the new one not.
            buffers.retire(current, [b]);
            for (const old of current) live.delete(old.buffer);
            current = [b];
          } else current.push(b);
        }
      }),
    );
  });
});
