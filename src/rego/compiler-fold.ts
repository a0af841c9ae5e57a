/**
 * Constant folding of compiled rules: array, set and object literals of constants become one
 * constant term, built once at compile time.
 */
import type { CRule } from './compiler.ts';
import type { Literal, Term } from './ast.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';

/**
 * Turns every array, set and object literal whose members are all constants into one constant
 * term, in place, after the checks that read literal shapes: such a literal is then built once,
 * not on every evaluation (`method in {"GET", "POST"}`, a table of constants as a rule's value).
 * The value is what evaluating the literal gives (a repeated object key keeps its last value, a
 * set drops repeats), and it is shared, like the base document, so nothing may change it.
 */
export function foldRule(r: CRule): void {
  for (const t of [...r.args, ...r.rest, ...(r.key ? [r.key] : []), r.value]) foldTerm(t);
  for (const l of r.body) foldLiteral(l);
}

function foldLiteral(l: Literal): void {
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      foldTerm(e.term);
      break;
    case 'unify':
    case 'assign':
      foldTerm(e.left);
      foldTerm(e.right);
      break;
    case 'somein':
      foldTerm(e.coll);
      break;
    case 'every':
      foldTerm(e.domain);
      for (const b of e.body) foldLiteral(b);
      break;
    default:
      break;
  }
  for (const w of l.withs) foldTerm(w.value);
}

function foldTerm(t: Term): void {
  switch (t.type) {
    case 'ref':
      for (const p of t.path) foldTerm(p);
      return;
    case 'call':
      for (const a of t.args) foldTerm(a);
      return;
    case 'arraycompr':
    case 'setcompr':
      foldTerm(t.term);
      for (const l of t.body) foldLiteral(l);
      return;
    case 'objectcompr':
      foldTerm(t.key);
      foldTerm(t.value);
      for (const l of t.body) foldLiteral(l);
      return;
    case 'array':
    case 'set': {
      for (const i of t.items) foldTerm(i);
      if (!t.items.every((i) => i.type === 'value')) return;
      const vals = t.items.map((i) => (i as Term & { type: 'value' }).value);
      becomeConstant(t, t.type === 'array' ? vals : new SetValue(vals));
      return;
    }
    case 'object': {
      for (const [k, v] of t.entries) {
        foldTerm(k);
        foldTerm(v);
      }
      if (!t.entries.every(([k, v]) => k.type === 'value' && v.type === 'value')) return;
      const o = new ObjectValue();
      for (const [k, v] of t.entries) o.set((k as Term & { type: 'value' }).value, (v as Term & { type: 'value' }).value);
      becomeConstant(t, o);
      return;
    }
    default:
      return;
  }
}

function becomeConstant(t: Term, value: Value): void {
  const m = t as unknown as Record<string, unknown>;
  delete m.items;
  delete m.entries;
  m.type = 'value';
  m.value = value;
}
