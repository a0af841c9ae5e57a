/**
 * The builtins OPA's compiler calls on the user's behalf: `internal.template_string`, which joins the
 * parts of a template string `$"a{x}b"` (literal strings and one-element sets, each set holding the
 * embedded expression's value; an empty set prints `<undefined>`), and `internal.test_case`, OPA's
 * marker for a test case, which only emits a trace event and is true.
 */
import { ObjectValue, SetValue, typeName, type Value } from '../value.ts';
import { BuiltinError, registerBuiltins, type BuiltinDef } from './registry.ts';
import { arr } from './args.ts';
import { formatValue } from './core.ts';

function partText(v: Value): string {
  return typeof v === 'string' ? v : formatValue(v);
}

function templateString(parts: readonly Value[]): string {
  // OPA walks the cross product of the sets depth-first, so an illegal part is met before a second output.
  const illegal = parts.find((p) => Array.isArray(p) || p instanceof ObjectValue);
  if (illegal !== undefined) {
    throw new BuiltinError('eval_internal_error', `illegal argument type: ${typeName(illegal)}`, { halt: true });
  }
  if (parts.some((p) => p instanceof SetValue && p.size > 1)) {
    throw new BuiltinError('eval_conflict_error', 'template-strings must not produce multiple outputs', { halt: true });
  }
  return parts
    .map((p) => {
      if (!(p instanceof SetValue)) return partText(p);
      const only = p.values()[0];
      return only === undefined ? '<undefined>' : partText(only);
    })
    .join('');
}

export const TEMPLATE_BUILTINS: BuiltinDef[] = [
  { name: 'internal.template_string', arity: 1, fn: (a) => templateString(arr('internal.template_string', a, 0)) },
  { name: 'internal.test_case', arity: 1, fn: () => true },
];

registerBuiltins(TEMPLATE_BUILTINS);
