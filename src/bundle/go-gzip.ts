/**
 * gzip, as Go's compress/gzip Reader with multistream on: the inflated bytes, then a clean end or
 * the error Go would raise. The common case (one member, nothing after it, a stream the strict
 * inflate of gzip-wasm.ts reads) loads no node:zlib; every other case is read with zlib, as before.
 */
import { crc32, nodeZlib as zlib, strictInflate } from './gzip-wasm.ts';
import { refuseArchive } from './archive-fault.ts';
import type { TarballLimits } from './read-tarball.ts';

/** The inflated stream: `bytes`, then either a clean end (`error` undefined) or `error`. */
export interface Inflated {
  readonly bytes: Buffer;
  readonly error?: string;
}

function inflateMember(body: Buffer, budget: number): { out: Buffer; used: number; error?: string } {
  // Whole member in one go; on a corrupt stream or over the budget, the longest good prefix.
  try {
    const r = zlib().inflateRawSync(body, { info: true, maxOutputLength: Math.max(1, budget) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { out: r.buffer, used: r.engine.bytesWritten };
  } catch (e) {
    const overBudget = (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError;
    let lo = 0;
    let hi = body.length;
    let best = Buffer.alloc(0);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        const part = zlib().inflateRawSync(body.subarray(0, mid), { finishFlush: zlib().constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, budget) });
        best = part;
        lo = mid;
      } catch {
        hi = mid - 1;
      }
    }
    return { out: best, used: body.length, error: overBudget ? `inflates beyond the ${budget}-byte limit (gzip bomb?)` : `gzip stream is corrupt: ${(e as Error).message}` };
  }
}

/** Parses one gzip member header at `at`; returns the offset of the deflate data or an error. */
function gzipHeader(b: Buffer, at: number): { data: number } | { error: string } {
  if (b.length - at < 10) return { error: 'gzip: unexpected end of header' };
  if (b[at] !== 0x1f || b[at + 1] !== 0x8b || b[at + 2] !== 8) return { error: 'gzip: invalid header' };
  const flg = b[at + 3]!;
  let p = at + 10;
  if (flg & 4) {
    if (p + 2 > b.length) return { error: 'gzip: unexpected end of header' };
    p += 2 + b.readUInt16LE(p);
    if (p > b.length) return { error: 'gzip: unexpected end of header' };
  }
  for (const bit of [8, 16]) {
    if (flg & bit) {
      // Go reads these NUL-terminated strings into a 512-byte buffer.
      const end = b.indexOf(0, p);
      if (end < 0) return { error: 'gzip: unexpected end of header' };
      if (end - p >= 512) return { error: 'gzip: invalid header (name or comment too long)' };
      p = end + 1;
    }
  }
  if (flg & 2) {
    if (p + 2 > b.length) return { error: 'gzip: unexpected end of header' };
    if (b.readUInt16LE(p) !== (crc32(b.subarray(at, p)) & 0xffff)) return { error: 'gzip: invalid header (header CRC)' };
    p += 2;
  }
  return { data: p };
}

/**
 * A gzip of one member and nothing after it, whose trailer matches, inflated by the strict inflate:
 * what the general reading below gives for it. Undefined for anything else (it reads it then).
 */
function oneMember(bytes: Buffer, data: number, limits: Required<TarballLimits>): Inflated | undefined {
  if (bytes.length - data < 8) return undefined;
  const size = bytes.readUInt32LE(bytes.length - 4);
  if (size > limits.maxTotalBytes) return undefined;
  const r = strictInflate(bytes.subarray(data, bytes.length - 8), size);
  if (r === undefined || data + r.used !== bytes.length - 8 || crc32(r.bytes) !== bytes.readUInt32LE(bytes.length - 8)) return undefined;
  return { bytes: r.bytes };
}

export function inflateGo(bytes: Buffer, source: string, limits: Required<TarballLimits>): Inflated {
  if (bytes.length > limits.maxCompressedBytes) refuseArchive(source, `${bytes.length} bytes exceeds the ${limits.maxCompressedBytes}-byte limit for a bundle`);
  const first = gzipHeader(bytes, 0);
  // gzip.NewReader reads the first header at once: OPA refuses a plain tar or an empty file here.
  if ('error' in first) refuseArchive(source, `not a gzip-compressed tarball (${first.error}); OPA refuses it too`);
  const simple = oneMember(bytes, first.data, limits);
  if (simple) return simple;
  const outs: Buffer[] = [];
  let total = 0;
  let at = 0;
  let data = first.data;
  for (;;) {
    const m = inflateMember(bytes.subarray(data), limits.maxTotalBytes - total);
    outs.push(m.out);
    total += m.out.length;
    if (m.error) return { bytes: Buffer.concat(outs), error: m.error };
    const trailer = data + m.used;
    if (bytes.length - trailer < 8) return { bytes: Buffer.concat(outs), error: 'gzip: unexpected end of member trailer' };
    const member = m.out;
    if (bytes.readUInt32LE(trailer) !== crc32(member) || bytes.readUInt32LE(trailer + 4) !== (member.length >>> 0)) {
      return { bytes: Buffer.concat(outs), error: 'gzip: invalid checksum' };
    }
    at = trailer + 8;
    if (at === bytes.length) return { bytes: Buffer.concat(outs) };
    const h = gzipHeader(bytes, at);
    if ('error' in h) return { bytes: Buffer.concat(outs), error: h.error };
    data = h.data;
  }
}
