/** Operand checks shared by the builtin families, with OPA's error wording. */
import { type Value, ObjectValue, SetValue, isNumber, typeName } from '../value.ts';
import { type NumberValue, toBigInt, parseNumber } from '../number-value.ts';
import { BuiltinError, builtinError, operandError } from './registry.ts';

export { BuiltinError, builtinError, operandError };

export function arg(args: Value[], i: number): Value {
  const v = args[i];
  if (v === undefined) throw new BuiltinError('eval_type_error', `missing operand ${i + 1}`);
  return v;
}

export function str(name: string, args: Value[], i: number): string {
  const v = arg(args, i);
  if (typeof v !== 'string') throw operandError(name, i + 1, 'string', v);
  return v;
}

export function num(name: string, args: Value[], i: number): NumberValue {
  const v = arg(args, i);
  if (!isNumber(v)) throw operandError(name, i + 1, 'number', v);
  return v;
}

/** An integral number operand as bigint ("operand N must be integer number but got floating-point number"). */
export function int(name: string, args: Value[], i: number): bigint {
  const n = num(name, args, i);
  const b = toBigInt(n);
  if (b === undefined) {
    throw new BuiltinError('eval_type_error', `${name}: operand ${i + 1} must be integer number but got floating-point number`);
  }
  return b;
}

export function bool(name: string, args: Value[], i: number): boolean {
  const v = arg(args, i);
  if (typeof v !== 'boolean') throw operandError(name, i + 1, 'boolean', v);
  return v;
}

export function arr(name: string, args: Value[], i: number): Value[] {
  const v = arg(args, i);
  if (!Array.isArray(v)) throw operandError(name, i + 1, 'array', v);
  return v;
}

export function obj(name: string, args: Value[], i: number): ObjectValue {
  const v = arg(args, i);
  if (!(v instanceof ObjectValue)) throw operandError(name, i + 1, 'object', v);
  return v;
}

export function set(name: string, args: Value[], i: number): SetValue {
  const v = arg(args, i);
  if (!(v instanceof SetValue)) throw operandError(name, i + 1, 'set', v);
  return v;
}

/** `name: operand N must be one of {a, b} but got T` */
export function oneOfError(name: string, n: number, want: readonly string[], got: Value): BuiltinError {
  if (want.length === 1) return operandError(name, n, want[0]!, got);
  return new BuiltinError('eval_type_error', `${name}: operand ${n} must be one of {${want.join(', ')}} but got ${typeName(got)}`);
}

/** `name: operand N must be array of strings but got array containing number` */
export function elementError(name: string, n: number, composite: Value, want: string, got: Value): BuiltinError {
  const t = typeName(composite);
  return new BuiltinError('eval_type_error', `${name}: operand ${n} must be ${t} of ${want}s but got ${t} containing ${typeName(got)}`);
}

/** Elements of an array or set operand (sets in sorted order). */
export function elements(name: string, args: Value[], i: number): readonly Value[] {
  const v = arg(args, i);
  if (Array.isArray(v)) return v;
  if (v instanceof SetValue) return v.values();
  throw oneOfError(name, i + 1, ['array', 'set'], v);
}

export function numberFromDecimalText(text: string): NumberValue {
  const n = parseNumber(text);
  if (n === undefined) throw new Error(`internal: bad decimal ${text}`);
  return n;
}

/** Code points of a string (Rego strings index by rune). */
export function runes(s: string): string[] {
  return Array.from(s);
}

/** How many runes (code points) `s` holds, as runes(s).length counts them, without making them (a request body may be a megabyte). */
export function runeCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
