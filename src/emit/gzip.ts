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
 * `chunkEnds`), not at fixed offsets, and each chunk is deflated as by a fresh deflater
 * (./raw-deflater.ts) whose preset dictionary is the last 8 KiB of the chunk before it, ending in a
 * sync flush (the last one in the final block), as pigz does with its blocks. So a chunk's compressed bytes depend on that chunk and
 * the one before alone: a recompile whose tarball differs from the previous one in a few places
 * deflates only the chunks at and just after them and copies the rest (`reuse`), and the bytes are
 * those of compressing everything afresh. The dictionary keeps the ratio of one unbroken stream
 * (small independent chunks would cost about a tenth more bytes). An input shorter than the
 * smallest chunk is one chunk, whose stream is exactly what plain zlib gzip writes.
 */
import { crc32 } from 'node:zlib';
import { deflateRaw, Z_DEFAULT_STRATEGY } from 'pako';
import { digestHex } from '../canonical/digest.ts';
import { ByteSegments } from '../canonical/byte-segments.ts';
import { crc32Combine } from './crc32-combine.ts';
import { RawDeflater } from './raw-deflater.ts';

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

/** One chunk of a gzip member. */
export interface DeflatedChunk {
  /** What its stream is made of (see `chunkKey`): chunks with equal keys have equal streams. */
  readonly digest: string;
  readonly deflated: Uint8Array;
  /** Its input's length and CRC-32, from which the member's trailer is made. */
  readonly length: number;
  readonly crc: number;
}

/**
 * A member made before, for the next one to copy chunks from: its chunks, and the input they hold
 * when it is still at hand (a watch keeps it between saves), so that a chunk can be matched by
 * comparing bytes instead of hashing every chunk of the new input.
 */
export interface PreviousMember {
  readonly chunks: readonly DeflatedChunk[];
  readonly input?: ByteSegments;
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
export function chunkEnds(bytes: Uint8Array | ByteSegments): number[] {
  const input = segmentsOf(bytes);
  const ends: number[] = [];
  for (let start = 0; start < input.length; start = ends[ends.length - 1]!) ends.push(chunkEnd(input, start));
  return ends;
}

/** The end of the chunk of `input` that starts at `start`. */
function chunkEnd(input: ByteSegments, start: number): number {
  const { minBytes, maxBytes, mask } = CHUNKING;
  const window = input.slice(start, Math.min(input.length, start + maxBytes));
  // The hash shifts one bit per byte, so only the last 32 bytes decide a boundary: it starts 32
  // bytes before the minimum size, and the first place a chunk may end is the minimum itself.
  return start + boundaryAfter(window, minBytes - 32, minBytes - 1, window.length, mask);
}

const segmentsOf = (bytes: Uint8Array | ByteSegments): ByteSegments => (bytes instanceof ByteSegments ? bytes : new ByteSegments([bytes]));

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
  return (deflater ??= new RawDeflater(GZIP_PARAMETERS)).deflate(chunk, dictionary, last);
}

/** The one deflate state every chunk of this process is deflated with (made on first use). */
let deflater: RawDeflater | undefined;

/**
 * A chunk's key: the SHA-256 (hex) of its bytes and of the chunk before it (whose end is its
 * dictionary; none for the first), and whether it is the last, whose stream ends differently.
 */
function chunkKey(own: string, before: string | undefined, last: boolean): string {
  return `${own}${before === undefined ? '' : `<${before}`}${last ? '.last' : ''}`;
}

/** The SHA-256 (hex) of a chunk's own bytes: the start of its key. */
const ownDigest = (chunk: DeflatedChunk): string => chunk.digest.slice(0, 64);

/** The preset dictionary of the chunk starting at `start`: the end of the chunk before, none for the first. */
function dictionaryBefore(input: ByteSegments, start: number): Uint8Array | undefined {
  return start === 0 ? undefined : input.slice(Math.max(0, start - CHUNKING.dictionaryBytes), start);
}

/** The chunk of `input` in [start, end), deflated afresh (`own`: the SHA-256 of its bytes, when known). */
function freshChunk(input: ByteSegments, start: number, end: number, before: string | undefined, own?: string): DeflatedChunk {
  const bytes = input.slice(start, end);
  const last = end === input.length;
  return { digest: chunkKey(own ?? digestHex(bytes), before, last), deflated: deflateChunk(bytes, dictionaryBefore(input, start), last), length: bytes.length, crc: crc32(bytes) >>> 0 };
}

/** A chunk of an earlier member whose stream this member repeats, under the key it has here. */
function reusedChunk(chunk: DeflatedChunk, before: string | undefined, last: boolean): DeflatedChunk {
  return { ...chunk, digest: chunkKey(ownDigest(chunk), before, last) };
}

/** The chunks of `input`, each copied from `reuse` when its key is there, else deflated. */
function keyedChunks(input: ByteSegments, reuse: ReadonlyMap<string, DeflatedChunk>): DeflatedChunk[] {
  const chunks: DeflatedChunk[] = [];
  let start = 0;
  for (const end of chunkEnds(input)) {
    const before = chunks.length === 0 ? undefined : ownDigest(chunks[chunks.length - 1]!);
    const own = digestHex(input.slice(start, end));
    chunks.push(reuse.get(chunkKey(own, before, end === input.length)) ?? freshChunk(input, start, end, before, own));
    start = end;
  }
  return chunks;
}

/**
 * The chunks of `bytes`, matched against the previous member's input byte for byte: a previous chunk
 * whose bytes and dictionary recur at the place a chunk of `bytes` starts is that chunk (chunking
 * decides an end from the chunk's own bytes alone), copied without hashing or deflating; elsewhere
 * chunks are cut and deflated afresh until a new chunk's end falls where a previous chunk began
 * with the same bytes. What comes out equals `keyedChunks` (test/unit/emit/gzip.test.ts).
 */
function alignedChunks(now: ByteSegments, previous: Required<PreviousMember>): DeflatedChunk[] {
  const then = previous.input;
  const old = previous.chunks;
  const starts: number[] = [];
  for (let i = 0, at = 0; i < old.length; at += old[i]!.length, i++) starts.push(at);
  // Where a previous chunk began, by its opening bytes: a cut landing on one may line up again.
  const opening = (bytes: ByteSegments, at: number) => Buffer.from(bytes.slice(at, Math.min(bytes.length, at + 16))).toString('latin1');
  const byOpening = new Map<string, number[]>();
  old.forEach((_, i) => {
    const key = opening(then, starts[i]!);
    const list = byOpening.get(key);
    if (list === undefined) byOpening.set(key, [i]);
    else list.push(i);
  });
  const repeats = (i: number, at: number): boolean => {
    const from = starts[i]!;
    const length = old[i]!.length;
    const dictionary = Math.min(CHUNKING.dictionaryBytes, at);
    return (
      at + length <= now.length &&
      (i === old.length - 1) === (at + length === now.length) &&
      Math.min(CHUNKING.dictionaryBytes, from) === dictionary &&
      now.equalRange(at - dictionary, then, from - dictionary, dictionary + length)
    );
  };
  const chunks: DeflatedChunk[] = [];
  let next = 0;
  for (let at = 0; at < now.length; ) {
    const before = chunks.length === 0 ? undefined : ownDigest(chunks[chunks.length - 1]!);
    const match = next < old.length && repeats(next, at) ? next : (byOpening.get(opening(now, at)) ?? []).find((i) => repeats(i, at));
    if (match !== undefined) {
      chunks.push(reusedChunk(old[match]!, before, at + old[match]!.length === now.length));
      next = match + 1;
    } else {
      chunks.push(freshChunk(now, at, chunkEnd(now, at), before));
      next = old.length;
    }
    at += chunks[chunks.length - 1]!.length;
  }
  return chunks;
}

/** The gzip member of `total` input bytes made of `chunks`, in order. */
function gzipMember(total: number, chunks: readonly DeflatedChunk[]): Uint8Array {
  // Empty input: the empty final block, as zlib writes it.
  const body = chunks.length === 0 ? [deflateRaw(new Uint8Array(0), { ...GZIP_PARAMETERS })] : chunks.map((c) => c.deflated);
  let crc = 0; // the CRC-32 of no bytes
  for (const c of chunks) crc = crc32Combine(crc, c.crc, c.length);
  const trailer = new Uint8Array(8);
  const view = new DataView(trailer.buffer);
  view.setUint32(0, crc, true);
  view.setUint32(4, total >>> 0, true);
  // The header is written here rather than trusted from the library: these ten bytes are part of
  // the bundle's digest. FLG is 0, so no optional field follows and the CRC does not cover them.
  return concat([Uint8Array.from(GZIP_HEADER), ...body, trailer]);
}

/**
 * One gzip member holding `bytes`, byte-identical wherever it runs, with its chunks; a chunk
 * `previous` has (same key, see `chunkKey`) is copied from there instead of deflated again.
 *
 * @example
 * const first = gzipInChunks(tarBytes);
 * const next = gzipInChunks(editedTarBytes, { chunks: first.chunks, input: tarBytes }); // deflates only what changed
 */
export function gzipInChunks(bytes: Uint8Array | ByteSegments, previous?: PreviousMember): { bytes: Uint8Array; chunks: DeflatedChunk[] } {
  const input = segmentsOf(bytes);
  const chunks =
    previous?.input !== undefined && previous.chunks.length > 0
      ? alignedChunks(input, previous as Required<PreviousMember>)
      : keyedChunks(input, new Map((previous?.chunks ?? []).map((c) => [c.digest, c])));
  return { bytes: gzipMember(input.length, chunks), chunks };
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
