/**
 * What the evaluator works out once per term or per function and keeps (in weak maps keyed by the
 * compiled term or rule list): where a data ref leads in the rule tree, the order OPA evaluates
 * calls, ref keys and object entries in, the first-argument index of a function's definitions,
 * and the per-argument memo of function results with the binding of arguments to a frame.
 */
import type { Frame, Cached } from './eval-support.ts';
import type { Term } from './ast.ts';
import type { CRule, DataNode } from './compiler.ts';
import { compareValues, ObjectValue, SetValue, type Value, valueEquals } from './value.ts';

/**
 * Where a data ref's constant string prefix leads in the rule tree: `rule` (a node with rules at
 * `depth` keys), `value` (the whole of a node with rules below it: the ref ends there), `base`
 * (past `depth` keys no rule lies below, so the rest is a base document lookup), or `general`
 * (a function, or a key that is not a constant string before one of those is reached).
 */
type DataRefPlan = { kind: 'rule' | 'value' | 'base'; node: DataNode; depth: number } | { kind: 'general' };

const DATA_REF_PLANS = new WeakMap<Term, DataRefPlan>();

export function dataRefPlan(t: Term & { type: 'ref' }, root: DataNode): DataRefPlan {
  let plan = DATA_REF_PLANS.get(t);
  if (plan !== undefined) return plan;
  plan = { kind: 'general' };
  let node = root;
  for (let i = 0; ; i++) {
    if (node.funcs.length > 0) break;
    if (node.rules.length > 0) {
      plan = { kind: 'rule', node, depth: i };
      break;
    }
    if (i === t.path.length) {
      plan = { kind: 'value', node, depth: i };
      break;
    }
    const p = t.path[i] as Term;
    if (p.type !== 'value' || typeof p.value !== 'string') break;
    const child = node.children.get(p.value);
    if (child === undefined || (!child.hasRules && child.funcs.length === 0)) {
      plan = { kind: 'base', node, depth: i + 1 };
      break;
    }
    node = child;
  }
  DATA_REF_PLANS.set(t, plan);
  return plan;
}

/**
 * One function's results within an evaluation, keyed by its arguments: a scalar by its value
 * (numbers have one canonical form each, so equal numbers are the same key), a composite value by
 * identity. An equal composite that is another object is only a miss: the function is pure, so it
 * is evaluated again, never answered wrongly, and no argument is ever serialised to key it (a
 * payload, a request body). The first few argument lists are kept in a list compared element by
 * element (most functions are called once or twice an evaluation, and a map per argument cost more
 * than the lookup saved); past that, one level of maps per argument.
 */
export class FuncMemo {
  // the first call's arguments and result in fields: most functions are called once an evaluation
  private args0: readonly Value[] | undefined;
  private result0: Cached | undefined;
  private args: (readonly Value[])[] | undefined;
  private results: Cached[] | undefined;
  private tree: ArgMemo | undefined;

  get(vals: readonly Value[]): Cached | undefined {
    if (this.args0 === undefined) return undefined;
    if (sameArgs(this.args0, vals)) return this.result0;
    const args = this.args;
    if (args === undefined) return undefined;
    for (let i = 0; i < args.length; i++) if (sameArgs(args[i] as readonly Value[], vals)) return (this.results as Cached[])[i];
    if (this.tree === undefined) return undefined;
    let m: ArgMemo | undefined = this.tree;
    for (let i = 0; i < vals.length && m !== undefined; i++) m = m.find(vals[i] as Value);
    return m?.result;
  }

  /** Records the result for arguments not recorded yet (`vals` must not change afterwards). */
  set(vals: readonly Value[], result: Cached): void {
    if (this.args0 === undefined) {
      this.args0 = vals;
      this.result0 = result;
      return;
    }
    const args = (this.args ??= []);
    if (args.length < MEMO_LIST) {
      args.push(vals);
      (this.results ??= []).push(result);
      return;
    }
    let m = (this.tree ??= new ArgMemo());
    for (const v of vals) m = m.next(v);
    m.result = result;
  }
}

const MEMO_LIST = 8;

function sameArgs(a: readonly Value[], b: readonly Value[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The levels of a FuncMemo past its list: one map per argument, scalars by value, composites by identity. */
class ArgMemo {
  result: Cached | undefined;
  private scalars: Map<unknown, ArgMemo> | undefined;
  private objects: Map<object, ArgMemo> | undefined;

  find(v: Value): ArgMemo | undefined {
    return typeof v === 'object' && v !== null ? this.objects?.get(v) : this.scalars?.get(v);
  }

  next(v: Value): ArgMemo {
    let m: ArgMemo | undefined;
    if (typeof v === 'object' && v !== null) {
      const objects = (this.objects ??= new Map());
      m = objects.get(v);
      if (m === undefined) objects.set(v, (m = new ArgMemo()));
    } else {
      const scalars = (this.scalars ??= new Map());
      m = scalars.get(v);
      if (m === undefined) scalars.set(v, (m = new ArgMemo()));
    }
    return m;
  }
}

/**
 * Binds a function's parameters when each is a variable or a constant (the common head): true when
 * they match the arguments, false when a constant or a repeated variable does not; undefined for a
 * pattern head (`f([x, y])`), which unifyItems binds. The caller unbinds the variables afterwards.
 */
export function bindArgs(args: readonly Term[], vals: readonly Value[], fr: Frame): boolean | undefined {
  for (const a of args) if (!(a.type === 'value' || (a.type === 'var' && a.slot !== undefined))) return undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as Term;
    const v = vals[i] as Value;
    if (a.type === 'value') {
      if (!valueEquals(a.value, v)) return unbindArgs(args, i, fr);
      continue;
    }
    const slot = (a as Term & { type: 'var'; slot: number }).slot;
    const cur = fr[slot];
    if (cur === undefined) fr[slot] = v;
    else if (!valueEquals(cur, v)) return unbindArgs(args, i, fr);
  }
  return true;
}

function unbindArgs(args: readonly Term[], upTo: number, fr: Frame): false {
  for (let i = 0; i < upTo; i++) {
    const a = args[i] as Term;
    if (a.type === 'var' && a.slot !== undefined) fr[a.slot] = undefined;
  }
  return false;
}

const FIRST_ARG_INDEX = new WeakMap<readonly CRule[], Map<unknown, CRule[]> | null>();

/**
 * The definitions of a function that arguments `vals` can match, in their order: when every
 * definition's first argument is a constant scalar (`claim("jwt", src, proofs)`), only those whose
 * constant equals vals[0], plus the default; otherwise all of them. A skipped definition could
 * only fail to unify its arguments. (Scalars have one canonical form each, so a Map finds them.)
 */
export function candidateRules(rules: readonly CRule[], vals: readonly Value[]): readonly CRule[] {
  const index = firstArgIndex(rules);
  if (index === null) return rules;
  return index.get(vals[0]) ?? (index.get(NO_MATCH) as CRule[]);
}

/** Whether candidateRules picks among a function's definitions by its first argument (else it answers them all). */
export function indexedByFirstArg(rules: readonly CRule[]): boolean {
  return firstArgIndex(rules) !== null;
}

function firstArgIndex(rules: readonly CRule[]): Map<unknown, CRule[]> | null {
  let index = FIRST_ARG_INDEX.get(rules);
  if (index === undefined) {
    index = null;
    const defs = rules.filter((r) => !r.isDefault);
    const scalarFirst = (r: CRule): boolean => {
      const a = r.args[0];
      return a !== undefined && a.type === 'value' && (a.value === null || typeof a.value !== 'object');
    };
    if (defs.length > 1 && defs.every(scalarFirst)) {
      index = new Map();
      const defaults = rules.filter((r) => r.isDefault);
      for (const r of defs) {
        const key = (r.args[0] as Term & { type: 'value' }).value;
        let list = index.get(key);
        if (list === undefined) index.set(key, (list = [...defaults]));
        list.push(r);
      }
      index.set(NO_MATCH, defaults);
    }
    FIRST_ARG_INDEX.set(rules, index);
  }
  return index;
}

/** The index entry of the arguments no definition's constant matches. */
const NO_MATCH = Symbol('no match');

const ONE_DEFINITION = new WeakMap<readonly CRule[], boolean>();

/** Whether a function has at most one definition besides its default. */
export function hasOneDefinition(rules: readonly CRule[]): boolean {
  let one = ONE_DEFINITION.get(rules);
  if (one === undefined) {
    one = rules.filter((r) => !r.isDefault).length <= 1;
    ONE_DEFINITION.set(rules, one);
  }
  return one;
}

const CALLS_FIRST = new WeakMap<object, readonly number[] | null>();

/** Whether a term holds a call outside closures (what OPA's compiler hoists as a call). */
function holdsCall(t: Term): boolean {
  switch (t.type) {
    case 'call':
      return true;
    case 'ref':
      return holdsCall(t.head) || t.path.some(holdsCall);
    case 'array':
    case 'set':
      return t.items.some(holdsCall);
    case 'object':
      return t.entries.some(([a, b]) => holdsCall(a) || holdsCall(b));
    default:
      return false;
  }
}

const LOOKUP_AFTER_BUILTINS = new WeakMap<Term, boolean>();

/** Whether every call a term holds outside closures is a builtin's (so it is never undefined when builtin errors are strict). */
function onlyBuiltinCalls(t: Term): boolean {
  switch (t.type) {
    case 'call':
      return t.target?.kind === 'builtin' && t.args.every(onlyBuiltinCalls);
    case 'ref':
      return onlyBuiltinCalls(t.head) && t.path.every(onlyBuiltinCalls);
    case 'array':
    case 'set':
      return t.items.every(onlyBuiltinCalls);
    case 'object':
      return t.entries.every(([a, b]) => onlyBuiltinCalls(a) && onlyBuiltinCalls(b));
    default:
      return true;
  }
}

/**
 * An operand that is a ref on or through builtin calls (`split(s, ",")[1]`, `input.o[f(x)]`): OPA's
 * compiler hoists those calls, and the calls of the operands after it, before any ref lookup, so when
 * this lookup finds nothing the later operands' calls still run (and may raise) first.
 */
export function lookupAfterBuiltins(t: Term): boolean {
  let b = LOOKUP_AFTER_BUILTINS.get(t);
  if (b === undefined) {
    b = t.type === 'ref' && holdsCall(t) && onlyBuiltinCalls(t);
    LOOKUP_AFTER_BUILTINS.set(t, b);
  }
  return b;
}

/** Whether an operand holds a call OPA's compiler hoists out of it. */
export function operandHoldsCall(t: Term): boolean {
  return holdsCall(t);
}

/**
 * The order OPA evaluates the operands of a composite term or call in: its compiler hoists the
 * nested calls out first and binds the remaining refs after them (`[input.missing, to_number("a")]`
 * runs to_number first, which matters when strict builtin errors are on). Undefined when that is
 * the written order. `key` is the AST object the order is cached on.
 */
export function callsFirst(items: readonly Term[], key: object, base?: readonly number[]): readonly number[] | undefined {
  let o = CALLS_FIRST.get(key);
  if (o === undefined) {
    const calls: number[] = [];
    const refs: number[] = [];
    const rest: number[] = [];
    // refs come before plain terms (nothing observable) so that a ref binding a var another item
    // uses runs first (`foo == input.foos[foo]`, which OPA's compiler makes a ref first, then the call)
    for (const i of base ?? items.map((_t, i) => i)) {
      const t = items[i] as Term;
      (holdsCall(t) ? calls : t.type === 'ref' ? refs : rest).push(i);
    }
    const order = [...calls, ...refs, ...rest];
    o = order.every((j, i) => j === i) ? null : order;
    CALLS_FIRST.set(key, o);
  }
  return o ?? undefined;
}

const DYNAMIC_KEYS = new WeakMap<Term, readonly number[] | null>();

/** Indexes of a ref's keys that are refs or calls (undefined when none). */
export function dynamicKeys(t: Term & { type: 'ref' }): readonly number[] | undefined {
  let d = DYNAMIC_KEYS.get(t);
  if (d === undefined) {
    const idx: number[] = [];
    t.path.forEach((p, i) => {
      if (p.type === 'ref' || p.type === 'call') idx.push(i);
    });
    d = idx.length ? idx : null;
    DYNAMIC_KEYS.set(t, d);
  }
  return d ?? undefined;
}

/** OPA's sort order of a term's kind (ast/compare.go valueSortOrder). */
function termRank(t: Term): number {
  switch (t.type) {
    case 'value': {
      const v = t.value;
      if (v === null) return 0;
      if (typeof v === 'boolean') return 1;
      if (typeof v === 'string') return 3;
      if (Array.isArray(v)) return 7;
      if (v instanceof ObjectValue) return 8;
      if (v instanceof SetValue) return 9;
      return 2;
    }
    case 'var':
      return 5;
    case 'ref':
      return 6;
    case 'array':
      return 7;
    case 'object':
      return 8;
    case 'set':
      return 9;
    case 'arraycompr':
      return 10;
    case 'objectcompr':
      return 11;
    case 'setcompr':
      return 12;
    case 'call':
      return 13;
  }
}

const OBJECT_PLANS = new WeakMap<Term, { flat: Term[]; order: readonly number[] | undefined }>();

/** An object literal's entries as one flat [key, value, ...] list and the order to evaluate them in, worked out once per term. */
export function objectPlan(t: Term & { type: 'object' }): { flat: Term[]; order: readonly number[] | undefined } {
  let plan = OBJECT_PLANS.get(t);
  if (plan === undefined) {
    const flat: Term[] = [];
    for (const [a, b] of t.entries) flat.push(a, b);
    plan = { flat, order: callsFirst(flat, t.entries, objectEntryOrder(t.entries)) };
    OBJECT_PLANS.set(t, plan);
  }
  return plan;
}

/**
 * The order OPA's compiler visits an object literal's entries in, as flat [key, value] indexes: its
 * objects keep their keys sorted (`{"b": f(), "a": g()}` evaluates g first).
 */
function objectEntryOrder(entries: readonly [Term, Term][]): number[] {
  const idx = entries.map((_e, i) => i);
  idx.sort((a, b) => {
    const ka = (entries[a] as [Term, Term])[0];
    const kb = (entries[b] as [Term, Term])[0];
    const r = termRank(ka) - termRank(kb);
    if (r !== 0) return r;
    if (ka.type === 'value' && kb.type === 'value') return compareValues(ka.value, kb.value);
    if (ka.type === 'var' && kb.type === 'var') return ka.name < kb.name ? -1 : ka.name > kb.name ? 1 : 0;
    if (ka.type === 'call' && kb.type === 'call') return compareOperators(ka.name, kb.name) || a - b;
    return a - b;
  });
  return idx.flatMap((i) => [2 * i, 2 * i + 1]);
}

/** OPA orders two calls by their operator refs, segment by segment, a shorter ref first. */
function compareOperators(a: string, b: string): number {
  const pa = a.split('.');
  const pb = b.split('.');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] as string;
    const y = pb[i] as string;
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}
