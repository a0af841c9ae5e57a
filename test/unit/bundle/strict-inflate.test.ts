/**
 * The WebAssembly inflate and CRC-32 (src/bundle/gzip-wasm.ts) against node:zlib: every stream it
 * accepts inflates to zlib's bytes, whatever the data, level and strategy, and a damaged stream is
 * either refused (zlib then reads it) or read exactly as zlib reads it. The committed module is the
 * one inflate.wat compiles to.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { constants, crc32 as zlibCrc32, deflateRawSync, gzipSync, inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { crc32, STRICT_INFLATE_MAX_BYTES, strictInflate } from '../../../src/bundle/gzip-wasm.ts';
import { inflateGo } from '../../../src/bundle/go-gzip.ts';
import { DEFAULT_TARBALL_LIMITS } from '../../../src/bundle/read-tarball.ts';
import { REPO } from '../../helpers/processes.ts';

/** Bytes from a small alphabet, so that deflate finds matches (a large one makes literals). */
const data = fc.tuple(fc.integer({ min: 1, max: 256 }), fc.integer({ min: 0, max: 20_000 }), fc.integer()).map(([alphabet, n, seed]) => {
  const b = Buffer.alloc(n);
  let x = seed | 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    b[i] = Math.floor(((x >>> 0) / 2 ** 32) ** 2 * alphabet);
  }
  return b;
});
const options = fc.record({
  level: fc.integer({ min: 0, max: 9 }),
  strategy: fc.constantFrom(constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED),
});

const zlibInflate = (b: Uint8Array): Buffer | undefined => {
  try {
    return inflateRawSync(b);
  } catch {
    return undefined;
  }
};

describe('the WebAssembly inflate', () => {
  it('inflates what zlib deflates, to the same bytes, and says where the stream ends', () => {
    let refused = 0;
    fc.assert(
      fc.property(data, options, (d, o) => {
        const deflated = deflateRawSync(d, o);
        const r = strictInflate(Buffer.concat([deflated, Buffer.from('trailer')]), d.length);
        // refusing is allowed (zlib then reads it); reading otherwise is not
        if (r === undefined) return void refused++;
        expect(r.bytes.equals(d)).toBe(true);
        expect(r.used).toBe(deflated.length);
      }),
      { numRuns: 300 },
    );
    // what zlib writes is the common case it is for: it refuses little of it
    expect(refused).toBeLessThan(30);
  });

  it('reads a damaged or cut stream as zlib does, or refuses it', () => {
    fc.assert(
      fc.property(data, options, fc.nat(), fc.integer({ min: 0, max: 7 }), fc.boolean(), (d, o, at, bit, cut) => {
        const damaged = Buffer.from(deflateRawSync(d, o));
        if (damaged.length === 0) return;
        const i = at % damaged.length;
        if (cut) damaged.fill(0, i);
        else damaged[i]! ^= 1 << bit;
        const r = strictInflate(damaged, d.length);
        if (r === undefined) return;
        expect(r.bytes.equals(zlibInflate(damaged) ?? Buffer.from('zlib refused it'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves streams past its size limit to zlib', () => {
    const big = Buffer.alloc(STRICT_INFLATE_MAX_BYTES + 1, 1);
    const deflated = deflateRawSync(big);
    expect(strictInflate(deflated, big.length)).toBeUndefined();
    const gz = gzipSync(big);
    expect(inflateGo(gz, 'b', DEFAULT_TARBALL_LIMITS).bytes.equals(big)).toBe(true);
  });

  it('refuses a stream that inflates to another size than the gzip trailer says', () => {
    const d = Buffer.from('a'.repeat(1000) + 'b'.repeat(1000));
    const deflated = deflateRawSync(d);
    expect(strictInflate(deflated, d.length)?.bytes.equals(d)).toBe(true);
    expect(strictInflate(deflated, d.length - 1)).toBeUndefined();
    expect(strictInflate(deflated, d.length + 1)).toBeUndefined();
  });

  it('gives a gzip of one member what the general reading gives', () => {
    fc.assert(
      fc.property(data, options, (d, o) => {
        const gz = gzipSync(d, o);
        expect(inflateGo(gz, 'b', DEFAULT_TARBALL_LIMITS)).toEqual({ bytes: inflateRawSync(gz.subarray(10)) });
      }),
      { numRuns: 40 },
    );
  });

  it("computes zlib's CRC-32 of bytes and of strings, from zero or continuing", () => {
    fc.assert(
      fc.property(data, fc.string(), fc.nat(), (d, s, start) => {
        expect(crc32(d)).toBe(zlibCrc32(d) >>> 0);
        expect(crc32(s)).toBe(zlibCrc32(s) >>> 0);
        // (zlib answers 0 for no bytes whatever the start: its null-buffer convention, not a CRC)
        if (d.length > 0) expect(crc32(d, start)).toBe(zlibCrc32(d, start) >>> 0);
        else expect(crc32(d, start)).toBe(start >>> 0);
      }),
      { numRuns: 200 },
    );
    expect(crc32(new Uint8Array(0))).toBe(0);
    const big = Buffer.alloc(3 * (1 << 20) + 5, 7);
    expect(crc32(big)).toBe(zlibCrc32(big) >>> 0);
  });

  it('is the module inflate.wat compiles to', () => {
    const r = spawnSync(process.execPath, [join(REPO, 'scripts', 'inflate-wasm.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  });
});
