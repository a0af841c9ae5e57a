/**
 * Unification of terms with terms and with values (`=`, `:=`, `some ... in` patterns, function
 * arguments): binds unbound variables in the frame and undoes each binding when its continuation
 * returns.
 */
import { type K, type Frame, GENERAL, isPattern } from './eval-support.ts';
import type { Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';
import { direct } from './eval-direct.ts';

export function unify(ev: Evaluator, a: Term, b: Term, f: Frame, k: K): boolean {
  const pa = isPattern(a, f);
  const pb = isPattern(b, f);
  if (pa && pb) {
    if (a.type === 'array' && b.type === 'array') {
      if (a.items.length !== b.items.length) return false;
      return unifyPairs(ev, a.items, b.items, 0, f, k);
    }
    if (a.type === 'object' && b.type === 'object') {
      if (a.entries.length !== b.entries.length) return false;
      // match keys by value
      return ev.evalTerm({ type: 'array', items: a.entries.map((e) => e[0]), loc: a.loc }, f, (ka) =>
        ev.evalTerm({ type: 'array', items: b.entries.map((e) => e[0]), loc: b.loc }, f, (kb) => {
          const ia: Term[] = [];
          const ib: Term[] = [];
          const kav = ka as Value[];
          const kbv = kb as Value[];
          for (let i = 0; i < kav.length; i++) {
            const j = kbv.findIndex((x) => valueEquals(x, kav[i] as Value));
            if (j < 0) return false;
            ia.push((a.entries[i] as [Term, Term])[1]);
            ib.push((b.entries[j] as [Term, Term])[1]);
          }
          return unifyPairs(ev, ia, ib, 0, f, k);
        }),
      );
    }
    if (a.type === 'var' && b.type === 'var') {
      throw new RegoError('rego_unsafe_var_error', `var ${a.name} is unsafe`, a.loc);
    }
    if (a.type === 'var' || b.type === 'var') {
      // one side is a bare variable and the other a composite pattern: bind once the composite is ground
      throw new RegoError('rego_unsafe_var_error', `var ${(a.type === 'var' ? a : b as Term & { name: string }).name} is unsafe`, a.loc);
    }
    return false;
  }
  if (pa) return ev.evalTerm(b, f, (v) => unifyValue(ev, a, v, f, k));
  return ev.evalTerm(a, f, (v) => unifyValue(ev, b, v, f, k));
}

/**
 * `x := term` / `x = term` (either side) with x an unbound local and the term direct, or two
 * direct sides: directUnify, then the continuation with its binding. Undefined when the general
 * path decides.
 */
export function unifyDirect(ev: Evaluator, a: Term, b: Term, f: Frame, k: K): boolean | undefined {
  const mark = ev.trailMark();
  try {
    const r = directUnify(ev, a, b, f);
    if (r === GENERAL) return undefined;
    return r ? k() : false;
  } finally {
    ev.unbindTo(mark, f);
  }
}

/**
 * A unification with at most one solution, without a continuation (a body's direct prefix): true
 * when the two sides agree (an unbound local on one side bound to the other, through `ev.bind`,
 * which the caller undoes), false when they do not, GENERAL when the general path decides (nothing bound then). An array of
 * unbound locals and direct terms (`[src] := f(x)`) is matched against a direct array too.
 */
export function directUnify(ev: Evaluator, a: Term, b: Term, f: Frame): boolean | typeof GENERAL {
  let slot: number | undefined;
  let other: Term;
  if (a.type === 'var' && a.slot !== undefined && f[a.slot] === undefined) {
    slot = a.slot;
    other = b;
  } else if (b.type === 'var' && b.slot !== undefined && f[b.slot] === undefined) {
    slot = b.slot;
    other = a;
  } else {
    const pa = isPattern(a, f);
    const pb = isPattern(b, f);
    if (pa && !pb && a.type === 'array') return directArrayPattern(ev, a.items, b, f);
    if (pb && !pa && b.type === 'array') return directArrayPattern(ev, b.items, a, f);
    if (pa || pb) return GENERAL;
    const x = direct(ev, a, f);
    if (x === GENERAL) return GENERAL;
    if (x === undefined) return false;
    const y = direct(ev, b, f);
    if (y === GENERAL) return GENERAL;
    return y !== undefined && valueEquals(x, y);
  }
  if (isPattern(other, f)) return GENERAL;
  const v = direct(ev, other, f);
  if (v === GENERAL) return GENERAL;
  if (v === undefined) return false;
  ev.bind(f, slot, v);
  return true;
}

/** `[x, "c", y] = term`: each item an unbound local or a term without one, the other side direct. */
function directArrayPattern(ev: Evaluator, items: readonly Term[], other: Term, f: Frame): boolean | typeof GENERAL {
  for (const t of items) if (!(t.type === 'var' && t.slot !== undefined) && isPattern(t, f)) return GENERAL;
  // the items without a local first, so that GENERAL is answered before anything is bound
  const fixed: (Value | undefined)[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const t = items[i] as Term;
    if (t.type === 'var' && t.slot !== undefined && f[t.slot] === undefined) continue;
    const x = direct(ev, t, f);
    if (x === GENERAL) return GENERAL;
    if (x === undefined) return false;
    fixed[i] = x;
  }
  const v = direct(ev, other, f);
  if (v === GENERAL) return GENERAL;
  if (!Array.isArray(v) || v.length !== items.length) return false;
  for (let i = 0; i < items.length; i++) {
    const t = items[i] as Term;
    const x = v[i] as Value;
    const want = fixed[i];
    if (want !== undefined) {
      if (!valueEquals(want, x)) return false;
      continue;
    }
    const slot = (t as Term & { type: 'var'; slot: number }).slot;
    const cur = f[slot];
    if (cur === undefined) ev.bind(f, slot, x);
    else if (!valueEquals(cur, x)) return false;
  }
  return true;
}

function unifyPairs(ev: Evaluator, as: Term[], bs: Term[], i: number, f: Frame, k: K): boolean {
  if (i === as.length) return k();
  return unify(ev, as[i] as Term, bs[i] as Term, f, () => unifyPairs(ev, as, bs, i + 1, f, k));
}

/** Unifies a term (possibly containing unbound vars) with a value. */
export function unifyValue(ev: Evaluator, t: Term, v: Value, f: Frame, k: K): boolean {
  switch (t.type) {
    case 'var': {
      if (t.slot === undefined) return ev.evalTerm(t, f, (x) => (valueEquals(x, v) ? k() : false));
      const cur = f[t.slot];
      if (cur === undefined) {
        f[t.slot] = v;
        try {
          return k();
        } finally {
          f[t.slot] = undefined;
        }
      }
      return valueEquals(cur, v) ? k() : false;
    }
    case 'value':
      return valueEquals(t.value, v) ? k() : false;
    case 'array':
      if (!Array.isArray(v) || v.length !== t.items.length) return false;
      return unifyItems(ev, t.items, v, 0, f, k);
    case 'object': {
      if (!(v instanceof ObjectValue) || v.size !== t.entries.length) return false;
      return unifyEntries(ev, t.entries, v, 0, f, k);
    }
    default:
      return ev.evalTerm(t, f, (x) => (valueEquals(x, v) ? k() : false));
  }
}

export function unifyItems(ev: Evaluator, items: Term[], v: Value[], i: number, f: Frame, k: K): boolean {
  if (i === items.length) return k();
  return unifyValue(ev, items[i] as Term, v[i] as Value, f, () => unifyItems(ev, items, v, i + 1, f, k));
}

function unifyEntries(ev: Evaluator, entries: [Term, Term][], v: ObjectValue, i: number, f: Frame, k: K): boolean {
  if (i === entries.length) return k();
  const [kt, vt] = entries[i] as [Term, Term];
  return ev.evalTerm(kt, f, (key) => {
    const x = v.get(key);
    if (x === undefined) return false;
    return unifyValue(ev, vt, x, f, () => unifyEntries(ev, entries, v, i + 1, f, k));
  });
}
