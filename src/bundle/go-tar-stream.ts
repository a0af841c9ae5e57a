/** tar, as Go's archive/tar Reader reads it: the block stream, headers, numeric fields and PAX records. */
import type { Inflated } from './go-gzip.ts';
import { refuseArchive } from './archive-fault.ts';

export const BLOCK = 512;

export class GoStream {
  pos = 0;
  constructor(private readonly s: Inflated, private readonly source: string) {}
  /** io.ReadFull of n bytes: the bytes, 'eof' when none were left, or a refusal. */
  readFull(n: number, what: string, strict = false): Buffer | 'eof' {
    const avail = this.s.bytes.length - this.pos;
    // io.Copy of file data, unlike io.ReadFull, keeps an error that comes with the last bytes.
    if (strict && avail === n && this.s.error !== undefined) refuseArchive(this.source, `${what}: ${this.s.error}`);
    if (avail >= n) {
      const b = this.s.bytes.subarray(this.pos, this.pos + n);
      this.pos += n;
      return b;
    }
    if (this.s.error !== undefined) refuseArchive(this.source, `${what}: ${this.s.error}`);
    if (avail === 0) return 'eof';
    refuseArchive(this.source, `${what}: unexpected end of archive`);
  }
  /** Go's tryReadFull for padding: a short read at the end of the stream is an end of archive. */
  tryPad(n: number): 'ok' | 'eof' {
    const avail = this.s.bytes.length - this.pos;
    if (avail >= n) {
      this.pos += n;
      return 'ok';
    }
    if (this.s.error !== undefined) refuseArchive(this.source, `tar padding: ${this.s.error}`);
    this.pos += avail;
    return 'eof';
  }
}

function cString(b: Buffer): string {
  const z = b.indexOf(0);
  return (z < 0 ? b : b.subarray(0, z)).toString('latin1');
}

/** Header text fields are bytes; Go keeps them as byte strings, so decode names as UTF-8. */
export function cStringUtf8(b: Buffer): string {
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
  // read off the bytes: a field is at most 12 octal digits, exact in a double
  const pad = (c: number): boolean => c === 0x20 || c === 0;
  let start = 0;
  let end = b.length;
  while (start < end && pad(b[start]!)) start++;
  while (end > start && pad(b[end - 1]!)) end--;
  if (start === end) return 0;
  const z = b.indexOf(0, start);
  if (z >= 0 && z < end) end = z;
  let x = 0;
  for (let i = start; i < end; i++) {
    const d = b[i]! - 0x30;
    if (d < 0 || d > 7) return undefined;
    x = x * 8 + d;
  }
  return x;
}

export interface RawHeader {
  type: number;
  name: string;
  size: number;
}

export function readHeader(st: GoStream, source: string): RawHeader | 'eof' {
  const blk = st.readFull(BLOCK, 'tar header');
  if (blk === 'eof') return 'eof';
  if (isZero(blk)) {
    const second = st.readFull(BLOCK, 'tar header');
    if (second === 'eof' || isZero(second)) return 'eof';
    refuseArchive(source, 'invalid tar header (a zero block followed by a non-zero block)');
  }
  const sum = parseNumeric(blk.subarray(148, 156));
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const c = i >= 148 && i < 156 ? 0x20 : blk[i]!;
    unsigned += c;
    signed += c > 127 ? c - 256 : c;
  }
  if (sum === undefined || (sum !== unsigned && sum !== signed)) refuseArchive(source, `invalid tar header (bad checksum) at offset ${st.pos - BLOCK}`);
  const magic = blk.subarray(257, 263).toString('latin1');
  const version = blk.subarray(263, 265).toString('latin1');
  const ustar = magic === 'ustar\0';
  const gnu = magic === 'ustar ' && version === ' \0';
  const star = ustar && blk.subarray(508, 512).toString('latin1') === 'tar\0';
  let name = cStringUtf8(blk.subarray(0, 100));
  const nums = [blk.subarray(124, 136), blk.subarray(100, 108), blk.subarray(108, 116), blk.subarray(116, 124), blk.subarray(136, 148)];
  if (ustar || gnu) nums.push(blk.subarray(329, 337), blk.subarray(337, 345));
  const parsed = nums.map(parseNumeric);
  if (parsed.some((n) => n === undefined)) refuseArchive(source, `invalid tar header (malformed number) for ${JSON.stringify(name)}`);
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

export const T = (c: string) => c.charCodeAt(0);
export const HEADER_ONLY = new Set([T('1'), T('2'), T('3'), T('4'), T('5'), T('6')]);

export function parsePax(body: Buffer, source: string): Map<string, string> {
  const recs = new Map<string, string>();
  let s = body.toString('latin1');
  while (s.length > 0) {
    const sp = s.indexOf(' ');
    const n = sp > 0 && /^[0-9]+$/.test(s.slice(0, sp)) ? Number(s.slice(0, sp)) : -1;
    if (n < 5 || n > s.length || n <= sp + 1 || s[n - 1] !== '\n') refuseArchive(source, 'invalid tar header (malformed PAX record)');
    const rec = s.slice(sp + 1, n - 1);
    const eq = rec.indexOf('=');
    if (eq < 0) refuseArchive(source, 'invalid tar header (malformed PAX record)');
    const k = Buffer.from(rec.slice(0, eq), 'latin1').toString('utf8');
    const v = Buffer.from(rec.slice(eq + 1), 'latin1').toString('utf8');
    if (k === '' || k.includes('\0') || ((k === 'path' || k === 'linkpath') && v.includes('\0'))) refuseArchive(source, 'invalid tar header (malformed PAX record)');
    if (k.startsWith('GNU.sparse.')) refuseArchive(source, 'GNU sparse files are not supported');
    recs.set(k, v);
    s = s.slice(n);
  }
  return recs;
}
