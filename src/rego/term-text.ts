/**
 * A term as OPA prints it in an error message (`ast.Term.String()`), as far as the engine keeps what
 * OPA prints: values in Rego syntax, refs as `data.p.q[1]["a b"]`, collections and calls. A local
 * var keeps its own name where OPA prints the name it rewrote it to (`__local0__`).
 */
import type { Term } from './ast.ts';
import { regoText } from './builtins/text.ts';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** OPA's keywords (ast.Keywords, Rego v1): a ref step that spells one is printed in brackets. */
const KEYWORDS: ReadonlySet<string> = new Set(['not', 'package', 'import', 'as', 'default', 'else', 'with', 'null', 'true', 'false', 'some', 'if', 'contains', 'in', 'every']);

export function termText(t: Term): string {
  switch (t.type) {
    case 'value':
      return regoText(t.value);
    case 'var':
      return t.name;
    case 'ref':
      return `${termText(t.head)}${t.path.map(refSegment).join('')}`;
    case 'array':
      return `[${t.items.map(termText).join(', ')}]`;
    case 'set':
      return t.items.length === 0 ? 'set()' : `{${t.items.map(termText).join(', ')}}`;
    case 'object':
      return `{${t.entries.map(([k, v]) => `${termText(k)}: ${termText(v)}`).join(', ')}}`;
    case 'call':
      return `${t.name}(${t.args.map(termText).join(', ')})`;
    default:
      return '...';
  }
}

/** One step of a ref: `.name` for a string that is an identifier and no keyword, else `[term]`. */
export function refSegment(t: Term): string {
  return t.type === 'value' && typeof t.value === 'string' && IDENTIFIER.test(t.value) && !KEYWORDS.has(t.value) ? `.${t.value}` : `[${termText(t)}]`;
}
