/** A deflater reused chunk after chunk writes, for each chunk, the stream a fresh pako deflater writes. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Deflate, deflateRaw, Z_SYNC_FLUSH } from 'pako';
import { GZIP_PARAMETERS } from '../../../src/emit/gzip.ts';
import { RawDeflater } from '../../../src/emit/raw-deflater.ts';

function fresh(input: Uint8Array, dictionary: Uint8Array | undefined, last: boolean): Uint8Array {
  const options = dictionary === undefined ? { ...GZIP_PARAMETERS } : { ...GZIP_PARAMETERS, dictionary };
  if (last) return deflateRaw(input, options);
  const d = new Deflate({ ...options, raw: true });
  d.push(input, Z_SYNC_FLUSH);
  return Buffer.concat(d.chunks);
}

/** Bytes with long repeats (JSON-like text, a few distinct words) so matches reach the input's end, or noise. */
const bytes = (max: number) =>
  fc.oneof(
    fc.array(fc.constantFrom('{"agent":"a-', '","tool":"srv-', '::tool_', '7', '12', '"},', 'x'), { maxLength: max / 8 }).map((parts) => new TextEncoder().encode(parts.join(''))),
    fc.uint8Array({ maxLength: max }),
    fc.nat(max).map((n) => new Uint8Array(n).fill(97)),
  );

describe('RawDeflater', () => {
  it('writes for every chunk of a run what a fresh deflater writes, whatever the chunks before it were', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(bytes(70_000), fc.option(bytes(40_000), { nil: undefined }), fc.boolean()), { minLength: 1, maxLength: 6 }), (chunks) => {
        const d = new RawDeflater(GZIP_PARAMETERS);
        for (const [input, dictionary, last] of chunks) expect(Buffer.from(d.deflate(input, dictionary, last)).equals(Buffer.from(fresh(input, dictionary, last)))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
