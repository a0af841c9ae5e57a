/**
 * Unicode's table of well-formed UTF-8 (no overlong form, no surrogate, nothing above U+10FFFF),
 * one sequence at a time: for the readers that must say where bytes stop being UTF-8, or repair
 * them as Go does, rather than only whether they are.
 */

/** The length of the well-formed sequence starting at `i` (1 to 4), or 0 when it is ill-formed or cut off. */
export function wellFormedLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
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
  } else return 0;
  if (i + len > bytes.length) return 0;
  for (let k = 1; k < len; k++) {
    const c = bytes[i + k]!;
    if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return 0;
  }
  return len;
}
