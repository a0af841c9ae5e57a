/** The deterministic gzip: pinned header, round trip, and canonical zlib's own bytes. */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ByteSegments } from '../../../src/canonical/byte-segments.ts';
import { CHUNKING, chunkEnds, GZIP_HEADER, gzipDeterministic, gzipInChunks } from '../../../src/emit/gzip.ts';

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
const asPlatform = (p: string) => Object.defineProperty(process, 'platform', { ...realPlatform, value: p });

const python = spawnSync('python3', ['-c', 'import zlib'], { encoding: 'utf8' }).status === 0;

/**
 * gzip by the system zlib python3 links (level 6, memLevel 8, default strategy): each chunk raw
 * deflated by a fresh compressor primed with the last 8 KiB before it (none for the first),
 * sync-flushed but the last, between our header and the CRC-32 and size trailer. One chunk is plain
 * `zlib.compressobj(6, DEFLATED, 31)` output.
 */
function canonicalZlibGzip(bytes: Uint8Array, ends: readonly number[]): Uint8Array {
  const script = [
    'import sys,zlib,struct',
    'data=sys.stdin.buffer.read()',
    'ends=[int(e) for e in sys.argv[1:]]',
    "out=bytearray(b'\\x1f\\x8b\\x08\\x00\\x00\\x00\\x00\\x00\\x00\\x03')",
    'start=0',
    'for i,end in enumerate(ends or [0]):',
    '  c=zlib.compressobj(6,zlib.DEFLATED,-15,8,zlib.Z_DEFAULT_STRATEGY,**({"zdict":data[max(0,start-8192):start]} if start else {}))',
    '  out+=c.compress(data[start:end])+c.flush(zlib.Z_FINISH if i==max(len(ends)-1,0) else zlib.Z_SYNC_FLUSH)',
    '  start=end',
    "out+=struct.pack('<II',zlib.crc32(data)&0xffffffff,len(data)&0xffffffff)",
    'sys.stdout.buffer.write(out)',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script, ...ends.map(String)], { input: bytes, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return new Uint8Array(r.stdout);
}

describe('gzipDeterministic', () => {
  afterEach(() => Object.defineProperty(process, 'platform', realPlatform));

  it.each(['linux', 'darwin', 'win32', 'freebsd'])('writes the pinned header (FLG 0, MTIME 0, XFL 0, OS 3) when process.platform is %s', (platform) => {
    const input = new TextEncoder().encode('toolgate '.repeat(1000));
    const linux = gzipDeterministic(input);
    asPlatform(platform);
    const here = gzipDeterministic(input);
    expect([...here.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
    expect([...here.subarray(0, 10)]).toEqual(GZIP_HEADER);
    expect(Buffer.from(here).equals(Buffer.from(linux))).toBe(true);
  });

  it('round-trips through node:zlib for any bytes, and repeats its output exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        const a = gzipDeterministic(bytes);
        expect(new Uint8Array(gunzipSync(a))).toEqual(bytes);
        expect(gzipDeterministic(bytes)).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });

  it.skipIf(!python)('equals the bytes of canonical zlib (python3 zlib module) on the same input, header included (skips when python3, the reference zlib here, is not on PATH)', () => {
    const inputs = [
      new Uint8Array(0),
      new TextEncoder().encode('{"toolgate":{"agents":{}}}'),
      new TextEncoder().encode(JSON.stringify(Array.from({ length: 3000 }, (_, i) => ({ agent: `a${i % 97}`, tool: `s${i % 13}::t${i}`, allow: i % 3 === 0 })))),
      Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251),
    ];
    for (const input of inputs) expect(Buffer.from(gzipDeterministic(input)).equals(Buffer.from(canonicalZlibGzip(input, chunkEnds(input))))).toBe(true);
  });

  it.skipIf(!python)('equals canonical zlib chunk by chunk on an input of several chunks (skips without python3)', () => {
    const input = manyChunks(1);
    const ends = chunkEnds(input);
    expect(ends.length).toBeGreaterThan(2);
    expect(Buffer.from(gzipDeterministic(input)).equals(Buffer.from(canonicalZlibGzip(input, ends)))).toBe(true);
  });
});

/** About 7 MiB of JSON-like text (several chunks), different for each seed. */
function manyChunks(seed: number): Uint8Array {
  const rows = Array.from({ length: 120_000 }, (_, i) => `{"agent":"a${(i * seed) % 997}","tool":"s${i % 131}::t${(i * 7 + seed) % 1009}","allow":${i % 3 === 0}}`);
  return new TextEncoder().encode(`[${rows.join(',')}]`);
}

describe('chunks', () => {
  it('end where the content says: past the minimum size, never past the maximum, the last at the end of the input', () => {
    const input = manyChunks(3);
    const ends = chunkEnds(input);
    expect(ends.at(-1)).toBe(input.length);
    ends.forEach((end, i) => {
      const size = end - (i === 0 ? 0 : ends[i - 1]!);
      if (i < ends.length - 1) expect(size).toBeGreaterThanOrEqual(CHUNKING.minBytes);
      expect(size).toBeLessThanOrEqual(CHUNKING.maxBytes);
    });
    expect(chunkEnds(new Uint8Array(10))).toEqual([10]);
    expect(chunkEnds(new Uint8Array(0))).toEqual([]);
  });

  it('reused from a previous member give the bytes of compressing afresh, and an edit in the middle deflates only the chunks around it', () => {
    const before = manyChunks(5);
    const first = gzipInChunks(before);
    const at = Math.floor(before.length / 2);
    const insert = new TextEncoder().encode('"edited":1,');
    const after = new Uint8Array(before.length + insert.length);
    after.set(before.subarray(0, at));
    after.set(insert, at);
    after.set(before.subarray(at), at + insert.length);
    const fresh = gzipInChunks(after);
    for (const previous of [{ chunks: first.chunks }, { chunks: first.chunks, input: new ByteSegments([before]) }]) {
      const reused = gzipInChunks(after, previous);
      expect(Buffer.from(reused.bytes).equals(Buffer.from(fresh.bytes))).toBe(true);
      expect(reused.chunks).toEqual(fresh.chunks);
      expect(gunzipSync(reused.bytes).equals(after)).toBe(true);
      // The chunk the insert falls in, and the next, whose dictionary it ends.
      const known = new Set(first.chunks.map((c) => c.deflated));
      expect(reused.chunks.filter((c) => !known.has(c.deflated)).length).toBeLessThanOrEqual(2);
      expect(reused.chunks.length).toBeGreaterThanOrEqual(3);
    }
  });

  it('copied from a previous member, matched by key or byte for byte, give the bytes and chunks of compressing afresh, whatever the edits', () => {
    const base = manyChunks(7).subarray(0, 400_000);
    const edit = fc.record({ at: fc.double({ min: 0, max: 1, noNaN: true }), cut: fc.integer({ min: 0, max: 40_000 }), insert: fc.uint8Array({ maxLength: 3000 }) });
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 4 }), fc.boolean(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 }), (edits, fromEmpty, cuts) => {
        const before = fromEmpty ? new Uint8Array(0) : base;
        let after: Uint8Array = base;
        for (const e of edits) {
          const at = Math.floor(e.at * after.length);
          after = Buffer.concat([after.subarray(0, at), e.insert, after.subarray(Math.min(after.length, at + e.cut))]);
        }
        const first = gzipInChunks(before);
        const fresh = gzipInChunks(after);
        // Held in pieces (as a tar's headers and entries are), the same bytes give the same member.
        const inPieces = (bytes: Uint8Array) => {
          const at = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
          return new ByteSegments([0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length)));
        };
        expect(Buffer.from(gzipInChunks(inPieces(after)).bytes).equals(Buffer.from(fresh.bytes))).toBe(true);
        for (const previous of [{ chunks: first.chunks }, { chunks: first.chunks, input: inPieces(before) }]) {
          const reused = gzipInChunks(inPieces(after), previous);
          expect(Buffer.from(reused.bytes).equals(Buffer.from(fresh.bytes))).toBe(true);
          expect(reused.chunks).toEqual(fresh.chunks);
        }
        expect(gunzipSync(fresh.bytes).equals(after)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});
