/**
 * Go's `base64.StdEncoding.DecodeString` (RFC 4648 §4, padded): it skips CR and LF anywhere and
 * reports the first bad byte's offset, which OPA's certificate and key builtins echo in their errors.
 */

export class GoBase64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = 'GoBase64Error';
  }
}

function decodeTable(alphabet: string): Int16Array {
  const t = new Int16Array(256).fill(-1);
  for (let i = 0; i < alphabet.length; i++) t[alphabet.charCodeAt(i)] = i;
  return t;
}
const STD = decodeTable('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/');
/** `base64.URLEncoding` (RFC 4648 §5, padded): `-` and `_` for `+` and `/`. */
const URL = decodeTable('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');

const isNL = (c: number | undefined) => c === 0x0a || c === 0x0d;

/** Decodes bytes of base64 text (the URL alphabet when `url`); throws GoBase64Error at the first offending byte. */
export function decodeGoBase64(src: Uint8Array, url = false): Uint8Array {
  const DECODE = url ? URL : STD;
  const out: number[] = [];
  let si = 0;
  for (;;) {
    const dbuf = [0, 0, 0, 0];
    let dlen = 4;
    let done = false;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Uint8Array.from(out);
        throw new GoBase64Error(si - j);
      }
      const c = src[si]!;
      si++;
      const v = DECODE[c]!;
      if (v >= 0) {
        dbuf[j] = v;
        continue;
      }
      if (isNL(c)) {
        j--;
        continue;
      }
      if (c !== 0x3d) throw new GoBase64Error(si - 1);
      if (j < 2) throw new GoBase64Error(si - 1);
      if (j === 2) {
        while (si < src.length && isNL(src[si])) si++;
        if (si === src.length) throw new GoBase64Error(src.length);
        if (src[si] !== 0x3d) throw new GoBase64Error(si - 1);
        si++;
      }
      while (si < src.length && isNL(src[si])) si++;
      if (si < src.length) {
        // Go keeps the bytes of this quantum, then reports the trailing garbage.
        throw new GoBase64Error(si);
      }
      dlen = j;
      done = true;
      break;
    }
    const val = (dbuf[0]! << 18) | (dbuf[1]! << 12) | (dbuf[2]! << 6) | dbuf[3]!;
    const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
    out.push(...bytes.slice(0, dlen - 1));
    if (done) return Uint8Array.from(out);
  }
}

/** Go's pem.Decode, simplified to what the builtins need: the blocks in order, with their types. */
export interface PemBlock {
  readonly type: string;
  readonly bytes: Uint8Array;
}

const BEGIN = '-----BEGIN ';

/**
 * Every block in order. As in Go, a block whose body does not decode is skipped and the search goes
 * on right after its BEGIN line, so a broken END line does not hide the blocks after it.
 */
export function decodePemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  let at = 0;
  for (;;) {
    const begin = text.startsWith(BEGIN, at) ? at : text.indexOf(`\n${BEGIN}`, at);
    if (begin < 0) return out;
    const typeStart = begin + (text.startsWith(BEGIN, begin) ? BEGIN.length : BEGIN.length + 1);
    const lineEnd = text.indexOf('\n', typeStart);
    if (lineEnd < 0) return out;
    const line = text.slice(typeStart, lineEnd).replace(/[ \t\r]+$/, '');
    at = lineEnd;
    if (!line.endsWith('-----')) continue;
    const type = line.slice(0, -5);
    const end = text.indexOf(`\n-----END ${type}-----`, lineEnd - 1);
    if (end < 0) continue;
    const body = text.slice(lineEnd + 1, end);
    if (/^[\w-]+:/m.test(body)) continue; // headers (encrypted PEM): not a block these builtins read
    try {
      out.push({ type, bytes: decodeGoBase64(Buffer.from(body.replace(/[ \t]/g, ''), 'latin1')) });
      at = end + `\n-----END ${type}-----`.length;
    } catch {
      // not base64: look again after the BEGIN line
    }
  }
}

/**
 * The text of unpadded base64url (the URL alphabet only, a length that is not 1 more than a multiple
 * of four) when every byte it decodes to is ASCII; otherwise undefined, and the caller decodes bytes.
 * Left-over bits of the last group are dropped, as Go's (non-strict) decoder and Node's do. A JWT
 * segment is such text: decoding it here spares a Buffer and a UTF-8 decoder per call.
 */
export function asciiFromRawBase64url(s: string): string | undefined {
  const n = s.length;
  if (n % 4 === 1) return undefined;
  let out = '';
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const d = c < 128 ? (URL[c] as number) : -1;
    if (d < 0) return undefined;
    acc = ((acc << 6) | d) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const b = (acc >> bits) & 0xff;
      if (b >= 0x80) return undefined;
      out += String.fromCharCode(b);
    }
  }
  return out;
}
