/**
 * Deterministic gzip (RFC 1952, https://www.rfc-editor.org/rfc/rfc1952): the same input gives the
 * same bytes on every platform and every Node build.
 *
 * Why not node:zlib: Node links Chromium's zlib fork, whose deflate picks its string hash at run
 * time from the CPU (a CRC32C hash where SSE4.2 or ARMv8 CRC is present, the classic rolling hash
 * otherwise: contrib/optimizations/insert_string.h), and a Node built with `--shared-zlib` uses the
 * system zlib instead; the three give different (all valid) deflate streams for the same input. The
 * gzip header also carries the OS byte from zutil.h's OS_CODE (3 on Unix, 10 on Windows, 19 on
 * macOS). So the deflate stream comes from pako, a pure-JS port of zlib, with the classic zlib hash
 * (`legacyHash`), which reproduces canonical zlib 1.2.x output byte for byte; every parameter that
 * changes the stream is spelled out below, and the header fields are written by us.
 */
import { gzip as pakoGzip, Z_DEFAULT_STRATEGY } from 'pako';

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

/**
 * The pinned member header: ID1 ID2 CM=8 (deflate), FLG=0 (no name, comment, extra or header CRC),
 * MTIME=0 (no timestamp: the archive's own entries carry the time), XFL=0 (what zlib writes for
 * level 6), OS=3 (Unix, what Node on Linux always wrote, so earlier bundles keep their digests).
 */
export const GZIP_HEADER: readonly number[] = [0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03];

/**
 * One gzip member holding `bytes`, byte-identical wherever it runs.
 *
 * @example
 * const a = gzipDeterministic(new TextEncoder().encode('hello'));
 * // a[9] === 3 whatever process.platform says
 */
export function gzipDeterministic(bytes: Uint8Array): Uint8Array {
  const out = pakoGzip(bytes, { ...GZIP_PARAMETERS });
  // The header is written here rather than trusted from the library: these ten bytes are part of
  // the bundle's digest. FLG is 0, so no optional field follows and the CRC does not cover them.
  out.set(GZIP_HEADER, 0);
  return out;
}
