/**
 * A term as OPA prints it in an error message (`ast.Term.String()`), as far as the engine keeps what
 * OPA prints: values in Rego syntax, refs as `data.p.q[1]["a b"]`, collections and calls. A local
 * var keeps its own name where OPA prints the name it rewrote it to (`__local0__`).
 */
import type { Literal, Term } from './ast.ts';
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
    case 'arraycompr':
      return `[${termText(t.term)} | ${bodyText(t.body)}]`;
    case 'setcompr':
      return `{${termText(t.term)} | ${bodyText(t.body)}}`;
    case 'objectcompr':
      return `{${termText(t.key)}: ${termText(t.value)} | ${bodyText(t.body)}}`;
    default:
      return '...';
  }
}

/** A body as OPA prints it (`ast.Body.String()`): `:=` as `assign(x, 1)`, `=` infix, `; ` between them. */
function bodyText(body: readonly Literal[]): string {
  return body.map(literalText).join('; ');
}

function literalText(l: Literal): string {
  const e = l.expr;
  let text: string;
  if (e.kind === 'term') text = termText(e.term);
  else if (e.kind === 'assign') text = `assign(${termText(e.left)}, ${termText(e.right)})`;
  else if (e.kind === 'unify') text = `${termText(e.left)} = ${termText(e.right)}`;
  else if (e.kind === 'some') text = `some ${e.vars.map(termText).join(', ')}`;
  else text = '...';
  const withs = l.withs.map((w) => ` with ${termText(w.target)} as ${termText(w.value)}`).join('');
  return `${l.negated ? 'not ' : ''}${text}${withs}`;
}

/** One step of a ref: `.name` for a string that is an identifier and no keyword, else `[term]`. */
export function refSegment(t: Term): string {
  return t.type === 'value' && typeof t.value === 'string' && IDENTIFIER.test(t.value) && !KEYWORDS.has(t.value) ? `.${t.value}` : `[${termText(t)}]`;
}
