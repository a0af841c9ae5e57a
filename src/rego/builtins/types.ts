/** Type builtins (is_*, type_name) and casts (to_number and the deprecated cast_*). */
import { type Value, ObjectValue, SetValue, isNumber, typeName } from '../value.ts';
import { parseNumber } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { BuiltinError, arg, oneOfError } from './args.ts';

function is(name: string, pred: (v: Value) => boolean): BuiltinDef {
  return { name, arity: 1, fn: (a) => pred(arg(a, 0)) };
}

/** Parse a number string the way Go's strconv.ParseFloat accepts it (decimal forms), exactly. */
function parseNumberString(s: string): Value | undefined {
  const lower = s.toLowerCase().replace(/^[+-]/, '');
  if (lower === 'inf' || lower === 'infinity' || lower === 'nan') return undefined;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
  if (m === null) return undefined;
  const int = m[2] ?? '';
  const frac = m[3];
  if (int === '' && (frac === undefined || frac === '')) return undefined;
  let text = `${m[1] === '-' ? '-' : ''}${int === '' ? '0' : int}`;
  if (frac !== undefined && frac !== '') text += `.${frac}`;
  if (m[4] !== undefined) text += `e${m[4]}`;
  const n = parseNumber(text);
  if (n === undefined) return undefined;
  // Go's ParseFloat rejects values beyond float64 range.
  if (!Number.isFinite(Number(text))) return undefined;
  return n;
}

function castError(name: string, want: string, v: Value): BuiltinError {
  return new BuiltinError('eval_type_error', `${name}: operand 1 must be ${want} but got ${typeName(v)}`);
}

export const TYPE_BUILTINS: BuiltinDef[] = [
  is('is_number', isNumber),
  is('is_string', (v) => typeof v === 'string'),
  is('is_boolean', (v) => typeof v === 'boolean'),
  is('is_array', (v) => Array.isArray(v)),
  is('is_set', (v) => v instanceof SetValue),
  is('is_object', (v) => v instanceof ObjectValue),
  is('is_null', (v) => v === null),
  { name: 'type_name', arity: 1, fn: (a) => typeName(arg(a, 0)) },
  {
    name: 'to_number',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (v === null) return 0;
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (isNumber(v)) return v;
      if (typeof v === 'string') {
        // OPA refuses Inf/NaN as a type error, and passes anything else Go's ParseFloat refuses on as
        // ParseFloat's own error (eval_builtin_error).
        const lower = v.toLowerCase().replace(/^[+-]/, '');
        if (lower === 'inf' || lower === 'infinity' || lower === 'nan') throw castError('to_number', 'valid number string', v);
        const n = parseNumberString(v);
        if (n === undefined) {
          const why = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) ? 'value out of range' : 'invalid syntax';
          throw new BuiltinError('eval_builtin_error', `to_number: strconv.ParseFloat: parsing ${JSON.stringify(v)}: ${why}`);
        }
        return n;
      }
      throw oneOfError('to_number', 1, ['null', 'boolean', 'number', 'string'], v);
    },
  },
  {
    name: 'cast_array',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (Array.isArray(v)) return v;
      if (v instanceof SetValue) return [...v.values()];
      throw castError('cast_array', 'array', v);
    },
  },
  {
    name: 'cast_set',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (v instanceof SetValue) return v;
      if (Array.isArray(v)) return new SetValue(v);
      throw castError('cast_set', 'set', v);
    },
  },
  {
    name: 'cast_string',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (typeof v !== 'string') throw castError('cast_string', 'string', v);
      return v;
    },
  },
  {
    name: 'cast_boolean',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (typeof v !== 'boolean') throw castError('cast_boolean', 'boolean', v);
      return v;
    },
  },
  {
    name: 'cast_null',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (v !== null) throw castError('cast_null', 'null', v);
      return v;
    },
  },
  {
    name: 'cast_object',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      if (!(v instanceof ObjectValue)) throw castError('cast_object', 'object', v);
      return v;
    },
  },
];

registerBuiltins(TYPE_BUILTINS);
