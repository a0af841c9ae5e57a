/** Rego's own text for a value (OPA's `ast.Value.String()`), used by sprintf and error messages. */
import { type Value, ObjectValue, SetValue } from '../value.ts';
import { scalarText } from '../value-json.ts';
import { goQuote } from './lib/gofmt.ts';
import { writtenNumber } from '../written-numbers.ts';

export function regoText(v: Value): string {
  const scalar = scalarText(v, goQuote);
  if (scalar !== undefined) return scalar;
  // a float-written integer literal prints as written, as OPA prints a number by its text
  if (Array.isArray(v)) return `[${v.map((x, i) => writtenNumber(v, i) ?? regoText(x)).join(', ')}]`;
  if (v instanceof SetValue) return v.size === 0 ? 'set()' : `{${v.values().map(regoText).join(', ')}}`;
  if (v instanceof ObjectValue) return `{${v.entries().map(([k, x]) => `${regoText(k)}: ${regoText(x)}`).join(', ')}}`;
  return String(v);
}
