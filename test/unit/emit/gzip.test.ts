/** The deterministic gzip: pinned header, round trip, and canonical zlib's own bytes. */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { GZIP_HEADER, gzipDeterministic } from '../../../src/emit/gzip.ts';

const realPlatform = Object.getOwnPropertyDescriptor(process, 'platform')!;
const asPlatform = (p: string) => Object.defineProperty(process, 'platform', { ...realPlatform, value: p });

const python = spawnSync('python3', ['-c', 'import zlib'], { encoding: 'utf8' }).status === 0;

/** gzip by the system zlib python3 links (wbits 31 = gzip wrapper, level 6, memLevel 8, default strategy). */
function canonicalZlibGzip(bytes: Uint8Array): Uint8Array {
  const script = 'import sys,zlib\nc=zlib.compressobj(6,zlib.DEFLATED,31,8,zlib.Z_DEFAULT_STRATEGY)\nsys.stdout.buffer.write(c.compress(sys.stdin.buffer.read())+c.flush())';
  const r = spawnSync('python3', ['-c', script], { input: bytes, maxBuffer: 1 << 26 });
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
    for (const input of inputs) expect(Buffer.from(gzipDeterministic(input)).equals(Buffer.from(canonicalZlibGzip(input)))).toBe(true);
  });
});
