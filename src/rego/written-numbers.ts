/**
 * The text of number literals written as floats in a form the engine's one form of the number does
 * not keep (`1.0`, `100.0`, `1e2`, `2e308`, `1.50`), for the array literals that hold them. OPA keeps a number as the text it was written in
 * and formats it by that text (sprintf's `%f` and `%v` take `1e2` as a float); the engine has one
 * form per number, so the text survives only here: per item of a constant array literal, as long
 * as that array is the value passed on (a variable bound to it, a builtin's operand).
 */
import { numberToString, type NumberValue } from './number-value.ts';

const written = new WeakMap<readonly unknown[], readonly (string | undefined)[]>();

/** Whether a literal's text is a float's that the engine's one form of its value does not keep (`1.0`, `1e2`, `1.50`). */
export function isWrittenFloat(text: string, value: NumberValue): boolean {
  return /[.eE]/.test(text) && text !== numberToString(value);
}

/** Records the written texts of an array literal's items (undefined where an item needs none). */
export function keepWrittenNumbers(array: readonly unknown[], texts: readonly (string | undefined)[]): void {
  if (texts.some((t) => t !== undefined)) written.set(array, texts);
}

/** The text item `i` of `array` was written in, when it is a float-written integer literal. */
export function writtenNumber(array: readonly unknown[], i: number): string | undefined {
  return written.get(array)?.[i];
}

/** Every item's written text of `array` (for the AST codec), or undefined when it keeps none. */
export function writtenNumbersOf(array: readonly unknown[]): readonly (string | undefined)[] | undefined {
  return written.get(array);
}
