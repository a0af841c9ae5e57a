/** The two-thread gzip: the bytes of the one-thread gzip, whichever thread deflates which chunk. */
import { describe, it, expect } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { chunkEnds, chunkIndex, chunkRanges, deflateChunk, gzipInChunks } from '../../../src/emit/gzip.ts';
import { deflateOnWorker, gzipInChunksOnTwoThreads, TWO_THREAD_MIN_BYTES } from '../../../src/emit/two-thread-gzip.ts';

/** About 11 MiB of JSON-like text: many chunks, past the size a worker is started for. */
function manyChunks(seed: number): Uint8Array {
  const rows = Array.from({ length: 190_000 }, (_, i) => `{"agent":"a${(i * seed) % 997}","tool":"s${i % 131}::t${(i * 7 + seed) % 1009}","allow":${i % 3 === 0}}`);
  return new TextEncoder().encode(`[${rows.join(',')}]`);
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('gzipInChunksOnTwoThreads', () => {
  it('gives the bytes and chunks of gzipInChunks on an input large enough for the worker', () => {
    const input = manyChunks(7);
    expect(input.length).toBeGreaterThan(TWO_THREAD_MIN_BYTES);
    expect(chunkEnds(input).length).toBeGreaterThan(4);
    const one = gzipInChunks(input);
    const two = gzipInChunksOnTwoThreads(input);
    expect(same(two.bytes, one.bytes)).toBe(true);
    expect(two.chunks.map((c) => c.digest)).toEqual(one.chunks.map((c) => c.digest));
    two.chunks.forEach((c, i) => expect(same(c.deflated, one.chunks[i]!.deflated)).toBe(true));
    expect(gunzipSync(two.bytes).equals(input)).toBe(true);
  });

  it('takes from a worker the very streams this thread makes, the final block of the last chunk included', async () => {
    const input = manyChunks(11).subarray(0, 3_000_000);
    const ranges = chunkRanges(input);
    expect(ranges.length).toBeGreaterThan(2);
    const streams = await deflateOnWorker(input, ranges);
    expect(streams).toHaveLength(ranges.length);
    ranges.forEach((r, i) => expect(same(streams[i]!, deflateChunk(input.subarray(r.start, r.end), r.last))).toBe(true));
  });

  it('copies reused chunks as gzipInChunks does, and deflates small inputs on this thread alone', () => {
    const before = manyChunks(9);
    const after = new Uint8Array([...new TextEncoder().encode('[{"edited":1},'), ...before.subarray(1)]);
    const reuse = chunkIndex(gzipInChunks(before).chunks);
    expect(same(gzipInChunksOnTwoThreads(after, reuse).bytes, gzipInChunks(after, reuse).bytes)).toBe(true);
    for (const small of [new Uint8Array(0), new TextEncoder().encode('toolgate'), before.subarray(0, 3_000_000)]) {
      expect(same(gzipInChunksOnTwoThreads(small).bytes, gzipInChunks(small).bytes)).toBe(true);
    }
  });
});
