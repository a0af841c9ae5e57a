/**
 * The vars a pattern binds, as OPA's local-var rewriting counts them: a declaration's output vars
 * (none inside a call), and those of a `some ... in` that its collection also names.
 */
import type { Term } from './ast.ts';
import { forEachChild, walkTerms } from './term-walk.ts';

/**
 * The terms of a pattern that can bind: all but those inside a call, whose vars it only reads (OPA
 * declares the output vars of `value = coll[key]`: in `some (x in xs) in ys` none, so x is unsafe).
 */
export function walkOutputTerms(t: Term, fn: (t: Term) => void): void {
  if (t.type === 'call') return;
  fn(t);
  switch (t.type) {
    case 'ref':
      walkOutputTerms(t.head, fn);
      for (const p of t.path) walkOutputTerms(p, fn);
      return;
    case 'array':
    case 'set':
      for (const i of t.items) walkOutputTerms(i, fn);
      return;
    case 'object':
      for (const [k, v] of t.entries) (walkOutputTerms(k, fn), walkOutputTerms(v, fn));
      return;
    default:
      walkTerms(t, (x) => x !== t && fn(x));
  }
}

/** The names a `some k, v in coll` binds (not object keys) that its collection also names (outside closures), sorted. */
export function assignedBefore(key: Term | undefined, value: Term, coll: Term): string[] {
  const bound = new Set<string>();
  const bind = (t: Term): void => {
    if (t.type === 'var') bound.add(t.name);
    else if (t.type === 'array') t.items.forEach(bind);
    else if (t.type === 'object') for (const [, v] of t.entries) bind(v);
    else if (t.type === 'ref') t.path.forEach(bind);
  };
  if (key) bind(key);
  bind(value);
  const named = new Set<string>();
  const visit = (t: Term): void => {
    if (t.type === 'var') named.add(t.name);
    else if (t.type !== 'arraycompr' && t.type !== 'setcompr' && t.type !== 'objectcompr') forEachChild(t, visit);
  };
  visit(coll);
  return [...bound].filter((n) => n !== '_' && named.has(n)).sort();
}
