/**
 * Refs: a ref's dynamic keys evaluated before its head (as OPA's compiler hoists them), then its
 * head (data, input, a local or any term) walked down the path, iterating over unbound keys.
 */
import { type VK, type Frame, childOf, isPattern } from './eval-support.ts';
import { dataRefPlan, dynamicKeys } from './eval-plans.ts';
import type { Term } from './ast.ts';
import { RegoError } from './errors.ts';
import type { Value } from './value.ts';
import type { Evaluator } from './eval.ts';
import { unifyValue } from './eval-unify.ts';
import { evalData } from './eval-data.ts';

/** A ref's value(s): its dynamic keys first, then its head walked down its path. */
export function evalRef(ev: Evaluator, t: Term & { type: 'ref' }, f: Frame, k: VK): boolean {
  const dyn = dynamicKeys(t);
  if (dyn !== undefined) {
    // OPA's compiler hoists refs and calls out of a ref's keys, so they are evaluated before the
    // head is read (`input.missing[f(x)]` still calls f)
    const terms = dyn.map((i) => t.path[i] as Term);
    return ev.evalItems(terms, f, 0, new Array(terms.length), (vals) => {
      const path = t.path.slice();
      dyn.forEach((i, j) => (path[i] = { type: 'value', value: vals[j] as Value, loc: (t.path[i] as Term).loc }));
      return evalRefFrom(ev, { type: 'ref', head: t.head, path, loc: t.loc }, f, k);
    });
  }
  return evalRefFrom(ev, t, f, k);
}

function evalRefFrom(ev: Evaluator, t: Term & { type: 'ref' }, f: Frame, k: VK): boolean {
  const head = t.head;
  if (head.type === 'var' && head.slot === undefined) {
    if (head.name === 'data') {
      const plan = ev.s.nodeOverrides === undefined ? dataRefPlan(t, ev.policy.root) : undefined;
      if (plan === undefined || plan.kind === 'general') return evalData(ev, ev.policy.root, ev.s.base, t.path, 0, f, k);
      // jump to where the constant prefix leads instead of descending from the root on every read
      let base: Value | undefined = ev.s.base;
      for (let i = 0; i < plan.depth && base !== undefined; i++) base = childOf(base, (t.path[i] as Term & { type: 'value' }).value, true);
      if (plan.kind === 'base') return base === undefined ? false : walk(ev, base, t.path, plan.depth, f, k, true);
      return evalData(ev, plan.node, base, t.path, plan.depth, f, k);
    }
    if (head.name === 'input') {
      if (ev.s.input === undefined) return false;
      return walk(ev, ev.s.input, t.path, 0, f, k);
    }
  }
  if (head.type === 'var' && head.slot !== undefined) {
    // a bound local (the common `item.risk`): no continuation closure for the head
    const v = f[head.slot];
    if (v === undefined) throw new RegoError('rego_unsafe_var_error', `var ${head.name} is unsafe`, head.loc);
    return walk(ev, v, t.path, 0, f, k);
  }
  return ev.evalTerm(head, f, (v) => walk(ev, v, t.path, 0, f, k));
}

/**
 * Descends v along path[i..], iterating where a key is an unbound var or a pattern; `store` when v
 * is in the base document, whose object members a number key also reads by its text.
 */
export function walk(ev: Evaluator, v: Value, path: Term[], i: number, f: Frame, k: VK, store = false): boolean {
  if (i === path.length) return k(v);
  const p = path[i] as Term;
  if (p.type === 'value') {
    const c = childOf(v, p.value, store);
    return c === undefined ? false : walk(ev, c, path, i + 1, f, k, store);
  }
  if (p.type === 'var' && p.slot !== undefined) {
    const cur = f[p.slot];
    if (cur !== undefined) {
      const c = childOf(v, cur, store);
      return c === undefined ? false : walk(ev, c, path, i + 1, f, k, store);
    }
    const slot = p.slot;
    return ev.iterate(v, (key, val) => {
      f[slot] = key;
      try {
        return walk(ev, val, path, i + 1, f, k);
      } finally {
        f[slot] = undefined;
      }
    });
  }
  if (isPattern(p, f)) {
    return ev.iterate(v, (key, val) => unifyValue(ev, p, key, f, () => walk(ev, val, path, i + 1, f, k)));
  }
  return ev.evalTerm(p, f, (key) => {
    const c = childOf(v, key);
    return c === undefined ? false : walk(ev, c, path, i + 1, f, k);
  });
}
