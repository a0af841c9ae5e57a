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
import * as zlib from 'node:zlib';
import { constants as zc, inflateRawSync } from 'node:zlib';
import { ToolgateError } from '../errors.ts';

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

function refuse(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_INVALID', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}

/** Go's path.Clean, for names without `..` segments. */
export function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  const out = (rooted ? '/' : '') + segs.join('/');
  return out === '' ? '.' : out;
}

/**
 * The name OPA would see, checked against toolgate's deliberate refusals; returns it with one
 * leading `/` removed. Exported for tests.
 *
 * @example safeEntryName('/toolgate/data.json', 'b.tar.gz') // 'toolgate/data.json'
 */
export function safeEntryName(raw: string, source: string): string {
  const shown = JSON.stringify(raw);
  if (raw.includes('\\')) refuse(source, `entry ${shown}: name contains a backslash (read as a separator on Windows)`, raw);
  if (raw.split('/').includes('..')) refuse(source, `entry ${shown}: name has a ".." segment (path traversal)`, raw);
  const name = raw.startsWith('/') ? raw.slice(1) : raw;
  if (cleanPath('/' + raw) === '/') refuse(source, `entry ${shown}: a regular file needs a name`, raw);
  return name;
}

// ---------------------------------------------------------------------------------------------
// gzip, as Go's compress/gzip Reader with multistream on.

/** The inflated stream: `bytes`, then either a clean end (`error` undefined) or `error`. */
interface Inflated {
  readonly bytes: Buffer;
  readonly error?: string;
}

function inflateMember(body: Buffer, budget: number): { out: Buffer; used: number; error?: string } {
  // Whole member in one go; on a corrupt stream or over the budget, the longest good prefix.
  try {
    const r = inflateRawSync(body, { info: true, maxOutputLength: Math.max(1, budget) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    return { out: r.buffer, used: r.engine.bytesWritten };
  } catch (e) {
    const overBudget = (e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError;
    let lo = 0;
    let hi = body.length;
    let best = Buffer.alloc(0);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      try {
        const part = inflateRawSync(body.subarray(0, mid), { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, budget) });
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

let crcTable: Uint32Array | undefined;
const nodeCrc32 = (zlib as { crc32?: (b: Uint8Array) => number }).crc32;
function crc32(b: Uint8Array): number {
  if (nodeCrc32) return nodeCrc32(b) >>> 0;
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = crcTable[(c ^ b[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function inflateGo(bytes: Buffer, source: string, limits: Required<TarballLimits>): Inflated {
  if (bytes.length > limits.maxCompressedBytes) refuse(source, `${bytes.length} bytes exceeds the ${limits.maxCompressedBytes}-byte limit for a bundle`);
  const first = gzipHeader(bytes, 0);
  // gzip.NewReader reads the first header at once: OPA refuses a plain tar or an empty file here.
  if ('error' in first) refuse(source, `not a gzip-compressed tarball (${first.error}); OPA refuses it too`);
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

// ---------------------------------------------------------------------------------------------
// tar, as Go's archive/tar Reader.

const BLOCK = 512;

class GoStream {
  pos = 0;
  constructor(private readonly s: Inflated, private readonly source: string) {}
  /** io.ReadFull of n bytes: the bytes, 'eof' when none were left, or a refusal. */
  readFull(n: number, what: string, strict = false): Buffer | 'eof' {
    const avail = this.s.bytes.length - this.pos;
    // io.Copy of file data, unlike io.ReadFull, keeps an error that comes with the last bytes.
    if (strict && avail === n && this.s.error !== undefined) refuse(this.source, `${what}: ${this.s.error}`);
    if (avail >= n) {
      const b = this.s.bytes.subarray(this.pos, this.pos + n);
      this.pos += n;
      return b;
    }
    if (this.s.error !== undefined) refuse(this.source, `${what}: ${this.s.error}`);
    if (avail === 0) return 'eof';
    refuse(this.source, `${what}: unexpected end of archive`);
  }
  /** Go's tryReadFull for padding: a short read at the end of the stream is an end of archive. */
  tryPad(n: number): 'ok' | 'eof' {
    const avail = this.s.bytes.length - this.pos;
    if (avail >= n) {
      this.pos += n;
      return 'ok';
    }
    if (this.s.error !== undefined) refuse(this.source, `tar padding: ${this.s.error}`);
    this.pos += avail;
    return 'eof';
  }
}

function cString(b: Buffer): string {
  const z = b.indexOf(0);
  return (z < 0 ? b : b.subarray(0, z)).toString('latin1');
}

/** Header text fields are bytes; Go keeps them as byte strings, so decode names as UTF-8. */
function cStringUtf8(b: Buffer): string {
  const z = b.indexOf(0);
  return (z < 0 ? b : b.subarray(0, z)).toString('utf8');
}

/** Go's parseNumeric: base-256 when the top bit is set, else octal trimmed of spaces and NULs. */
function parseNumeric(b: Buffer): number | undefined {
  if (b.length > 0 && b[0]! & 0x80) {
    const neg = (b[0]! & 0x40) !== 0;
    let x = 0n;
    for (let i = 0; i < b.length; i++) {
      let c = b[i]!;
      if (neg) c ^= 0xff;
      if (i === 0) c &= 0x7f;
      if (x >> 56n > 0n) return undefined;
      x = (x << 8n) | BigInt(c);
    }
    if (x >> 63n > 0n) return undefined;
    return neg ? -Number(x) - 1 : Number(x);
  }
  let s = b.toString('latin1').replace(/^[ \0]+|[ \0]+$/g, '');
  if (s === '') return 0;
  const z = s.indexOf('\0');
  if (z >= 0) s = s.slice(0, z);
  if (!/^[0-7]+$/.test(s)) return undefined;
  return Number.parseInt(s, 8);
}

interface RawHeader {
  type: number;
  name: string;
  size: number;
}

function readHeader(st: GoStream, source: string): RawHeader | 'eof' {
  const blk = st.readFull(BLOCK, 'tar header');
  if (blk === 'eof') return 'eof';
  if (isZero(blk)) {
    const second = st.readFull(BLOCK, 'tar header');
    if (second === 'eof' || isZero(second)) return 'eof';
    refuse(source, 'invalid tar header (a zero block followed by a non-zero block)');
  }
  const sum = parseNumeric(blk.subarray(148, 156));
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const c = i >= 148 && i < 156 ? 0x20 : blk[i]!;
    unsigned += c;
    signed += c > 127 ? c - 256 : c;
  }
  if (sum === undefined || (sum !== unsigned && sum !== signed)) refuse(source, `invalid tar header (bad checksum) at offset ${st.pos - BLOCK}`);
  const magic = blk.subarray(257, 263).toString('latin1');
  const version = blk.subarray(263, 265).toString('latin1');
  const ustar = magic === 'ustar\0';
  const gnu = magic === 'ustar ' && version === ' \0';
  const star = ustar && blk.subarray(508, 512).toString('latin1') === 'tar\0';
  let name = cStringUtf8(blk.subarray(0, 100));
  const nums = [blk.subarray(124, 136), blk.subarray(100, 108), blk.subarray(108, 116), blk.subarray(116, 124), blk.subarray(136, 148)];
  if (ustar || gnu) nums.push(blk.subarray(329, 337), blk.subarray(337, 345));
  const parsed = nums.map(parseNumeric);
  if (parsed.some((n) => n === undefined)) refuse(source, `invalid tar header (malformed number) for ${JSON.stringify(name)}`);
  if (ustar && !star) {
    const prefix = cStringUtf8(blk.subarray(345, 500));
    if (prefix.length > 0) name = `${prefix}/${name}`;
  } else if (star) {
    const prefix = cStringUtf8(blk.subarray(345, 476));
    if (prefix.length > 0) name = `${prefix}/${name}`;
  } else if (gnu) {
    // Go parses the GNU atime/ctime fields too; if they do not parse it falls back to a USTAR prefix.
    const at = blk[345] !== 0 ? parseNumeric(blk.subarray(345, 357)) : 0;
    const ct = blk[357] !== 0 ? parseNumeric(blk.subarray(357, 369)) : 0;
    if (at === undefined || ct === undefined) {
      const prefix = cString(blk.subarray(345, 500));
      if (prefix.length > 0 && /^[\x00-\x7f]*$/.test(prefix)) name = `${prefix}/${name}`;
    }
  }
  return { type: blk[156]!, name, size: parsed[0]! };
}

function isZero(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

const T = (c: string) => c.charCodeAt(0);
const HEADER_ONLY = new Set([T('1'), T('2'), T('3'), T('4'), T('5'), T('6')]);

function parsePax(body: Buffer, source: string): Map<string, string> {
  const recs = new Map<string, string>();
  let s = body.toString('latin1');
  while (s.length > 0) {
    const sp = s.indexOf(' ');
    const n = sp > 0 && /^[0-9]+$/.test(s.slice(0, sp)) ? Number(s.slice(0, sp)) : -1;
    if (n < 5 || n > s.length || n <= sp + 1 || s[n - 1] !== '\n') refuse(source, 'invalid tar header (malformed PAX record)');
    const rec = s.slice(sp + 1, n - 1);
    const eq = rec.indexOf('=');
    if (eq < 0) refuse(source, 'invalid tar header (malformed PAX record)');
    const k = Buffer.from(rec.slice(0, eq), 'latin1').toString('utf8');
    const v = Buffer.from(rec.slice(eq + 1), 'latin1').toString('utf8');
    if (k === '' || k.includes('\0') || ((k === 'path' || k === 'linkpath') && v.includes('\0'))) refuse(source, 'invalid tar header (malformed PAX record)');
    if (k.startsWith('GNU.sparse.')) refuse(source, 'GNU sparse files are not supported');
    recs.set(k, v);
    s = s.slice(n);
  }
  return recs;
}

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
      if (skip > 0 && st.readFull(skip, 'tar entry data') === 'eof') refuse(source, 'tar entry data: unexpected end of archive');
      skip = 0;
      if (pad > 0 && st.tryPad(pad) === 'eof') break outer;
      pad = 0;
      const h = readHeader(st, source);
      if (h === 'eof') break outer;
      let size = HEADER_ONLY.has(h.type) ? 0 : h.size;
      if (size < 0) refuse(source, `invalid tar header (negative size) for ${JSON.stringify(h.name)}`);
      const readBody = (what: string): Buffer => {
        if (size > 1 << 20) refuse(source, `${what} is longer than Go's 1 MiB limit`);
        const b = size === 0 ? Buffer.alloc(0) : st.readFull(size, what);
        if (b === 'eof') refuse(source, `${what}: unexpected end of archive`);
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
            if (!/^[+-]?[0-9]+$/.test(v)) refuse(source, `invalid tar header (PAX size ${JSON.stringify(v)})`);
            size = HEADER_ONLY.has(h.type) ? 0 : Number(v);
          } else if ((k === 'uid' || k === 'gid') && !/^[+-]?[0-9]+$/.test(v)) refuse(source, `invalid tar header (PAX ${k})`);
          else if ((k === 'mtime' || k === 'atime' || k === 'ctime') && !/^[+-]?[0-9]+(\.[0-9]*)?$/.test(v)) refuse(source, `invalid tar header (PAX ${k})`);
        }
        if (size < 0) refuse(source, `invalid tar header (negative size) for ${JSON.stringify(name)}`);
      }
      if (longName !== undefined && longName !== '') name = longName;
      let type = h.type;
      if (type === 0) type = name.endsWith('/') ? T('5') : T('0');
      if (type === T('S')) refuse(source, `entry ${JSON.stringify(name)}: GNU sparse files are not supported`, name);
      pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (type !== T('0')) {
        skip = size;
        continue outer;
      }
      if (files.length >= limits.maxEntries) refuse(source, `more than ${limits.maxEntries} regular files`);
      if (size > limits.maxEntryBytes) refuse(source, `entry ${JSON.stringify(name)} is ${size} bytes, over the ${limits.maxEntryBytes}-byte limit`, name);
      const short = safeEntryName(name, source);
      const body = size === 0 ? Buffer.alloc(0) : st.readFull(size, `entry ${JSON.stringify(name)}`, true);
      if (body === 'eof') refuse(source, `entry ${JSON.stringify(name)}: unexpected end of archive`, name);
      const key = cleanPath('/' + name);
      const prior = seen.get(key);
      if (prior !== undefined) refuse(source, `entry ${JSON.stringify(name)} duplicates ${JSON.stringify(prior)} (OPA would merge or overwrite them)`, name);
      seen.set(key, name);
      files.push({ name: short, entryName: name, bytes: new Uint8Array(body) });
      continue outer;
    }
  }
  return files;
}
