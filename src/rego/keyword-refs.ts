/**
 * Keywords as the head of a ref (`input.if` already works; here `if.x`, `true.foo`, `not.x[0]`,
 * `package.a := 1`): OPA reads a keyword directly followed by `.` or `[` as a variable, at the
 * start of a statement or a literal, and never takes `in` / `with` written that way for the
 * operator or the modifier.
 */
import type { Token } from './lexer.ts';

const REF_KEYWORDS: ReadonlySet<string> = new Set([
  'package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false', 'every', 'contains', 'if', 'in', 'and', 'or',
]);

/** `tok` is a keyword that the token after it (no space between) makes the head of a ref. */
export function isKeywordRef(tok: Token, next: Token): boolean {
  return tok.type === 'ident' && REF_KEYWORDS.has(tok.text) && next.type === 'op' && !next.ws && (next.text === '.' || next.text === '[');
}
