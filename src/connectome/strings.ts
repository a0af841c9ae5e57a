/**
 * String helpers for the canonical form: NFC with an ASCII fast path, well-formedness, and the
 * code-point order the graph's ids and edges sort by (UTF-8 byte order).
 */
import { isAscii } from '../canonical/json.ts';

/** True when the string has no lone surrogate (it then has a UTF-8 form). */
export function isWellFormedString(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** NFC, skipping the normaliser for ASCII strings. Callers check well-formedness first. */
export function nfc(s: string): string {
  return isAscii(s) ? s : s.normalize('NFC');
}

// Any code unit at or above U+D800 is where UTF-16 order and code-point order can differ.
const HIGH = /[\ud800-\uffff]/;

/** Compares two strings by code point (the order of their UTF-8 bytes). */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  if (!HIGH.test(a) || !HIGH.test(b)) return a < b ? -1 : 1;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Move surrogates above U+E000..U+FFFF so code units compare as code points.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** True when the string holds a code unit at which UTF-16 and code-point order may disagree. */
export function hasHighUnit(s: string): boolean {
  return HIGH.test(s);
}
