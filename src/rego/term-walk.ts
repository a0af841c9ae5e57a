/**
 * Walking terms and literals, the frame slots they use (all of them, or only those outside
 * comprehension bodies), and a ref's dotted name. Shared by the parser, the compiler stages and the
 * analyses that read its output.
 */
import type { Literal, Term } from './ast.ts';

/** Calls `fn` on each term directly inside a ref, collection or call (a comprehension's are its own). */
export function forEachChild(t: Term, fn: (child: Term) => void): void {
  switch (t.type) {
    case 'ref':
      fn(t.head);
      for (const p of t.path) fn(p);
      return;
    case 'array':
    case 'set':
      for (const i of t.items) fn(i);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        fn(k);
        fn(v);
      }
      return;
    case 'call':
      for (const a of t.args) fn(a);
      return;
    default:
      return;
  }
}

export function walkTerms(t: Term, fn: (t: Term) => void): void {
  fn(t);
  switch (t.type) {
    case 'arraycompr':
    case 'setcompr':
      walkTerms(t.term, fn);
      for (const l of t.body) walkLiteral(l, fn);
      return;
    case 'objectcompr':
      walkTerms(t.key, fn);
      walkTerms(t.value, fn);
      for (const l of t.body) walkLiteral(l, fn);
      return;
    default:
      forEachChild(t, (c) => walkTerms(c, fn));
  }
}

export function walkLiteral(l: Literal, fn: (t: Term) => void): void {
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      walkTerms(e.term, fn);
      break;
    case 'unify':
    case 'assign':
      walkTerms(e.left, fn);
      walkTerms(e.right, fn);
      break;
    case 'some':
      for (const v of e.vars) walkTerms(v, fn);
      break;
    case 'somein':
      if (e.key) walkTerms(e.key, fn);
      walkTerms(e.value, fn);
      walkTerms(e.coll, fn);
      break;
    case 'every':
      if (e.key) walkTerms(e.key, fn);
      walkTerms(e.value, fn);
      walkTerms(e.domain, fn);
      for (const b of e.body) walkLiteral(b, fn);
      break;
  }
  for (const w of l.withs) {
    walkTerms(w.target, fn);
    walkTerms(w.value, fn);
  }
}

export function varSlots(t: Term, out: Set<number>): Set<number> {
  walkTerms(t, (x) => {
    if (x.type === 'var' && x.slot !== undefined) out.add(x.slot);
  });
  return out;
}

/** Slots used by a term outside comprehensions (comprehension locals are not visible outside). */
export function topSlots(t: Term, out: Set<number>): Set<number> {
  if (t.type === 'var') {
    if (t.slot !== undefined) out.add(t.slot);
  } else forEachChild(t, (c) => topSlots(c, out));
  return out;
}

export function literalTopSlots(l: Literal): Set<number> {
  const out = new Set<number>();
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      topSlots(e.term, out);
      break;
    case 'unify':
    case 'assign':
      topSlots(e.left, out);
      topSlots(e.right, out);
      break;
    case 'some':
      // `some x` only declares x; OPA drops the declaration before its safety check, so a closure
      // whose var appears nowhere else in the body binds it itself.
      break;
    case 'somein':
      if (e.key) topSlots(e.key, out);
      topSlots(e.value, out);
      topSlots(e.coll, out);
      break;
    case 'every':
      topSlots(e.domain, out);
      break;
  }
  for (const w of l.withs) topSlots(w.value, out);
  return out;
}

export function literalSlots(l: Literal): Set<number> {
  const out = new Set<number>();
  walkLiteral(l, (x) => {
    if (x.type === 'var' && x.slot !== undefined) out.add(x.slot);
  });
  return out;
}

/** A var or a ref of constant string keys as a dotted name (`a.b.c`), else undefined. */
export function refName(t: Term): string | undefined {
  if (t.type === 'var') return t.name;
  if (t.type !== 'ref' || t.head.type !== 'var') return undefined;
  const parts = [t.head.name];
  for (const p of t.path) {
    if (p.type !== 'value' || typeof p.value !== 'string') return undefined;
    parts.push(p.value);
  }
  return parts.join('.');
}
