/**
 * The evaluator's direct path: terms with at most one value (constants, bound variables, refs
 * through bound or constant keys, deterministic builtins and one-definition functions over such
 * terms) computed without continuations. Anything else answers GENERAL and takes the general path.
 */
import { type Frame, GENERAL, type Direct, childOf } from './eval-support.ts';
import { dataRefPlan, candidateRules, hasOneDefinition, indexedByFirstArg, callsFirst, dynamicKeys, objectPlan, lookupAfterBuiltins, operandHoldsCall } from './eval-plans.ts';
import type { Term } from './ast.ts';
import { type BuiltinFn, lookupBuiltin } from './builtins/registry.ts';
import type { CRule } from './compiler.ts';
import { funcOutputMarks } from './compiler-order.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';
import type { Evaluator } from './eval.ts';
import { nodeValue, nodeDoc } from './eval-data.ts';
import { builtinFailed, funcValue } from './eval-calls.ts';
import { comprehension } from './eval-composites.ts';

/**
 * The value of a term that can have at most one, computed without continuations: a constant, a
 * bound variable, a ref from a bound variable or `input` through constant or bound keys, or a
 * deterministic builtin over such terms. Undefined when the term is undefined; GENERAL for any
 * other term (or an unbound variable), which the caller then evaluates with `evalTerm`. Nothing
 * here has an effect, so a GENERAL answer after some work is simply redone by the general path.
 * Why: a body over 100,000 elements made half a dozen closures per element for `x.a > 5`.
 */
export function direct(ev: Evaluator, t: Term, f: Frame): Direct {
  switch (t.type) {
    case 'value':
      return t.value;
    case 'var': {
      if (t.slot === undefined) return t.name === 'input' ? ev.s.input : GENERAL;
      const v = f[t.slot];
      return v === undefined ? GENERAL : v;
    }
    case 'ref':
      return directRef(ev, t, f);
    case 'call':
      return directCall(ev, t, f);
    case 'array':
    case 'set': {
      const vals = directItems(ev, t.items, callsFirst(t.items, t.items), f);
      if (vals === undefined || vals === GENERAL) return vals;
      return t.type === 'array' ? vals : new SetValue(vals);
    }
    case 'object': {
      const { flat, order } = objectPlan(t);
      const vals = directItems(ev, flat, order, f);
      if (vals === undefined || vals === GENERAL) return vals;
      const o = new ObjectValue();
      for (let i = 0; i < vals.length; i += 2) o.set(vals[i] as Value, vals[i + 1] as Value);
      return o;
    }
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
      // one value each, built by running the body (as evalTerm does)
      return comprehension(ev, t, f);
    default:
      return GENERAL;
  }
}

/**
 * A ref through constant, bound or direct keys. Keys that are refs or calls are evaluated first, in
 * order, then the head (a local, `input`, `data` or any direct term), as the general path does
 * (OPA's compiler hoists them out of the ref).
 */
function directRef(ev: Evaluator, t: Term & { type: 'ref' }, f: Frame): Direct {
  const dyn = dynamicKeys(t);
  let keys: Value[] | undefined;
  if (dyn !== undefined) {
    keys = new Array(t.path.length);
    for (const i of dyn) {
      const kv = direct(ev, t.path[i] as Term, f);
      if (kv === GENERAL || kv === undefined) return kv;
      keys[i] = kv;
    }
  }
  const head = t.head;
  let v: Direct;
  if (head.type === 'var') {
    if (head.slot !== undefined) {
      v = f[head.slot];
      if (v === undefined) return GENERAL;
    } else if (head.name === 'input') {
      v = ev.s.input;
      if (v === undefined) return undefined;
    } else if (head.name === 'data') {
      return directData(ev, t, f, keys);
    } else return GENERAL;
  } else {
    v = direct(ev, head, f);
    if (v === GENERAL || v === undefined) return v;
  }
  const path = t.path;
  for (let i = 0; i < path.length; i++) {
    const key = pathKey(path[i] as Term, f, keys, i);
    if (key === undefined) return GENERAL; // iteration or a computed key
    v = childOf(v, key);
    if (v === undefined) return undefined;
  }
  return v;
}

/** A ref key known without iterating: a constant, a bound local or a key evaluated beforehand; else undefined. */
function pathKey(p: Term, f: Frame, keys: readonly Value[] | undefined, i: number): Value | undefined {
  if (p.type === 'value') return p.value;
  if (p.type === 'var') return p.slot === undefined ? undefined : f[p.slot];
  if (keys !== undefined && (p.type === 'ref' || p.type === 'call')) return keys[i];
  return undefined;
}

/** Items of a composite literal, each direct, in the order `order` gives (callsFirst). */
function directItems(ev: Evaluator, items: readonly Term[], order: readonly number[] | undefined, f: Frame): Value[] | undefined | typeof GENERAL {
  const vals: Value[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const j = order === undefined ? i : (order[i] as number);
    const v = direct(ev, items[j] as Term, f);
    if (v === undefined && lookupAfterBuiltins(items[j] as Term)) return laterCallsFirst(ev, items, order, i, f);
    if (v === undefined || v === GENERAL) return v;
    vals[j] = v;
  }
  return vals;
}

/**
 * Operand `i` (in `order`) was a lookup through builtin calls that found nothing: the calls of the
 * operands after it run before OPA would look it up (lookupAfterBuiltins), so evaluate those for
 * their errors, then fail. GENERAL when one of them needs the general path, which decides again.
 */
function laterCallsFirst(ev: Evaluator, items: readonly Term[], order: readonly number[] | undefined, i: number, f: Frame): undefined | typeof GENERAL {
  for (let k = i + 1; k < items.length; k++) {
    const t = items[order === undefined ? k : (order[k] as number)] as Term;
    if (!operandHoldsCall(t)) continue;
    if (direct(ev, t, f) === GENERAL) return GENERAL;
  }
  return undefined;
}

/**
 * A data ref whose constant prefix names a rule node (whose document is computed whole, without
 * continuations, and cached) or ends in the base document, followed by constant or bound keys.
 * Under `with` replacing a node, or past a function, the general path decides.
 */
function directData(ev: Evaluator, t: Term & { type: 'ref' }, f: Frame, keys: readonly Value[] | undefined): Direct {
  if (ev.s.nodeOverrides !== undefined) return GENERAL;
  const plan = dataRefPlan(t, ev.policy.root);
  if (plan.kind === 'general') return GENERAL;
  let v: Value | undefined = ev.s.base;
  for (let i = 0; i < plan.depth && v !== undefined; i++) v = childOf(v, (t.path[i] as Term & { type: 'value' }).value, true);
  if (plan.kind === 'rule') v = nodeDoc(ev, plan.node, v);
  else if (plan.kind === 'value') v = nodeValue(ev, plan.node, v);
  const store = plan.kind === 'base';
  for (let i = plan.depth; i < t.path.length; i++) {
    if (v === undefined) return undefined;
    const key = pathKey(t.path[i] as Term, f, keys, i);
    if (key === undefined) return GENERAL; // iteration or a computed key
    v = childOf(v, key, store);
  }
  return v;
}

/**
 * What a call term is, worked out on its first direct evaluation and kept (one lookup per call
 * instead of the registry's, the policy's and each plan's): a builtin the direct path may call, a
 * function of the policy (`funcs` is the policy's table it was found in), or one for the general path.
 */
type CallPlan =
  | { readonly kind: 'builtin'; readonly fn: BuiltinFn; readonly order: readonly number[] | undefined }
  | {
      readonly kind: 'func';
      readonly funcs: ReadonlyMap<string, CRule[]>;
      readonly path: string;
      readonly rules: readonly CRule[];
      readonly order: readonly number[] | undefined;
      /** Whether every call is computed whole (one definition besides the default), when the arguments do not pick the definitions; undefined when they do. */
      readonly whole: boolean | undefined;
    }
  | { readonly kind: 'general'; readonly funcs: ReadonlyMap<string, CRule[]> };

const CALL_PLANS = new WeakMap<Term, CallPlan>();

function callPlan(ev: Evaluator, t: Term & { type: 'call' }): CallPlan {
  const funcs = ev.policy.funcs;
  let plan = CALL_PLANS.get(t);
  // a term is compiled into one policy; another policy's table means the plan is worked out again
  if (plan !== undefined && (plan.kind === 'builtin' || plan.funcs === funcs)) return plan;
  const target = t.target;
  plan = { kind: 'general', funcs };
  if (target?.kind === 'func') {
    const rules = funcs.get(target.path);
    if (rules !== undefined && !funcOutputMarks.has(t)) {
      const whole = indexedByFirstArg(rules) ? undefined : hasOneDefinition(rules);
      plan = { kind: 'func', funcs, path: target.path, rules, order: callsFirst(t.args, t), whole };
    }
  } else if (target?.kind === 'builtin') {
    const def = lookupBuiltin(target.name);
    // an output argument, a relation, print and nondeterministic builtins take the general path
    if (def?.fn && !def.nondeterministic && def.arity >= 0 && t.args.length === def.arity && target.name !== 'print') {
      plan = { kind: 'builtin', fn: def.fn, order: callsFirst(t.args, t) };
    }
  }
  CALL_PLANS.set(t, plan);
  return plan;
}

export function directCall(ev: Evaluator, t: Term & { type: 'call' }, f: Frame): Direct {
  if (ev.s.funcOverrides !== undefined) return GENERAL;
  const plan = callPlan(ev, t);
  if (plan.kind === 'general') return GENERAL;
  const vals = directArgs(ev, t, f, plan.order);
  if (!Array.isArray(vals)) return vals;
  if (plan.kind === 'func') {
    // only the definitions these arguments can match count (the others yield nothing); with several
    // the caller must run on the first value before the others are checked for a conflict
    if (plan.whole !== undefined) return plan.whole ? funcValue(ev, plan.path, plan.rules, plan.rules, vals) : GENERAL;
    const candidates = candidateRules(plan.rules, vals);
    if (!hasOneDefinition(candidates)) return GENERAL;
    return funcValue(ev, plan.path, plan.rules, candidates, vals);
  }
  try {
    return plan.fn(vals, ev.ctx);
  } catch (e) {
    builtinFailed(ev, e, t.loc);
    return undefined;
  }
}

/** A call's arguments, each direct, in OPA's order (calls first); undefined or GENERAL as soon as one is. */
function directArgs(ev: Evaluator, t: Term & { type: 'call' }, f: Frame, order: readonly number[] | undefined): Value[] | undefined | typeof GENERAL {
  const vals: Value[] = new Array(t.args.length);
  for (let i = 0; i < t.args.length; i++) {
    const j = order === undefined ? i : (order[i] as number);
    const v = direct(ev, t.args[j] as Term, f);
    if (v === undefined && lookupAfterBuiltins(t.args[j] as Term)) return laterCallsFirst(ev, t.args, order, i, f);
    if (v === undefined || v === GENERAL) return v;
    vals[j] = v;
  }
  return vals;
}
