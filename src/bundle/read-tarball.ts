/**
 * Reading an untrusted bundle tarball (reference/opa-bundle-format.md §1) into memory the way OPA's
 * tarball loader does (v1/bundle/file.go `tarballLoader`: Go's compress/gzip feeding archive/tar),
 * so that what toolgate reads is what `opa run --bundle` reads, and what OPA refuses is refused.
 *
 * The rules, as Go applies them:
 * - gzip is read as a multi-member stream (Go's default): the tar may continue into a second member.
 *   Errors in the gzip layer (bad trailer CRC or size, a bad next-member header, trailing garbage)
 *   only matter when the tar reader asks for bytes past them. Go's `io.ReadFull` drops an error that
 *   arrives together with the last byte a block needed, so an archive whose end-of-archive marker
 *   ends a member with a bad CRC, or is followed by garbage, still loads.
 * - tar reading stops at the end-of-archive marker (two zero blocks), at a clean end of stream on a
 *   header boundary (with or without the marker, or after one zero block), or when the padding
 *   after the last file is cut short. Anything after the marker is never read. A zero block
 *   followed by a non-zero one, a bad header checksum, a malformed number or PAX record, and file
 *   data cut short are errors.
 * - only regular files (type '0', or the legacy NUL type without a trailing slash) are kept.
 *   Directories, hard and symbolic links, devices, FIFOs, contiguous files ('7'), PAX global
 *   headers and unknown types are skipped; link-like types carry no data even if their header
 *   claims a size. GNU long names ('L') and PAX `path`/`size` records apply to the next entry.
 * - names are kept exactly as written (OPA uses them raw); `TarballFile.name` drops one leading `/`.
 *
 * Deliberate refusals where OPA would load the bundle (each stricter, listed so they stay few):
 * - a regular file whose name has a `..` segment (OPA cleans it away and loads the file elsewhere);
 * - a regular file whose name holds a backslash (OPA on Windows reads it as a separator, on Linux not);
 * - two regular files whose names are equal once cleaned (`/a.rego`, `a.rego`, `./a.rego`): OPA
 *   merges such data files and keeps the last such module, which a reader of the archive cannot see;
 * - GNU sparse files (old 'S' type or PAX `GNU.sparse.*` records), which we do not expand;
 * - limits: compressed size, inflated size actually read, per-file size (OPA: 1 GiB per file),
 *   and number of regular files.
 */
import { refuseArchive } from './archive-fault.ts';
import { cleanPath, safeEntryName } from './entry-names.ts';
import { inflateGo } from './go-gzip.ts';
import { BLOCK, cStringUtf8, GoStream, HEADER_ONLY, parsePax, readHeader, T } from './go-tar-stream.ts';

export { cleanPath, safeEntryName } from './entry-names.ts';

export interface TarballLimits {
  /** Largest accepted compressed size in bytes (default 64 MiB). */
  readonly maxCompressedBytes?: number;
  /** Most inflated bytes the tar reader may consume (default 256 MiB); a gzip bomb stops here. */
  readonly maxTotalBytes?: number;
  /** Largest accepted regular file in bytes (default 64 MiB; OPA allows 1 GiB). */
  readonly maxEntryBytes?: number;
  /** Most regular files accepted (default 10,000). */
  readonly maxEntries?: number;
}

export interface TarballFile {
  /** The entry name with one leading `/` removed, e.g. `toolgate/data.json`, `.manifest`. */
  readonly name: string;
  /** The entry name exactly as the archive holds it (what OPA's loader sees), e.g. `/toolgate/data.json`. */
  readonly entryName?: string;
  readonly bytes: Uint8Array;
}

export const DEFAULT_TARBALL_LIMITS: Required<TarballLimits> = {
  maxCompressedBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntryBytes: 64 * 1024 * 1024,
  maxEntries: 10_000,
};

/** Reads every regular file of a bundle tarball, in archive order, as OPA's loader would. */
export async function readTarball(bytes: Uint8Array, source: string, limitsIn: TarballLimits = {}): Promise<TarballFile[]> {
  const limits: Required<TarballLimits> = { ...DEFAULT_TARBALL_LIMITS, ...limitsIn };
  const st = new GoStream(inflateGo(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), source, limits), source);
  const files: TarballFile[] = [];
  const seen = new Map<string, string>();
  let pad = 0;
  let skip = 0;
  outer: for (;;) {
    let pax: Map<string, string> | undefined;
    let longName: string | undefined;
    for (;;) {
      if (skip > 0 && st.readFull(skip, 'tar entry data') === 'eof') refuseArchive(source, 'tar entry data: unexpected end of archive');
      skip = 0;
      if (pad > 0 && st.tryPad(pad) === 'eof') break outer;
      pad = 0;
      const h = readHeader(st, source);
      if (h === 'eof') break outer;
      let size = HEADER_ONLY.has(h.type) ? 0 : h.size;
      if (size < 0) refuseArchive(source, `invalid tar header (negative size) for ${JSON.stringify(h.name)}`);
      const readBody = (what: string): Buffer => {
        if (size > 1 << 20) refuseArchive(source, `${what} is longer than Go's 1 MiB limit`);
        const b = size === 0 ? Buffer.alloc(0) : st.readFull(size, what);
        if (b === 'eof') refuseArchive(source, `${what}: unexpected end of archive`);
        pad = (BLOCK - (size % BLOCK)) % BLOCK;
        return b;
      };
      if (h.type === T('x') || h.type === T('g')) {
        const recs = parsePax(readBody('PAX header'), source);
        if (h.type === T('x')) pax = recs;
        // A global header is handed to the caller as an entry of its own, which OPA skips.
        if (h.type === T('g')) continue outer;
        continue;
      }
      if (h.type === T('L') || h.type === T('K')) {
        const b = readBody('GNU long name');
        if (h.type === T('L')) longName = cStringUtf8(b);
        continue;
      }
      let name = h.name;
      if (pax) {
        for (const [k, v] of pax) {
          if (v === '') continue;
          if (k === 'path') name = v;
          else if (k === 'size') {
            if (!/^[+-]?[0-9]+$/.test(v)) refuseArchive(source, `invalid tar header (PAX size ${JSON.stringify(v)})`);
            size = HEADER_ONLY.has(h.type) ? 0 : Number(v);
          } else if ((k === 'uid' || k === 'gid') && !/^[+-]?[0-9]+$/.test(v)) refuseArchive(source, `invalid tar header (PAX ${k})`);
          else if ((k === 'mtime' || k === 'atime' || k === 'ctime') && !/^[+-]?[0-9]+(\.[0-9]*)?$/.test(v)) refuseArchive(source, `invalid tar header (PAX ${k})`);
        }
        if (size < 0) refuseArchive(source, `invalid tar header (negative size) for ${JSON.stringify(name)}`);
      }
      if (longName !== undefined && longName !== '') name = longName;
      let type = h.type;
      if (type === 0) type = name.endsWith('/') ? T('5') : T('0');
      if (type === T('S')) refuseArchive(source, `entry ${JSON.stringify(name)}: GNU sparse files are not supported`, name);
      pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (type !== T('0')) {
        skip = size;
        continue outer;
      }
      if (files.length >= limits.maxEntries) refuseArchive(source, `more than ${limits.maxEntries} regular files`);
      if (size > limits.maxEntryBytes) refuseArchive(source, `entry ${JSON.stringify(name)} is ${size} bytes, over the ${limits.maxEntryBytes}-byte limit`, name);
      const short = safeEntryName(name, source);
      const body = size === 0 ? Buffer.alloc(0) : st.readFull(size, `entry ${JSON.stringify(name)}`, true);
      if (body === 'eof') refuseArchive(source, `entry ${JSON.stringify(name)}: unexpected end of archive`, name);
      const key = cleanPath('/' + name);
      const prior = seen.get(key);
      if (prior !== undefined) refuseArchive(source, `entry ${JSON.stringify(name)} duplicates ${JSON.stringify(prior)} (OPA would merge or overwrite them)`, name);
      seen.set(key, name);
      files.push({ name: short, entryName: name, bytes: new Uint8Array(body) });
      continue outer;
    }
  }
  return files;
}
