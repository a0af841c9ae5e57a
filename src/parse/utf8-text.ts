/**
 * Input bytes as text: UTF-8 or a located PARSE_ERROR (line and column of the first byte that
 * does not decode, and that byte), a leading byte-order mark dropped. Every text input goes
 * through here, so a file that is not UTF-8 is refused the same way wherever it is read.
 */
import { isUtf8 } from 'node:buffer';
import { ToolgateError } from '../errors.ts';

export function utf8Text(bytes: Uint8Array, file: string): string {
  // A fast scan first; the slow search for the fault runs only on a file that fails it.
  if (!isUtf8(bytes)) {
    const offset = firstInvalidOffset(bytes);
    // (A negative fromIndex would count from the end.)
    const lineStart = offset === 0 ? 0 : bytes.lastIndexOf(0x0a, offset - 1) + 1;
    const line = countNewlines(bytes, lineStart) + 1;
    const col = [...new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset))].length + 1;
    const byte = bytes[offset]!.toString(16).padStart(2, '0');
    throw new ToolgateError('PARSE_ERROR', `not valid UTF-8: the sequence starting with byte 0x${byte} does not decode`, { at: [{ file, line, col }] });
  }
  const text = new TextDecoder('utf-8').decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function countNewlines(bytes: Uint8Array, end: number): number {
  let n = 0;
  for (let i = bytes.indexOf(0x0a); i !== -1 && i < end; i = bytes.indexOf(0x0a, i + 1)) n++;
  return n;
}

/**
 * Where the first ill-formed or cut-off sequence starts (Unicode's table of well-formed UTF-8: no
 * overlong form, no surrogate, nothing above U+10FFFF); `bytes.length` when there is none.
 */
export function firstInvalidOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // The sequence's length and the range its second byte must fall in.
    let len: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) {
      len = 3;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      len = 4;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    if (i + len > bytes.length) return i;
    for (let k = 1; k < len; k++) {
      const c = bytes[i + k]!;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += len;
  }
  return i;
}
