/**
 * A float as Python's `repr` (and so `json.dumps`) writes it: the shortest digits that round-trip,
 * always with a `.0` or an exponent, the exponent from 1e-05 below and 1e+16 above.
 *
 * The peer toolgraph writes its `toolgraph.*` artifacts with Python's JSON encoder and names the
 * exact bytes as their identity (a `.sha256` beside each contract fixture), so a value that is a
 * float there (`risk_score: 1.0`) must be written as that float, not as the integer JavaScript
 * prints for it.
 */
import { CanonicalText } from './json.ts';
import { ToolgateError } from '../errors.ts';

export function pythonFloatRepr(x: number): string {
  if (!Number.isFinite(x)) {
    throw new ToolgateError('CANONICAL_UNREPRESENTABLE', `the float ${x} has no JSON form`, { at: [{ file: '<value>' }] });
  }
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  // toExponential() with no argument gives the shortest digits that identify the double.
  const [mantissa, expText] = x.toExponential().split('e') as [string, string];
  const sign = mantissa.startsWith('-') ? '-' : '';
  const digits = mantissa.replace('-', '').replace('.', '');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  if (exp >= digits.length - 1) return `${sign}${digits}${'0'.repeat(exp - (digits.length - 1))}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

/** The float spliced into canonical JSON in Python's spelling (see `CanonicalText`). */
export function pythonFloat(x: number): CanonicalText {
  return new CanonicalText(pythonFloatRepr(x));
}
