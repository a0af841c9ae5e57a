/**
 * Input bytes as text: UTF-8 or a located PARSE_ERROR (line and column of the first byte that
 * does not decode, and that byte), a leading byte-order mark dropped. Every text input goes
 * through here, so a file that is not UTF-8 is refused the same way wherever it is read.
 */
import { isUtf8 } from 'node:buffer';
import { wellFormedLength } from '../canonical/utf8.ts';
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

/** Where the first ill-formed or cut-off sequence starts; `bytes.length` when there is none. */
export function firstInvalidOffset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const n = wellFormedLength(bytes, i);
    if (n === 0) return i;
    i += n;
  }
  return i;
}
