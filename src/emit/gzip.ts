/**
 * Deterministic gzip (RFC 1952, https://www.rfc-editor.org/rfc/rfc1952): the same input gives the
 * same bytes on every platform and every Node build.
 *
 * Why not node:zlib's deflate: Node links Chromium's zlib fork, whose deflate picks its string hash
 * at run time from the CPU (a CRC32C hash where SSE4.2 or ARMv8 CRC is present, the classic rolling
 * hash otherwise: contrib/optimizations/insert_string.h), and a Node built with `--shared-zlib` uses
 * the system zlib instead; the three give different (all valid) deflate streams for the same input.
 * The gzip header also carries the OS byte from zutil.h's OS_CODE (3 on Unix, 10 on Windows, 19 on
 * macOS). So the deflate stream comes from pako, a pure-JS port of zlib, with the classic zlib hash
 * (`legacyHash`), which reproduces canonical zlib 1.2.x output byte for byte; every parameter that
 * changes the stream is spelled out below, and the header fields are written by us. (The CRC-32 is
 * arithmetic, the same from any implementation, so node:zlib computes it.)
 *
 * Chunks: the input is cut where its content says (a rolling hash of the last 32 bytes, see
 * `chunkEnds`), not at fixed offsets, and each chunk is deflated by a fresh deflater whose preset
 * dictionary is the last 8 KiB of the chunk before it, ending in a sync flush (the last one in the
 * final block), as pigz does with its blocks. So a chunk's compressed bytes depend on that chunk and
 * the one before alone: a recompile whose tarball differs from the previous one in a few places
 * deflates only the chunks at and just after them and copies the rest (`reuse`), and the bytes are
 * those of compressing everything afresh. The dictionary keeps the ratio of one unbroken stream
 * (small independent chunks would cost about a tenth more bytes). An input shorter than the
 * smallest chunk is one chunk, whose stream is exactly what plain zlib gzip writes.
 */
import { crc32 } from 'node:zlib';
import { Deflate, deflateRaw, Z_DEFAULT_STRATEGY, Z_SYNC_FLUSH } from 'pako';
import { digestHex } from '../canonical/digest.ts';

/** The deflate parameters, pinned: each one changes the compressed bytes. */
export const GZIP_PARAMETERS = {
  /** zlib's default level: a third of level 9's time on large data documents, a few percent larger. */
  level: 6,
  /** 32 KiB window (zlib's maximum and default). */
  windowBits: 15,
  /** zlib's default hash/buffer memory. */
  memLevel: 8,
  strategy: Z_DEFAULT_STRATEGY,
  /** The classic zlib rolling hash, so the stream equals canonical zlib's, not one build's. */
  legacyHash: true,
} as const;

/** Where chunks may end and what they start from, pinned like the deflate parameters: each one changes the bytes. */
export const CHUNKING = {
  /** No chunk is shorter (but the last), and none is shorter than the dictionary the next one takes from it. */
  minBytes: 16 * 1024,
  /** Past the minimum, a chunk ends where the rolling hash's top 14 bits are all zero (16 KiB apart on average). */
  mask: 0xfffc0000 | 0,
  /** No chunk is longer: an edit deflates again only the chunks at and after it, half a millisecond each. */
  maxBytes: 48 * 1024,
  /** Each chunk but the first is deflated with this much of the end of the chunk before as its preset dictionary. */
  dictionaryBytes: 8 * 1024,
} as const;

/**
 * The pinned member header: ID1 ID2 CM=8 (deflate), FLG=0 (no name, comment, extra or header CRC),
 * MTIME=0 (no timestamp: the archive's own entries carry the time), XFL=0 (what zlib writes for
 * level 6), OS=3 (Unix, what Node on Linux always wrote, so earlier bundles keep their digests).
 */
export const GZIP_HEADER: readonly number[] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03];

/** One chunk of a gzip member: its key (what its stream is made of, see `chunkRanges`) and its deflated bytes. */
export interface DeflatedChunk {
  readonly digest: string;
  readonly deflated: Uint8Array;
}

/** A fixed table of 256 pseudo-random 32-bit words for the rolling hash (xorshift32 from a constant seed). */
const GEAR = (() => {
  const table = new Int32Array(256);
  let x = 0x9e3779b9 | 0;
  for (let i = 0; i < 256; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    table[i] = x;
  }
  return table;
})();

/** The end offset of every chunk of `bytes`, in order (the last is `bytes.length`; none for empty input). */
export function chunkEnds(bytes: Uint8Array): number[] {
  const { minBytes, maxBytes, mask } = CHUNKING;
  const ends: number[] = [];
  let start = 0;
  while (start < bytes.length) {
    const limit = Math.min(bytes.length, start + maxBytes);
    // The hash shifts one bit per byte, so only the last 32 bytes decide a boundary: it starts 32
    // bytes before the minimum size, and the first place a chunk may end is the minimum itself.
    const end = boundaryAfter(bytes, start + minBytes - 32, start + minBytes - 1, limit, mask);
    ends.push(end);
    start = end;
  }
  return ends;
}

/**
 * The first end in `[first + 1, limit]` where the rolling hash's top bits (`mask`) are all zero,
 * hashing from `from`; `limit` if none. The top bits are tested because they mix all 32 bytes
 * (the low bits see only the last few). A function of its own: a small loop is compiled sooner.
 */
function boundaryAfter(bytes: Uint8Array, from: number, first: number, limit: number, mask: number): number {
  let h = 0;
  const warm = Math.min(first, limit);
  for (let i = from; i < warm; i++) h = ((h << 1) + GEAR[bytes[i]!]!) | 0;
  for (let i = first; i < limit; i++) {
    h = ((h << 1) + GEAR[bytes[i]!]!) | 0;
    if ((h & mask) === 0) return i + 1;
  }
  return limit;
}

function concat(parts: readonly Uint8Array[], total = parts.reduce((n, p) => n + p.length, 0)): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

/**
 * A chunk's raw deflate stream, primed with `dictionary` (none for the first chunk): sync-flushed
 * (byte-aligned, not final) unless it is the last.
 */
function deflateChunk(chunk: Uint8Array, dictionary: Uint8Array | undefined, last: boolean): Uint8Array {
  const options = dictionary === undefined ? { ...GZIP_PARAMETERS } : { ...GZIP_PARAMETERS, dictionary };
  if (last) return deflateRaw(chunk, options);
  const d = new Deflate({ ...options, raw: true });
  d.push(chunk, Z_SYNC_FLUSH);
  return concat(d.chunks);
}

/** One chunk of the input: its byte range, whether it ends the member, and its digest key. */
interface ChunkRange {
  readonly start: number;
  readonly end: number;
  readonly last: boolean;
  readonly digest: string;
}

/**
 * The chunks of `bytes` (see `chunkEnds`), each keyed by what its stream is made of: the SHA-256 of
 * its bytes and of the chunk before (whose end is its dictionary), and whether it is the last,
 * whose stream ends differently.
 */
function chunkRanges(bytes: Uint8Array): ChunkRange[] {
  const ends = chunkEnds(bytes);
  let before = '';
  return ends.map((end, i) => {
    const start = i === 0 ? 0 : ends[i - 1]!;
    const last = i === ends.length - 1;
    const own = digestHex(bytes.subarray(start, end));
    const digest = `${own}${i === 0 ? '' : `<${before}`}${last ? '.last' : ''}`;
    before = own;
    return { start, end, last, digest };
  });
}

/** The preset dictionary of the chunk starting at `start`: the end of the chunk before, none for the first. */
function dictionaryBefore(bytes: Uint8Array, start: number): Uint8Array | undefined {
  return start === 0 ? undefined : bytes.subarray(Math.max(0, start - CHUNKING.dictionaryBytes), start);
}

/** The gzip member of `bytes` from the deflated stream of each of its chunks (`chunkRanges`, in order). */
function gzipMember(bytes: Uint8Array, ranges: readonly ChunkRange[], deflated: readonly Uint8Array[]): { bytes: Uint8Array; chunks: DeflatedChunk[] } {
  const chunks = ranges.map((r, i) => ({ digest: r.digest, deflated: deflated[i]! }));
  // Empty input: the empty final block, as zlib writes it.
  const body = chunks.length === 0 ? [deflateRaw(bytes, { ...GZIP_PARAMETERS })] : deflated;
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc32(bytes) >>> 0, true);
  view.setUint32(4, bytes.length >>> 0, true);
  // The header is written here rather than trusted from the library: these ten bytes are part of
  // the bundle's digest. FLG is 0, so no optional field follows and the CRC does not cover them.
  return { bytes: concat([Uint8Array.from(GZIP_HEADER), ...body, trailer]), chunks };
}

/**
 * One gzip member holding `bytes`, byte-identical wherever it runs, with its chunks; a chunk whose
 * key `reuse` holds is copied from there instead of deflated again (see `chunkRanges`).
 *
 * @example
 * const first = gzipInChunks(tarBytes);
 * const next = gzipInChunks(editedTarBytes, chunkIndex(first.chunks)); // deflates only what changed
 */
export function gzipInChunks(bytes: Uint8Array, reuse?: ReadonlyMap<string, Uint8Array>): { bytes: Uint8Array; chunks: DeflatedChunk[] } {
  const ranges = chunkRanges(bytes);
  return gzipMember(bytes, ranges, ranges.map((r) => reuse?.get(r.digest) ?? deflateChunk(bytes.subarray(r.start, r.end), dictionaryBefore(bytes, r.start), r.last)));
}

/** The chunks by digest, as `gzipInChunks` takes them for reuse. */
export function chunkIndex(chunks: readonly DeflatedChunk[]): Map<string, Uint8Array> {
  return new Map(chunks.map((c) => [c.digest, c.deflated]));
}

/**
 * One gzip member holding `bytes`, byte-identical wherever it runs.
 *
 * @example
 * const a = gzipDeterministic(new TextEncoder().encode('hello'));
 * // a[9] === 3 whatever process.platform says
 */
export function gzipDeterministic(bytes: Uint8Array): Uint8Array {
  return gzipInChunks(bytes).bytes;
}
