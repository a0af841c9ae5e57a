/**
 * Values built from terms: comprehensions (their body run to the end, each solution's term
 * collected) and array, set and object literals whose items have several values.
 */
import type { VK, Frame } from './eval-support.ts';
import { callsFirst, objectPlan } from './eval-plans.ts';
import type { Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, SetValue, type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';

/** The value of a comprehension: its body run to the end, each solution's term collected. */
export function comprehension(ev: Evaluator, t: Term & { type: 'arraycompr' | 'setcompr' | 'objectcompr' }, f: Frame): Value {
  if (t.type === 'arraycompr') {
    const out: Value[] = [];
    ev.evalBody(t.body, 0, f, () =>
      ev.evalTerm(t.term, f, (v) => {
        out.push(v);
        return false;
      }),
    );
    return out;
  }
  if (t.type === 'setcompr') {
    const out = new SetValue();
    ev.evalBody(t.body, 0, f, () =>
      ev.evalTerm(t.term, f, (v) => {
        out.add(v);
        return false;
      }),
    );
    return out.seal();
  }
  const out = new ObjectValue();
  const put = (key: Value, v: Value): boolean => {
    const prev = out.get(key);
    if (prev !== undefined && !valueEquals(prev, v)) {
      throw new RegoError('eval_conflict_error', 'object keys must be unique', t.loc);
    }
    out.set(key, v);
    return false;
  };
  const valueFirst = callsFirst([t.key, t.value], t) !== undefined;
  ev.evalBody(t.body, 0, f, () =>
    valueFirst
      ? ev.evalTerm(t.value, f, (v) => ev.evalTerm(t.key, f, (key) => put(key, v)))
      : ev.evalTerm(t.key, f, (key) => ev.evalTerm(t.value, f, (v) => put(key, v))),
  );
  return out;
}

/** An array, set or object literal some of whose items have several values or need unifying. */
export function evalComposite(ev: Evaluator, t: Term & { type: 'array' | 'set' | 'object' }, f: Frame, k: VK): boolean {
  if (t.type === 'array') return ev.evalItems(t.items, f, 0, new Array(t.items.length), (vals) => k(vals.slice()), callsFirst(t.items, t.items));
  if (t.type === 'set') return ev.evalItems(t.items, f, 0, new Array(t.items.length), (vals) => k(new SetValue(vals)), callsFirst(t.items, t.items));
  const { flat, order } = objectPlan(t);
  return ev.evalItems(flat, f, 0, new Array(flat.length), (vals) => {
    const o = new ObjectValue();
    for (let i = 0; i < vals.length; i += 2) o.set(vals[i] as Value, vals[i + 1] as Value);
    return k(o);
  }, order);
}
