/**
 * Calls of a function with no value (`print`, Rego's one void builtin) where a value is wanted: as
 * an operand, an assigned value, a rule's value or a collection element. OPA refuses these at
 * compile time as `rego_type_error: print(1) used as value`, before its safety and type checks. A
 * `print(...)` is a statement of its own.
 */
import type { Literal, Term } from './ast.ts';
import type { CRule } from './compiler.ts';
import { RegoError } from './errors.ts';
import { forEachChild } from './term-walk.ts';
import { termText } from './term-text.ts';

const isVoid = (t: Term): t is Term & { type: 'call' } => t.type === 'call' && t.target?.kind === 'builtin' && t.target.name === 'print';

/** The void calls `rules` use as values, one error each. */
export function checkVoidCalls(rules: readonly CRule[], errors: RegoError[]): void {
  const used = (t: Term): void => {
    if (isVoid(t)) errors.push(new RegoError('rego_type_error', `${termText(t)} used as value`, t.loc));
    forEachChild(t, used);
    for (const l of bodyOf(t)) literal(l);
  };
  const literal = (l: Literal): void => {
    const e = l.expr;
    // a statement that is the call itself, or a call whose operands are checked (OPA's rule)
    if (e.kind === 'term' && e.term.type === 'call') {
      for (const a of e.term.args) used(a);
    } else if (e.kind === 'term') used(e.term);
    else if (e.kind === 'unify' || e.kind === 'assign') [e.left, e.right].forEach(used);
    else if (e.kind === 'somein') [e.value, e.coll, ...(e.key ? [e.key] : [])].forEach(used);
    else if (e.kind === 'every') {
      used(e.domain);
      e.body.forEach(literal);
    }
    for (const w of l.withs) used(w.value);
  };
  for (const r of rules) {
    for (const b of [r, ...r.elses]) {
      b.body.forEach(literal);
      for (const t of [...b.rest, ...(b.key ? [b.key] : []), b.value]) used(t);
    }
  }
}

function bodyOf(t: Term): readonly Literal[] {
  return t.type === 'arraycompr' || t.type === 'setcompr' || t.type === 'objectcompr' ? t.body : [];
}
