/**
 * Calls: builtins (their errors undefined unless strict), `print`, replacements under `with`, and
 * user functions (every definition and `else` branch tried, conflicting outputs an error, results
 * memoised per argument).
 */
import { type VK, type Frame, UNDEF, type WithState, printValue } from './eval-support.ts';
import { FuncMemo, bindArgs, candidateRules, callsFirst } from './eval-plans.ts';
import type { CallTarget, Loc, Term } from './ast.ts';
import { lookupBuiltin, BuiltinError } from './builtins/registry.ts';
import type { CRule } from './compiler.ts';
import { funcOutputMarks } from './compiler-order.ts';
import { RegoError } from './errors.ts';
import { conflictError, type ConflictingValue } from './conflicts.ts';
import { type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';
import { unifyValue, unifyItems } from './eval-unify.ts';
import { agreeOnConstant, eachBranchValue, indexed } from './eval-branch.ts';

/** A builtin threw: raised at the call when strict (or for a halting error), else the call is undefined. */
export function builtinFailed(ev: Evaluator, e: unknown, loc: Loc): void {
  if (!(e instanceof BuiltinError)) throw e;
  if (ev.strict || e.halt) throw new RegoError(e.code, e.message, loc);
}

export function evalCall(ev: Evaluator, t: Term & { type: 'call' }, f: Frame, k: VK): boolean {
  const target = t.target;
  if (!target) throw new RegoError('rego_type_error', `undefined function ${t.name}`, t.loc);
  let out: Term | undefined;
  if (target.kind === 'builtin') {
    const b = lookupBuiltin(target.name);
    if (b && b.arity >= 0 && t.args.length === b.arity + 1) out = t.args[t.args.length - 1];
    if (target.name === 'print') return evalPrint(ev, t, f, k);
  } else out = funcOutputMarks.get(t);
  const ins = out ? t.args.slice(0, -1) : t.args;
  const outT = out;
  return ev.evalItems(ins, f, 0, new Array(ins.length), (vals) =>
    callTarget(ev, target, vals.slice(), t.loc, outT ? (v) => unifyValue(ev, outT, v, f, () => k(true)) : k),
  callsFirst(ins, t));
}

function evalPrint(ev: Evaluator, t: Term & { type: 'call' }, f: Frame, k: VK): boolean {
  const parts: string[] = [];
  for (const a of t.args) {
    const vals: Value[] = [];
    ev.evalTerm(a, f, (v) => {
      vals.push(v);
      return false;
    });
    if (vals.length === 0) parts.push('<undefined>');
    else for (const v of vals) parts.push(typeof v === 'string' ? v : printValue(v));
  }
  ev.ctx.print(parts.join(' '));
  return k(true);
}

function callTarget(ev: Evaluator, target: CallTarget, vals: Value[], loc: Loc, k: VK): boolean {
  const key = target.kind === 'builtin' ? target.name : target.path;
  const over = ev.s.funcOverrides?.get(key);
  if (over) {
    if (over.kind === 'value') return k(over.value);
    const t2 = over.target;
    if (t2.kind === 'builtin' ? t2.name !== key : t2.path !== key) {
      // the replacement runs without the overrides of builtins (a mock never calls another mock)
      const saved = ev.s;
      const overrides = new Map(saved.funcOverrides);
      for (const [name] of saved.funcOverrides ?? []) if (!name.startsWith('data.') || name === key) overrides.delete(name);
      const inner: WithState = { ...saved, funcOverrides: overrides.size ? overrides : undefined, funcCache: undefined };
      ev.s = inner;
      let r: boolean;
      try {
        r = callTargetRaw(ev, t2, vals, loc, (v) => {
          ev.s = saved;
          try {
            return k(v);
          } finally {
            ev.s = inner;
          }
        });
      } finally {
        ev.s = saved;
      }
      return r;
    }
  }
  return callTargetRaw(ev, target, vals, loc, k);
}

function callTargetRaw(ev: Evaluator, target: CallTarget, vals: Value[], loc: Loc, k: VK): boolean {
  if (target.kind === 'func') return callFunc(ev, target.path, vals, loc, k);
  const def = lookupBuiltin(target.name);
  if (!def) throw new RegoError('rego_type_error', `undefined function ${target.name}`, loc);
  try {
    if (def.rel) {
      const results = def.rel(vals, ev.ctx);
      for (const r of results) if (k(r)) return true;
      return false;
    }
    const r = (def.fn as NonNullable<typeof def.fn>)(vals, ev.ctx);
    if (r === undefined) return false;
    return k(r);
  } catch (e) {
    builtinFailed(ev, e, loc);
    return false;
  }
}

/**
 * A function branch's value with its parameters bound: undefined when its body fails, an error when
 * its solutions disagree.
 */
function branchValue(ev: Evaluator, br: CRule, fr: Frame): Value | undefined {
  let got: Value | undefined;
  eachBranchValue(ev, br, fr, (v) => {
    if (got === undefined) got = v;
    else if (!valueEquals(got, v)) throw conflictError('function', br.path.join('.'), [[got, br.loc], [v, br.loc]]);
    return false;
  });
  return got;
}

/** The value of one definition (its body or the first `else` branch that holds) for these arguments. */
function definitionValue(ev: Evaluator, r: CRule, vals: readonly Value[]): Value | undefined {
  const fr: Frame = new Array(r.nslots);
  for (let b = -1; b < r.elses.length; b++) {
    const br = b < 0 ? r : (r.elses[b] as CRule);
    if (!indexed(ev, br, vals)) continue;
    let got: Value | undefined;
    const bound = bindArgs(br.args, vals, fr);
    if (bound === undefined) {
      unifyItems(ev, br.args, vals as Value[], 0, fr, () => {
        got = branchValue(ev, br, fr);
        return false;
      });
    } else if (bound) {
      try {
        got = branchValue(ev, br, fr);
      } finally {
        for (const a of br.args) if (a.type === 'var' && a.slot !== undefined) fr[a.slot] = undefined;
      }
    }
    if (got !== undefined) {
      valueBranch = br;
      return got;
    }
  }
  return undefined;
}

/** The branch definitionValue's last value came from (where a conflict is reported). */
let valueBranch: CRule | undefined;

/** A default function's value for these arguments. */
function defaultValue(ev: Evaluator, d: CRule, vals: readonly Value[]): Value | undefined {
  const fr: Frame = new Array(d.nslots);
  let dv: Value | undefined;
  unifyItems(ev, d.args, vals as Value[], 0, fr, () =>
    ev.evalTerm(d.value, fr, (v) => {
      dv = v;
      return true;
    }),
  );
  return dv;
}

/** The memo of a function's results under the current `with` state. */
function funcMemo(ev: Evaluator, path: string): FuncMemo {
  const cache = (ev.s.funcCache ??= new Map());
  let memo = cache.get(path);
  if (memo === undefined) cache.set(path, (memo = new FuncMemo()));
  return memo;
}

/**
 * The value of a function whose arguments match at most one definition besides its default
 * (`candidates`, from candidateRules): computed whole, memoised, without continuations.
 */
export function funcValue(ev: Evaluator, path: string, rules: readonly CRule[], candidates: readonly CRule[], vals: Value[]): Value | undefined {
  const memo = funcMemo(ev, path);
  const cached = memo.get(vals);
  if (cached !== undefined) return cached === UNDEF ? undefined : cached;
  if (ev.depth > 2000) ev.budget.exceeded('depth');
  const outerDepth = ev.depth;
  ev.depth++;
  const outer = ev.budget.rule;
  if (rules.length > 0) ev.budget.rule = rules[0];
  let result: Value | undefined;
  try {
    let def: CRule | undefined;
    for (const r of candidates) {
      if (r.isDefault) def = r;
      else if (result === undefined) result = definitionValue(ev, r, vals);
    }
    if (result === undefined && def) result = defaultValue(ev, def, vals);
  } finally {
    ev.depth = outerDepth;
    ev.budget.rule = outer;
  }
  memo.set(vals, result === undefined ? UNDEF : result);
  return result;
}

/**
 * Calls a function as OPA does: the caller's continuation runs on the first value, before the
 * remaining definitions are evaluated and checked for a conflict (so an error raised after the
 * call comes before a conflict among the function's definitions).
 */
/** `asRule`: a zero-argument function read as a document (`data.pkg.f`), whose conflict OPA words as a rule's. */
export function callFunc(ev: Evaluator, path: string, vals: Value[], loc: Loc, k: VK, asRule = false): boolean {
  const rules = ev.policy.funcs.get(path);
  if (!rules) throw new RegoError('rego_type_error', `undefined function ${path}`, loc);
  const memo = funcMemo(ev, path);
  const cached = memo.get(vals);
  if (cached !== undefined) return cached === UNDEF ? false : k(cached);
  let result: Value | undefined;
  let stop = false;
  if (ev.depth > 2000) ev.budget.exceeded('depth');
  const outerDepth = ev.depth;
  ev.depth++;
  const outer = ev.budget.rule;
  if (rules.length > 0) ev.budget.rule = rules[0];
  const first = (v: Value): void => {
    result = v;
    memo.set(vals, v);
    const depth = ev.depth;
    const rule = ev.budget.rule;
    ev.depth = outerDepth;
    ev.budget.rule = outer;
    try {
      stop = k(v);
    } finally {
      ev.depth = depth;
      ev.budget.rule = rule;
    }
  };
  try {
    let def: CRule | undefined;
    // asked only once a value is known and another definition is left to try
    let earlyExit: boolean | undefined;
    let conflicts: ConflictingValue[] | undefined;
    let firstAt: Loc | undefined;
    for (const r of candidateRules(rules, vals)) {
      if (r.isDefault) {
        def = r;
        continue;
      }
      if (result !== undefined && (earlyExit ??= agreeOnConstant(ev, rules, vals))) break;
      const got = definitionValue(ev, r, vals);
      if (got === undefined) continue;
      if (result === undefined) {
        firstAt = (valueBranch ?? r).loc;
        first(got);
      } else if (!valueEquals(result, got)) (conflicts ??= [[result, firstAt ?? r.loc]]).push([got, (valueBranch ?? r).loc]);
    }
    // as OPA: every definition is tried, each adding its value when it differs from the first one
    if (conflicts !== undefined) throw conflictError(asRule ? 'rule' : 'function', path, conflicts);
    if (result === undefined && def) {
      const dv = defaultValue(ev, def, vals);
      if (dv !== undefined) first(dv);
    }
  } finally {
    ev.depth = outerDepth;
    ev.budget.rule = outer;
  }
  if (result === undefined) memo.set(vals, UNDEF);
  return stop;
}
