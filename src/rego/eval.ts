/**
 * Evaluator: continuation-passing backtracking over compiled bodies. Variables live in per-rule frames
 * (arrays indexed by slot); a binding is undone when its continuation returns, so a body leaves its frame as
 * it found it. A continuation returns `true` to stop the enumeration early.
 *
 * This file holds the evaluator's state (limits, the current `with` state, builtin context), queries,
 * bodies (their direct prefix on a trail, the rest with continuations), literals, negation,
 * expressions and terms: they recurse through one another and share the trail and the negation flag.
 * The rest are functions taking the evaluator, one concept a file: `eval-with.ts`, `eval-unify.ts`,
 * `eval-refs.ts`, `eval-composites.ts` (comprehensions and collection literals), `eval-direct.ts`
 * (single-valued terms without continuations), `eval-data.ts` (documents under `data`, computed once
 * per evaluation and again under `with`, which swaps the caches), `eval-branch.ts` (one branch of a
 * rule or function), `eval-calls.ts`; the builtin context in `eval-context.ts`, shapes and helpers in
 * `eval-support.ts` and `eval-plans.ts`, the options in `eval-options.types.ts`. So the members those
 * read are not private.
 */
import { type K, type VK, type Frame, type WithState, GENERAL, EMPTY_OBJECT, childOf } from './eval-support.ts';
import { checkBaseConflicts } from './base-conflicts.ts';
import { EvalContext } from './eval-context.ts';
import { evalRef } from './eval-refs.ts';
import { comprehension, evalComposite } from './eval-composites.ts';
import type { Expr, Literal, Term } from './ast.ts';
import type { BuiltinContext } from './builtins/registry.ts';
import type { CompiledPolicy, CompiledQuery, DataNode } from './compiler.ts';
import type { EvalOptions, SharedDocs } from './eval-options.types.ts';
import { RegoError } from './errors.ts';
import { Budget, mergeLimits } from './limits.ts';
import { ObjectValue, SetValue, type Value } from './value.ts';
import { evalWith } from './eval-with.ts';
import { directUnify, unify, unifyDirect, unifyValue } from './eval-unify.ts';
import { direct, directCall } from './eval-direct.ts';
import { evalData, nodeValue, nodeDoc } from './eval-data.ts';
import { evalCall } from './eval-calls.ts';

export type { EvalOptions, SharedDocs } from './eval-options.types.ts';

export class Evaluator {
  s: WithState;
  readonly budget: Budget;
  readonly strict: boolean;
  depth = 0;
  private readonly keepSingleFalse: boolean;

  constructor(
    readonly policy: CompiledPolicy,
    opts: EvalOptions,
  ) {
    this.s = {
      input: opts.input,
      base: opts.data ?? EMPTY_OBJECT,
      cache: new Map(),
      valueCache: undefined,
      funcCache: undefined,
      funcOverrides: undefined,
      nodeOverrides: undefined,
    };
    this.budget = new Budget(mergeLimits(opts.limits, opts.maxSteps, opts.deadlineMs));
    this.strict = opts.strict ?? false;
    this.keepSingleFalse = opts.keepSingleFalse ?? false;
    this.opts = opts;
    this.top = this.s;
    this.shared = opts.shared !== undefined && opts.shared.data === this.s.base ? opts.shared : undefined;
    checkBaseConflicts(policy.root, opts.data);
  }

  /** The state outside every `with`: the only one whose documents may be shared. */
  readonly top: WithState;
  readonly shared: SharedDocs | undefined;

  private readonly opts: EvalOptions;
  private ctxCache: BuiltinContext | undefined;

  /** The builtin context, created on the first builtin call. */
  get ctx(): BuiltinContext {
    return (this.ctxCache ??= new EvalContext(this.strict, this.opts.now ?? 0n, this.opts.random, this.opts.print, this.budget));
  }

  // ------------------------------------------------------------ limits
  private tick(): void {
    this.budget.tick();
  }

  // ------------------------------------------------------------ queries
  /** Runs a compiled query; calls `onSolution` per solution with the frame and expression values. */
  runQuery(q: CompiledQuery, onSolution: (f: Frame, exprs: Value[]) => boolean | void): void {
    const f: Frame = new Array(q.nslots);
    const exprs: Value[] = new Array(q.body.length);
    this.guard(() =>
      this.queryBody(q.body, 0, f, exprs, () => onSolution(f, exprs) === true),
    );
  }

  private guard(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      if (e instanceof RangeError && /call stack/i.test(e.message)) {
        this.budget.exceeded('depth', 'stack exhausted');
      }
      throw e;
    }
  }

  private queryBody(body: Literal[], i: number, f: Frame, exprs: Value[], k: K): boolean {
    if (i === body.length) return k();
    const l = body[i] as Literal;
    if (!l.negated && l.expr.kind === 'term') {
      // A term's value is the expression's value, also under `with` (OPA: `data.p with input as x`
      // gives data.p's value, not true).
      const term = l.expr.term;
      const statement = (next: K): boolean =>
        this.evalTerm(term, f, (v) => {
          if (v === false && !(this.keepSingleFalse && body.length === 1)) return false;
          exprs[i] = v;
          return next();
        });
      const rest = (): boolean => this.queryBody(body, i + 1, f, exprs, k);
      if (l.withs.length === 0) {
        this.tick();
        return statement(rest);
      }
      return evalWith(this, l, f, 0, [], rest, statement);
    }
    return this.evalLiteral(l, f, () => {
      exprs[i] = true;
      return this.queryBody(body, i + 1, f, exprs, k);
    });
  }

  /** Evaluates the document at a data path (e.g. an entrypoint), or undefined. */
  evalDataPath(path: string[]): Value | undefined {
    let out: Value | undefined;
    // fast path: descend rule nodes by name, then plain values
    let node: DataNode = this.policy.root;
    let base: Value | undefined = this.s.base;
    let i = 0;
    for (; i < path.length; i++) {
      if (node.rules.length || node.funcs.length) break;
      const seg = path[i] as string;
      const child = node.children.get(seg);
      base = base === undefined ? undefined : childOf(base, seg, true);
      if (!child || !child.hasRules) {
        for (let j = i + 1; j < path.length && base !== undefined; j++) base = childOf(base, path[j] as string, true);
        return base;
      }
      node = child;
    }
    if (i === path.length || node.rules.length) {
      this.guard(() => {
        out = i === path.length ? nodeValue(this, node, base) : nodeDoc(this, node, base);
      });
      for (let j = i; j < path.length && out !== undefined; j++) out = childOf(out, path[j] as string);
      return out;
    }
    const terms: Term[] = path.map((p) => ({ type: 'value', value: p, loc: { file: '', line: 0, col: 0 } }));
    this.guard(() => {
      evalData(this, this.policy.root, this.s.base, terms, 0, [], (v) => {
        out = v;
        return true;
      });
    });
    return out;
  }

  // ------------------------------------------------------------ bodies and literals
  /**
   * Slots bound by the direct literals of the bodies being evaluated, innermost last: a body unbinds
   * down to where it started before it returns, so it leaves its frame as it found it.
   */
  private readonly trail: number[] = [];

  evalBody(body: Literal[], i: number, f: Frame, k: K): boolean {
    if (i === body.length) return k();
    const mark = this.trail.length;
    try {
      const j = this.directPrefix(body, i, f);
      if (j < 0) return false;
      if (j === body.length) return k();
      return this.evalLiteral(body[j] as Literal, f, this.restOf(body, j + 1, f, k));
    } finally {
      this.unbindTo(mark, f);
    }
  }

  /**
   * Runs body[i..] while each literal has at most one solution (direct terms, assignments of direct
   * terms, negations): no continuation per literal, the bindings kept on the trail. Answers -1 when a
   * literal fails, body.length when all held, or the index of the first literal left to the general
   * path (not yet evaluated). The caller unbinds the trail down to its mark.
   */
  directPrefix(body: readonly Literal[], i: number, f: Frame): number {
    for (; i < body.length; i++) {
      const l = body[i] as Literal;
      if (l.withs.length) return i;
      const e = l.expr;
      if (l.negated) {
        this.tick();
        if (this.negation(e, f)) return -1;
        continue;
      }
      switch (e.kind) {
        case 'term': {
          const v = direct(this, e.term, f);
          if (v === GENERAL) return i;
          this.tick();
          if (v === undefined || v === false) return -1;
          continue;
        }
        case 'unify':
        case 'assign': {
          const r = directUnify(this, e.left, e.right, f);
          if (r === GENERAL) return i;
          this.tick();
          if (r === false) return -1;
          continue;
        }
        case 'some':
          this.tick();
          continue;
        default:
          return i;
      }
    }
    return i;
  }

  /** Binds an unbound slot for the body being run directly (undone by its unbindTo). */
  bind(f: Frame, slot: number, v: Value): void {
    f[slot] = v;
    this.trail.push(slot);
  }

  /** Where the trail is now: what a caller of directPrefix unbinds down to. */
  trailMark(): number {
    return this.trail.length;
  }

  /** Evaluates body[j..] then k where body[j] is a literal directPrefix left to the general path. */
  evalBodyAt(body: Literal[], j: number, f: Frame, k: K): boolean {
    return this.evalLiteral(body[j] as Literal, f, this.restOf(body, j + 1, f, k));
  }

  /** Unbinds the slots the trail holds above `mark`. */
  unbindTo(mark: number, f: Frame): void {
    const trail = this.trail;
    while (trail.length > mark) f[trail.pop() as number] = undefined;
  }

  /**
   * The continuation that evaluates body[i..] then k. The continuation of each literal left to the
   * general path is made on its first solution and reused for the rest, so a literal iterating many
   * elements does not make a closure per element for every literal after it.
   */
  private restOf(body: Literal[], i: number, f: Frame, k: K): K {
    if (i === body.length) return k;
    const nexts: (K | undefined)[] = [];
    return () => {
      const mark = this.trail.length;
      try {
        const j = this.directPrefix(body, i, f);
        if (j < 0) return false;
        if (j === body.length) return k();
        return this.evalLiteral(body[j] as Literal, f, (nexts[j] ??= this.restOf(body, j + 1, f, k)));
      } finally {
        this.unbindTo(mark, f);
      }
    };
  }

  private evalLiteral(l: Literal, f: Frame, k: K): boolean {
    this.tick();
    if (l.withs.length) return evalWith(this, l, f, 0, [], k);
    if (l.negated) return this.negation(l.expr, f) ? false : k();
    return this.evalExpr(l.expr, f, k);
  }

  /** Set by `markFound` while `negation` enumerates its expression. */
  private negFound = false;
  /** Made on the first negation the direct path cannot answer. */
  private markFound: K | undefined;

  /** Whether an expression has a solution (no closure per call: the flag is saved and restored). */
  private negation(e: Expr, f: Frame): boolean {
    if (e.kind === 'term') {
      const v = direct(this, e.term, f);
      if (v !== GENERAL) return v !== undefined && v !== false;
    }
    const outer = this.negFound;
    this.negFound = false;
    try {
      this.evalExpr(
        e,
        f,
        (this.markFound ??= () => {
          this.negFound = true;
          return false; // every solution is still enumerated, as OPA does (an error in a later one surfaces)
        }),
      );
      return this.negFound;
    } finally {
      this.negFound = outer;
    }
  }

  evalLiteralCore(l: Literal, f: Frame, k: K): boolean {
    if (l.negated) return this.negation(l.expr, f) ? false : k();
    return this.evalExpr(l.expr, f, k);
  }

  private evalExpr(e: Expr, f: Frame, k: K): boolean {
    switch (e.kind) {
      case 'term': {
        const v = direct(this, e.term, f);
        if (v !== GENERAL) return v === undefined || v === false ? false : k();
        return this.evalTerm(e.term, f, (x) => (x === false ? false : k()));
      }
      case 'unify':
      case 'assign': {
        const done = unifyDirect(this, e.left, e.right, f, k);
        return done === undefined ? unify(this, e.left, e.right, f, k) : done;
      }
      case 'some':
        return k();
      case 'somein':
        return this.evalTerm(e.coll, f, (c) =>
          this.iterate(c, (key, val) =>
            e.key ? unifyValue(this, e.key, key, f, () => unifyValue(this, e.value, val, f, k)) : unifyValue(this, e.value, val, f, k),
          ),
        );
      case 'every':
        return this.evalTerm(e.domain, f, (d) => {
          if (!(Array.isArray(d) || d instanceof ObjectValue || d instanceof SetValue)) return false;
          let allOk = true;
          this.iterate(d, (key, val) => {
            let ok = false;
            const run = (): boolean => this.evalBody(e.body, 0, f, () => (ok = true));
            if (e.key) unifyValue(this, e.key, key, f, () => unifyValue(this, e.value, val, f, run));
            else unifyValue(this, e.value, val, f, run);
            if (!ok) {
              allOk = false;
              return true;
            }
            return false;
          });
          return allOk ? k() : false;
        });
    }
  }

  /** Calls fn(key, value) per element of a collection, in order, until fn returns true. */
  iterate(c: Value, fn: (k: Value, v: Value) => boolean): boolean {
    if (Array.isArray(c)) {
      for (let i = 0; i < c.length; i++) {
        this.tick();
        if (fn(i, c[i] as Value)) return true;
      }
    } else if (c instanceof ObjectValue) {
      for (const [k, v] of c.entries()) {
        this.tick();
        if (fn(k, v)) return true;
      }
    } else if (c instanceof SetValue) {
      for (const v of c.values()) {
        this.tick();
        if (fn(v, v)) return true;
      }
    }
    return false;
  }

  // ------------------------------------------------------------ terms
  evalTerm(t: Term, f: Frame, k: VK): boolean {
    switch (t.type) {
      case 'value':
        return k(t.value);
      case 'var': {
        if (t.slot === undefined) {
          if (t.name === 'input') return this.s.input === undefined ? false : k(this.s.input);
          if (t.name === 'data') {
            const v = nodeValue(this, this.policy.root, this.s.base);
            return v === undefined ? false : k(v);
          }
          throw new RegoError('rego_compile_error', `unresolved var ${t.name}`, t.loc);
        }
        const v = f[t.slot];
        if (v === undefined) throw new RegoError('rego_unsafe_var_error', `var ${t.name} is unsafe`, t.loc);
        return k(v);
      }
      case 'ref':
        return evalRef(this, t, f, k);
      case 'array':
      case 'set':
      case 'object': {
        const v = direct(this, t, f);
        if (v !== GENERAL) return v === undefined ? false : k(v);
        return evalComposite(this, t, f, k);
      }
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
        return k(comprehension(this, t, f));
      case 'call': {
        const v = directCall(this, t, f);
        if (v !== GENERAL) return v === undefined ? false : k(v);
        return evalCall(this, t, f, k);
      }
    }
  }

  /** Evaluates items into acc[0..]; `order` (from callsFirst) is the order to evaluate them in. */
  evalItems(items: Term[], f: Frame, i: number, acc: Value[], k: (vals: Value[]) => boolean, order?: readonly number[]): boolean {
    if (i === items.length) return k(acc);
    const j = order === undefined ? i : (order[i] as number);
    return this.evalTerm(items[j] as Term, f, (v) => {
      acc[j] = v;
      return this.evalItems(items, f, i + 1, acc, k, order);
    });
  }

}
