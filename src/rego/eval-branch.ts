/**
 * One branch of a rule or function (its body, or one `else`): whether OPA's rule index hands it to
 * evaluation, whether the branches handed out agree on a constant value (so the first that holds
 * decides), and its value for each solution of its body. A body whose literals are all direct, with
 * a direct value, has at most one solution and is computed without continuations.
 */
import { type VK, type Frame, GENERAL, childOf } from './eval-support.ts';
import type { CRule } from './compiler.ts';
import { branchConditions } from './ruleindex.ts';
import { type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';
import { direct } from './eval-direct.ts';

/** Calls `each` with the branch's value per solution of its body, until `each` returns true. */
export function eachBranchValue(ev: Evaluator, br: CRule, f: Frame, each: VK): void {
  const mark = ev.trailMark();
  try {
    const j = ev.directPrefix(br.body, 0, f);
    if (j < 0) return;
    if (j === br.body.length) {
      const v = direct(ev, br.value, f);
      if (v !== GENERAL) {
        if (v !== undefined) each(v);
        return;
      }
      ev.evalTerm(br.value, f, each);
    } else {
      ev.evalBodyAt(br.body, j, f, () => ev.evalTerm(br.value, f, each));
    }
  } finally {
    ev.unbindTo(mark, f);
  }
}

/**
 * Whether OPA's rule index would hand this branch to evaluation (ruleindex.ts): every ref its
 * conditions read is defined and holds the value or affix they name. `args`: a function's arguments.
 */
export function indexed(ev: Evaluator, r: CRule, args?: readonly Value[]): boolean {
  const conds = branchConditions(r, ev.policy.root);
  for (const c of conds) {
    const root = c.ref.root;
    let v: Value | undefined = root === 'input' ? ev.s.input : root === 'data' ? ev.s.base : args?.[root];
    const store = root === 'data';
    for (const key of c.ref.path) {
      if (v === undefined) break;
      v = childOf(v, key, store);
    }
    if (v === undefined) return false;
    switch (c.kind) {
      case 'eq':
        if (!valueEquals(v, c.value as Value)) return false;
        break;
      case 'prefix':
        if (typeof v !== 'string' || !v.startsWith(c.value as string)) return false;
        break;
      case 'suffix':
        if (typeof v !== 'string' || !v.endsWith(c.value as string)) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

/**
 * OPA's index result may exit early (ast/index.go resultMayEarlyExit): when every branch it hands
 * out has the same constant value, the first that holds decides and the others are not evaluated
 * (`r if { true }` and `r if { to_number("a") }` is true even with strict builtin errors).
 */
export function agreeOnConstant(ev: Evaluator, rules: readonly CRule[], args?: readonly Value[]): boolean {
  let val: Value | undefined;
  for (const r of rules) {
    if (r.isDefault) continue;
    for (const br of [r, ...r.elses]) {
      if (!indexed(ev, br, args)) continue;
      if (br.value.type !== 'value') return false;
      if (val !== undefined && !valueEquals(val, br.value.value)) return false;
      val = br.value.value;
    }
  }
  return true;
}
