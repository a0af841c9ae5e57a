/**
 * Calls: builtins (their errors undefined unless strict), `print`, replacements under `with`, and
 * user functions (every definition and `else` branch tried, conflicting outputs an error, results
 * memoised per argument).
 */
import { type VK, type Frame, UNDEF, type WithState, printValue } from './eval-support.ts';
import { ArgMemo, bindArgs, candidateRules, callsFirst } from './eval-plans.ts';
import type { CallTarget, Loc, Term } from './ast.ts';
import { lookupBuiltin, BuiltinError } from './builtins/registry.ts';
import type { CRule } from './compiler.ts';
import { funcOutputMarks } from './compiler-order.ts';
import { RegoError } from './errors.ts';
import { type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';
import { unifyValue, unifyItems } from './eval-unify.ts';
import { indexed, agreeOnConstant } from './eval-data.ts';

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

/** A function branch's value with its parameters bound: undefined when its body fails, an error when its solutions disagree. */
function branchValue(ev: Evaluator, br: CRule, fr: Frame): Value | undefined {
  let got: Value | undefined;
  ev.evalBody(br.body, 0, fr, () =>
    ev.evalTerm(br.value, fr, (v) => {
      if (got === undefined) got = v;
      else if (!valueEquals(got, v)) {
        throw new RegoError('eval_conflict_error', 'functions must not produce multiple outputs for same inputs', br.loc);
      }
      return false;
    }),
  );
  return got;
}

/**
 * Calls a function as OPA does: the caller's continuation runs on the first value, before the
 * remaining definitions are evaluated and checked for a conflict (so an error raised after the
 * call comes before a conflict among the function's definitions).
 */
export function callFunc(ev: Evaluator, path: string, vals: Value[], loc: Loc, k: VK): boolean {
  const rules = ev.policy.funcs.get(path);
  if (!rules) throw new RegoError('rego_type_error', `undefined function ${path}`, loc);
  const st = ev.s;
  let memo = (st.funcCache ??= new Map()).get(path);
  if (memo === undefined) st.funcCache.set(path, (memo = new ArgMemo()));
  for (const v of vals) memo = memo.next(v);
  const cached = memo.result;
  if (cached !== undefined) return cached === UNDEF ? false : k(cached);
  let result: Value | undefined;
  let stop = false;
  const entry = memo;
  const first = (v: Value): void => {
    result = v;
    entry.result = v;
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
  if (ev.depth > 2000) ev.budget.exceeded('depth');
  const outerDepth = ev.depth;
  ev.depth++;
  const outer = ev.budget.rule;
  if (rules.length > 0) ev.budget.rule = rules[0];
  try {
    let def: CRule | undefined;
    // asked only once a value is known and another definition is left to try
    let earlyExit: boolean | undefined;
    for (const r of candidateRules(rules, vals)) {
      if (r.isDefault) {
        def = r;
        continue;
      }
      if (result !== undefined && (earlyExit ??= agreeOnConstant(ev, rules, vals))) break;
      const fr: Frame = new Array(r.nslots);
      for (let b = -1; b < r.elses.length; b++) {
        const br = b < 0 ? r : (r.elses[b] as CRule);
        if (!indexed(ev, br, vals)) continue;
        let got: Value | undefined;
        const bound = bindArgs(br.args, vals, fr);
        if (bound === undefined) {
          unifyItems(ev, br.args, vals, 0, fr, () => {
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
        if (got === undefined) continue;
        if (result === undefined) first(got);
        else if (!valueEquals(result, got)) {
          throw new RegoError('eval_conflict_error', 'functions must not produce multiple outputs for same inputs', br.loc);
        }
        break;
      }
    }
    if (result === undefined && def) {
      const d = def;
      const fr: Frame = new Array(d.nslots);
      let dv: Value | undefined;
      unifyItems(ev, d.args, vals, 0, fr, () =>
        ev.evalTerm(d.value, fr, (v) => {
          dv = v;
          return true;
        }),
      );
      if (dv !== undefined) first(dv);
    }
  } finally {
    ev.depth = outerDepth;
    ev.budget.rule = outer;
  }
  if (result === undefined) entry.result = UNDEF;
  return stop;
}
