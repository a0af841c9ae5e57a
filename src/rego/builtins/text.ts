/** Rego's own text for a value (OPA's `ast.Value.String()`), used by sprintf and error messages. */
import { type Value, ObjectValue, SetValue } from '../value.ts';
import { scalarText } from '../value-json.ts';
import { goQuote } from './lib/gofmt.ts';

export function regoText(v: Value): string {
  const scalar = scalarText(v, goQuote);
  if (scalar !== undefined) return scalar;
  if (Array.isArray(v)) return `[${v.map(regoText).join(', ')}]`;
  if (v instanceof SetValue) return v.size === 0 ? 'set()' : `{${v.values().map(regoText).join(', ')}}`;
  if (v instanceof ObjectValue) return `{${v.entries().map(([k, x]) => `${regoText(k)}: ${regoText(x)}`).join(', ')}}`;
  return String(v);
}
