/** Rego's own text for a value (OPA's `ast.Value.String()`), used by sprintf and error messages. */
import { type Value, Decimal, ObjectValue, SetValue, numberToString } from '../value.ts';
import { goQuote } from './lib/gofmt.ts';

export function regoText(v: Value): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
    case 'bigint':
      return numberToString(v);
    case 'string':
      return goQuote(v);
    default:
      break;
  }
  if (v instanceof Decimal) return v.toString();
  if (Array.isArray(v)) return `[${v.map(regoText).join(', ')}]`;
  if (v instanceof SetValue) return v.size === 0 ? 'set()' : `{${v.values().map(regoText).join(', ')}}`;
  if (v instanceof ObjectValue) return `{${v.entries().map(([k, x]) => `${regoText(k)}: ${regoText(x)}`).join(', ')}}`;
  return String(v);
}
