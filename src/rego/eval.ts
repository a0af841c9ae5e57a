/**
 * Evaluator: continuation-passing backtracking over compiled bodies. Variables live in per-rule frames
 * (arrays indexed by slot); a binding is undone when its continuation returns, so a body leaves its frame as
 * it found it. A continuation returns `true` to stop the enumeration early.
 *
 * Documents under `data` merge the base document (the store) with the virtual documents of rules; a rule's
 * document is computed once per evaluation (and again under `with`, which swaps the caches).
 */
import { type K, type VK, type Frame, UNDEF, type WithState, GENERAL, type Direct, EMPTY_OBJECT, childOf, isUnboundVar, isPattern, printValue, mergeObjects, refPath, childPath, patchValue } from './eval-support.ts';
import { dataRefPlan, ArgMemo, bindArgs, candidateRules, hasOneDefinition, callsFirst, dynamicKeys, objectPlan } from './eval-plans.ts';
import { checkBaseConflicts } from './base-conflicts.ts';
import { mulberry32 } from './prng.ts';
import type { CallTarget, Expr, Literal, Loc, Term } from './ast.ts';
import { lookupBuiltin, BuiltinError, type BuiltinContext } from './builtins/registry.ts';
import type { CRule, CompiledPolicy, CompiledQuery, DataNode } from './compiler.ts';
import { funcOutputMarks } from './compiler-order.ts';
import { WITH_FUNC_VALUES } from './compiler-resolve.ts';
import { RegoError } from './errors.ts';
import { branchConditions } from './ruleindex.ts';
import { Budget, mergeLimits, type RegoLimits } from './limits.ts';
import { ObjectValue, SetValue, type Value, valueEquals } from './value.ts';

export interface EvalOptions {
  readonly input?: Value;
  /** Base document (`data` from the store), already converted with `fromJSON`. */
  readonly data?: Value;
  readonly strict?: boolean;
  /** Step budget; evaluation stops with REGO_LIMIT_EXCEEDED when exceeded. */
  readonly maxSteps?: number;
  /** Wall-clock budget in milliseconds from the start of the evaluation. */
  readonly deadlineMs?: number;
  /** Deadline, steps and bytes built by builtins (wins over `maxSteps` / `deadlineMs`); see limits.ts. */
  readonly limits?: RegoLimits;
  /** Clock for time.now_ns, in ns since the epoch. */
  readonly now?: bigint;
  /** Random source in [0, 1) (defaults to a fixed-seed generator). */
  readonly random?: () => number;
  /** Sink of print() output. */
  readonly print?: (line: string) => void;
  /** A query made of one expression yields its value even when false (regorus's convention). */
  readonly keepSingleFalse?: boolean;
  /** Rule documents shared across evaluations with the same `data` (see `SharedDocs`). */
  readonly shared?: SharedDocs;
}

/**
 * Rule documents shared across evaluations: the documents of `nodes` (rule nodes whose value depends on
 * `data` alone; data-only.ts finds them) are computed once and reused by every evaluation whose
 * `data` is this same `data` value (by identity), outside any `with`. A new data document needs a new
 * SharedDocs.
 */
export interface SharedDocs {
  readonly nodes: ReadonlySet<DataNode>;
  readonly data: Value;
  readonly docs: Map<DataNode, Value | undefined>;
}
export class Evaluator {
  private s: WithState;
  private readonly budget: Budget;
  private readonly strict: boolean;
  private depth = 0;
  private readonly keepSingleFalse: boolean;

  constructor(
    private readonly policy: CompiledPolicy,
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
  private readonly top: WithState;
  private readonly shared: SharedDocs | undefined;

  private readonly opts: EvalOptions;
  private ctxCache: BuiltinContext | undefined;

  /** The builtin context, created on the first builtin call. */
  private get ctx(): BuiltinContext {
    if (!this.ctxCache) {
      const now = this.opts.now ?? 0n;
      this.ctxCache = {
        strict: this.strict,
        now: () => now,
        random: this.opts.random ?? mulberry32(0),
        cache: new Map(),
        print: this.opts.print ?? (() => {}),
        location: '',
        budget: this.budget,
      };
    }
    return this.ctxCache;
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
        this.termStatement(term, f, (v) => {
          if (v === false && !(this.keepSingleFalse && body.length === 1)) return false;
          exprs[i] = v;
          return next();
        });
      const rest = (): boolean => this.queryBody(body, i + 1, f, exprs, k);
      if (l.withs.length === 0) {
        this.tick();
        return statement(rest);
      }
      return this.evalWith(l, f, 0, [], rest, statement);
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
        out = i === path.length ? this.nodeValue(node, base) : this.nodeDoc(node, base);
      });
      for (let j = i; j < path.length && out !== undefined; j++) out = childOf(out, path[j] as string);
      return out;
    }
    const terms: Term[] = path.map((p) => ({ type: 'value', value: p, loc: { file: '', line: 0, col: 0 } }));
    this.guard(() => {
      this.evalData(this.policy.root, this.s.base, terms, 0, [], (v) => {
        out = v;
        return true;
      });
    });
    return out;
  }

  // ------------------------------------------------------------ bodies and literals
  evalBody(body: Literal[], i: number, f: Frame, k: K): boolean {
    if (i === body.length) return k();
    return this.evalLiteral(body[i] as Literal, f, this.restOf(body, i + 1, f, k));
  }

  /**
   * The continuation that evaluates body[i..] then k. Each literal's own continuation is made on
   * its first solution and reused for the rest: a literal iterating 100,000 elements used to make
   * a closure per element for every literal after it; a body that fails early makes none.
   */
  private restOf(body: Literal[], i: number, f: Frame, k: K): K {
    if (i === body.length) return k;
    const lit = body[i] as Literal;
    let next: K | undefined;
    return () => this.evalLiteral(lit, f, (next ??= this.restOf(body, i + 1, f, k)));
  }

  private evalLiteral(l: Literal, f: Frame, k: K): boolean {
    this.tick();
    if (l.withs.length) return this.evalWith(l, f, 0, [], k);
    if (l.negated) return this.negation(l.expr, f) ? false : k();
    return this.evalExpr(l.expr, f, k);
  }

  /** Set by `markFound` while `negation` enumerates its expression. */
  private negFound = false;
  private readonly markFound: K = () => {
    this.negFound = true;
    return false; // every solution is still enumerated, as OPA does (an error in a later one surfaces)
  };

  /** Whether an expression has a solution (no closure per call: the flag is saved and restored). */
  private negation(e: Expr, f: Frame): boolean {
    const outer = this.negFound;
    this.negFound = false;
    try {
      this.evalExpr(e, f, this.markFound);
      return this.negFound;
    } finally {
      this.negFound = outer;
    }
  }

  private evalLiteralCore(l: Literal, f: Frame, k: K): boolean {
    if (l.negated) return this.negation(l.expr, f) ? false : k();
    return this.evalExpr(l.expr, f, k);
  }

  /** Evaluates a literal under its `with` modifiers; `core` is what runs under them (the literal by default). */
  private evalWith(l: Literal, f: Frame, i: number, vals: Value[], k: K, core?: (k: K) => boolean): boolean {
    if (i < l.withs.length) {
      const w = l.withs[i] as Literal['withs'][number];
      // a function-valued replacement: with f as g
      const tv = w.value;
      const asTarget = this.withTargetFunc(tv);
      if (asTarget) {
        vals[i] = null;
        (vals as unknown as Record<string, unknown>)[`t${i}`] = asTarget;
        return this.evalWith(l, f, i + 1, vals, k, core);
      }
      return this.evalTerm(tv, f, (v) => {
        vals[i] = v;
        return this.evalWith(l, f, i + 1, vals, k, core);
      });
    }
    const saved = this.s;
    const inner: WithState = {
      ...saved,
      cache: new Map(),
      valueCache: undefined,
      funcCache: undefined,
    };
    l.withs.forEach((w, j) => {
      const t = w.target;
      const target = (vals as unknown as Record<string, CallTarget | undefined>)[`t${j}`];
      if (t.type === 'call' && t.target) {
        const key = t.target.kind === 'builtin' ? t.target.name : t.target.path;
        inner.funcOverrides = new Map(inner.funcOverrides ?? []);
        inner.funcOverrides.set(key, target ? { kind: 'target', target } : { kind: 'value', value: vals[j] as Value });
        return;
      }
      const path = refPath(t);
      if (!path) throw new RegoError('rego_compile_error', 'invalid with target', w.loc);
      const v = vals[j] as Value;
      if (path[0] === 'input') {
        inner.input = path.length === 1 ? v : patchValue(inner.input ?? EMPTY_OBJECT, path.slice(1), v);
      } else {
        const rest = path.slice(1);
        // the deepest rule node on the path is overridden; the base document is patched
        let node: DataNode | undefined = this.policy.root;
        let i2 = 0;
        for (; i2 < rest.length && node; i2++) {
          if (node.rules.length) break;
          node = node.children.get(rest[i2] as string);
        }
        if (node && (i2 === rest.length || node.rules.length)) {
          const over = new Map(inner.nodeOverrides ?? []);
          if (i2 === rest.length) over.set(node, v);
          else {
            const doc = this.withState(saved, () => this.nodeDoc(node as DataNode, childPath(saved.base, rest.slice(0, i2))));
            over.set(node, patchValue(doc ?? EMPTY_OBJECT, rest.slice(i2), v));
          }
          inner.nodeOverrides = over;
          // overriding a node also hides its children's rules
        }
        inner.base = rest.length === 0 ? v : patchValue(inner.base, rest, v);
      }
    });
    this.s = inner;
    try {
      const under = core ?? ((next: K): boolean => this.evalLiteralCore(l, f, next));
      return under(() => {
        this.s = saved;
        try {
          return k();
        } finally {
          this.s = inner;
        }
      });
    } finally {
      this.s = saved;
    }
  }

  private withTargetFunc(t: Term): CallTarget | undefined {
    if (t.type === 'call' && t.args.length === 0 && t.target && WITH_FUNC_VALUES.has(t)) return t.target;
    if (t.type === 'var' && t.slot === undefined && t.name !== 'input' && t.name !== 'data' && lookupBuiltin(t.name)) {
      return { kind: 'builtin', name: t.name };
    }
    if (t.type === 'ref' && t.head.type === 'var' && t.head.slot === undefined && t.head.name === 'data') {
      const p = refPath(t);
      if (p && this.policy.funcs.has(p.join('.'))) return { kind: 'func', path: p.join('.') };
    }
    if (t.type === 'ref' && t.head.type === 'var' && t.head.slot === undefined && t.head.name !== 'input' && t.head.name !== 'data') {
      const p = refPath(t);
      if (p && lookupBuiltin(p.join('.'))) return { kind: 'builtin', name: p.join('.') };
    }
    return undefined;
  }

  private withState<T>(st: WithState, fn: () => T): T {
    const cur = this.s;
    this.s = st;
    try {
      return fn();
    } finally {
      this.s = cur;
    }
  }

  private evalExpr(e: Expr, f: Frame, k: K): boolean {
    switch (e.kind) {
      case 'term': {
        const v = this.direct(e.term, f);
        if (v !== GENERAL) return v === undefined || v === false ? false : k();
        return this.termStatement(e.term, f, (x) => (x === false ? false : k()));
      }
      case 'unify':
      case 'assign': {
        const done = this.unifyDirect(e.left, e.right, f, k);
        return done === undefined ? this.unify(e.left, e.right, f, k) : done;
      }
      case 'some':
        return k();
      case 'somein':
        return this.evalTerm(e.coll, f, (c) =>
          this.iterate(c, (key, val) =>
            e.key ? this.unifyValue(e.key, key, f, () => this.unifyValue(e.value, val, f, k)) : this.unifyValue(e.value, val, f, k),
          ),
        );
      case 'every':
        return this.evalTerm(e.domain, f, (d) => {
          if (!(Array.isArray(d) || d instanceof ObjectValue || d instanceof SetValue)) return false;
          let allOk = true;
          this.iterate(d, (key, val) => {
            let ok = false;
            const run = (): boolean => this.evalBody(e.body, 0, f, () => (ok = true));
            if (e.key) this.unifyValue(e.key, key, f, () => this.unifyValue(e.value, val, f, run));
            else this.unifyValue(e.value, val, f, run);
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
  private iterate(c: Value, fn: (k: Value, v: Value) => boolean): boolean {
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

  /** A term used as a statement; calls with an output argument unify it with the result. */
  private termStatement(t: Term, f: Frame, k: VK): boolean {
    return this.evalTerm(t, f, k);
  }

  // ------------------------------------------------------------ unification
  private unify(a: Term, b: Term, f: Frame, k: K): boolean {
    const pa = isPattern(a, f);
    const pb = isPattern(b, f);
    if (pa && pb) {
      if (a.type === 'array' && b.type === 'array') {
        if (a.items.length !== b.items.length) return false;
        return this.unifyPairs(a.items, b.items, 0, f, k);
      }
      if (a.type === 'object' && b.type === 'object') {
        if (a.entries.length !== b.entries.length) return false;
        // match keys by value
        return this.evalTerm({ type: 'array', items: a.entries.map((e) => e[0]), loc: a.loc }, f, (ka) =>
          this.evalTerm({ type: 'array', items: b.entries.map((e) => e[0]), loc: b.loc }, f, (kb) => {
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
            return this.unifyPairs(ia, ib, 0, f, k);
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
    if (pa) return this.evalTerm(b, f, (v) => this.unifyValue(a, v, f, k));
    return this.evalTerm(a, f, (v) => this.unifyValue(b, v, f, k));
  }

  /**
   * `x := term` / `x = term` (either side) with x an unbound local and the term direct, or two
   * direct sides: bound without continuation closures. Undefined when the general path decides.
   */
  private unifyDirect(a: Term, b: Term, f: Frame, k: K): boolean | undefined {
    let slot: number | undefined;
    let other: Term;
    if (a.type === 'var' && a.slot !== undefined && f[a.slot] === undefined) {
      slot = a.slot;
      other = b;
    } else if (b.type === 'var' && b.slot !== undefined && f[b.slot] === undefined) {
      slot = b.slot;
      other = a;
    } else {
      if (isPattern(a, f) || isPattern(b, f)) return undefined;
      const x = this.direct(a, f);
      if (x === GENERAL) return undefined;
      if (x === undefined) return false;
      const y = this.direct(b, f);
      if (y === GENERAL) return undefined;
      return y !== undefined && valueEquals(x, y) ? k() : false;
    }
    if (isPattern(other, f)) return undefined;
    const v = this.direct(other, f);
    if (v === GENERAL) return undefined;
    if (v === undefined) return false;
    f[slot] = v;
    try {
      return k();
    } finally {
      f[slot] = undefined;
    }
  }

  private unifyPairs(as: Term[], bs: Term[], i: number, f: Frame, k: K): boolean {
    if (i === as.length) return k();
    return this.unify(as[i] as Term, bs[i] as Term, f, () => this.unifyPairs(as, bs, i + 1, f, k));
  }

  /** Unifies a term (possibly containing unbound vars) with a value. */
  unifyValue(t: Term, v: Value, f: Frame, k: K): boolean {
    switch (t.type) {
      case 'var': {
        if (t.slot === undefined) return this.evalTerm(t, f, (x) => (valueEquals(x, v) ? k() : false));
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
        return this.unifyItems(t.items, v, 0, f, k);
      case 'object': {
        if (!(v instanceof ObjectValue) || v.size !== t.entries.length) return false;
        return this.unifyEntries(t.entries, v, 0, f, k);
      }
      default:
        return this.evalTerm(t, f, (x) => (valueEquals(x, v) ? k() : false));
    }
  }

  private unifyItems(items: Term[], v: Value[], i: number, f: Frame, k: K): boolean {
    if (i === items.length) return k();
    return this.unifyValue(items[i] as Term, v[i] as Value, f, () => this.unifyItems(items, v, i + 1, f, k));
  }

  private unifyEntries(entries: [Term, Term][], v: ObjectValue, i: number, f: Frame, k: K): boolean {
    if (i === entries.length) return k();
    const [kt, vt] = entries[i] as [Term, Term];
    return this.evalTerm(kt, f, (key) => {
      const x = v.get(key);
      if (x === undefined) return false;
      return this.unifyValue(vt, x, f, () => this.unifyEntries(entries, v, i + 1, f, k));
    });
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
            const v = this.nodeValue(this.policy.root, this.s.base);
            return v === undefined ? false : k(v);
          }
          throw new RegoError('rego_compile_error', `unresolved var ${t.name}`, t.loc);
        }
        const v = f[t.slot];
        if (v === undefined) throw new RegoError('rego_unsafe_var_error', `var ${t.name} is unsafe`, t.loc);
        return k(v);
      }
      case 'ref':
        return this.evalRef(t, f, k);
      case 'array':
      case 'set':
      case 'object': {
        const v = this.direct(t, f);
        if (v !== GENERAL) return v === undefined ? false : k(v);
        return this.evalComposite(t, f, k);
      }
      case 'arraycompr': {
        const out: Value[] = [];
        this.evalBody(t.body, 0, f, () =>
          this.evalTerm(t.term, f, (v) => {
            out.push(v);
            return false;
          }),
        );
        return k(out);
      }
      case 'setcompr': {
        const out = new SetValue();
        this.evalBody(t.body, 0, f, () =>
          this.evalTerm(t.term, f, (v) => {
            out.add(v);
            return false;
          }),
        );
        return k(out.seal());
      }
      case 'objectcompr': {
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
        this.evalBody(t.body, 0, f, () =>
          valueFirst
            ? this.evalTerm(t.value, f, (v) => this.evalTerm(t.key, f, (key) => put(key, v)))
            : this.evalTerm(t.key, f, (key) => this.evalTerm(t.value, f, (v) => put(key, v))),
        );
        return k(out);
      }
      case 'call': {
        const v = this.directCall(t, f);
        if (v !== GENERAL) return v === undefined ? false : k(v);
        return this.evalCall(t, f, k);
      }
    }
  }

  /** An array, set or object literal some of whose items have several values or need unifying. */
  private evalComposite(t: Term & { type: 'array' | 'set' | 'object' }, f: Frame, k: VK): boolean {
    if (t.type === 'array') return this.evalItems(t.items, f, 0, new Array(t.items.length), (vals) => k(vals.slice()), callsFirst(t.items, t.items));
    if (t.type === 'set') return this.evalItems(t.items, f, 0, new Array(t.items.length), (vals) => k(new SetValue(vals)), callsFirst(t.items, t.items));
    const { flat, order } = objectPlan(t);
    return this.evalItems(flat, f, 0, new Array(flat.length), (vals) => {
      const o = new ObjectValue();
      for (let i = 0; i < vals.length; i += 2) o.set(vals[i] as Value, vals[i + 1] as Value);
      return k(o);
    }, order);
  }

  /**
   * The value of a term that can have at most one, computed without continuations: a constant, a
   * bound variable, a ref from a bound variable or `input` through constant or bound keys, or a
   * deterministic builtin over such terms. Undefined when the term is undefined; GENERAL for any
   * other term (or an unbound variable), which the caller then evaluates with `evalTerm`. Nothing
   * here has an effect, so a GENERAL answer after some work is simply redone by the general path.
   * Why: a body over 100,000 elements made half a dozen closures per element for `x.a > 5`.
   */
  private direct(t: Term, f: Frame): Direct {
    switch (t.type) {
      case 'value':
        return t.value;
      case 'var': {
        if (t.slot === undefined) return t.name === 'input' ? this.s.input : GENERAL;
        const v = f[t.slot];
        return v === undefined ? GENERAL : v;
      }
      case 'ref': {
        const head = t.head;
        // ref and call keys are evaluated before the head is read (evalRef)
        if (head.type !== 'var' || dynamicKeys(t) !== undefined) return GENERAL;
        let v: Value | undefined;
        if (head.slot !== undefined) {
          v = f[head.slot];
          if (v === undefined) return GENERAL;
        } else if (head.name === 'input') {
          v = this.s.input;
          if (v === undefined) return undefined;
        } else if (head.name === 'data') {
          return this.directData(t, f);
        } else return GENERAL;
        for (const p of t.path) {
          let key: Value | undefined;
          if (p.type === 'value') key = p.value;
          else if (p.type === 'var' && p.slot !== undefined) key = f[p.slot];
          if (key === undefined) return GENERAL; // iteration or a computed key
          v = childOf(v, key);
          if (v === undefined) return undefined;
        }
        return v;
      }
      case 'call':
        return this.directCall(t, f);
      case 'array':
      case 'set': {
        const vals = this.directItems(t.items, callsFirst(t.items, t.items), f);
        if (vals === undefined || vals === GENERAL) return vals;
        return t.type === 'array' ? vals : new SetValue(vals);
      }
      case 'object': {
        const { flat, order } = objectPlan(t);
        const vals = this.directItems(flat, order, f);
        if (vals === undefined || vals === GENERAL) return vals;
        const o = new ObjectValue();
        for (let i = 0; i < vals.length; i += 2) o.set(vals[i] as Value, vals[i + 1] as Value);
        return o;
      }
      default:
        return GENERAL;
    }
  }

  /** Items of a composite literal, each direct, in the order `order` gives (callsFirst). */
  private directItems(items: readonly Term[], order: readonly number[] | undefined, f: Frame): Value[] | undefined | typeof GENERAL {
    const vals: Value[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) {
      const j = order === undefined ? i : (order[i] as number);
      const v = this.direct(items[j] as Term, f);
      if (v === undefined || v === GENERAL) return v;
      vals[j] = v;
    }
    return vals;
  }

  /**
   * A data ref whose constant prefix names a rule node (whose document is computed whole, without
   * continuations, and cached) or ends in the base document, followed by constant or bound keys.
   * Under `with` replacing a node, or past a function, the general path decides.
   */
  private directData(t: Term & { type: 'ref' }, f: Frame): Direct {
    if (this.s.nodeOverrides !== undefined) return GENERAL;
    const plan = dataRefPlan(t, this.policy.root);
    if (plan.kind === 'general') return GENERAL;
    let v: Value | undefined = this.s.base;
    for (let i = 0; i < plan.depth && v !== undefined; i++) v = childOf(v, (t.path[i] as Term & { type: 'value' }).value, true);
    if (plan.kind === 'rule') v = this.nodeDoc(plan.node, v);
    else if (plan.kind === 'value') v = this.nodeValue(plan.node, v);
    const store = plan.kind === 'base';
    for (let i = plan.depth; i < t.path.length; i++) {
      if (v === undefined) return undefined;
      const p = t.path[i] as Term;
      let key: Value | undefined;
      if (p.type === 'value') key = p.value;
      else if (p.type === 'var' && p.slot !== undefined) key = f[p.slot];
      if (key === undefined) return GENERAL; // iteration or a computed key
      v = childOf(v, key, store);
    }
    return v;
  }

  private directCall(t: Term & { type: 'call' }, f: Frame): Direct {
    const target = t.target;
    if (target?.kind === 'func') return this.directFunc(t, target.path, f);
    if (target?.kind !== 'builtin' || this.s.funcOverrides !== undefined) return GENERAL;
    const def = lookupBuiltin(target.name);
    // an output argument, a relation, print and nondeterministic builtins take the general path
    if (!def?.fn || def.nondeterministic || def.arity < 0 || t.args.length !== def.arity || target.name === 'print') return GENERAL;
    const vals: Value[] = new Array(t.args.length);
    const order = callsFirst(t.args, t);
    for (let i = 0; i < t.args.length; i++) {
      const j = order === undefined ? i : (order[i] as number);
      const v = this.direct(t.args[j] as Term, f);
      if (v === undefined || v === GENERAL) return v;
      vals[j] = v;
    }
    try {
      return def.fn(vals, this.ctx);
    } catch (e) {
      this.builtinFailed(e, t.loc);
      return undefined;
    }
  }

  /**
   * A call of a function with one definition (and its `else` branches), arguments direct: its value
   * is computed whole before the caller goes on, which for one definition is the order `callFunc`
   * keeps anyway (its first value is its only one). With several definitions the caller must run on
   * the first value before the others are checked for a conflict, so those take the general path.
   */
  private directFunc(t: Term & { type: 'call' }, path: string, f: Frame): Direct {
    if (this.s.funcOverrides !== undefined || funcOutputMarks.has(t)) return GENERAL;
    const rules = this.policy.funcs.get(path);
    if (rules === undefined) return GENERAL;
    const vals: Value[] = new Array(t.args.length);
    const order = callsFirst(t.args, t);
    for (let i = 0; i < t.args.length; i++) {
      const j = order === undefined ? i : (order[i] as number);
      const v = this.direct(t.args[j] as Term, f);
      if (v === undefined || v === GENERAL) return v;
      vals[j] = v;
    }
    // only the definitions these arguments can match count (the others yield nothing)
    if (!hasOneDefinition(candidateRules(rules, vals))) return GENERAL;
    let out: Value | undefined;
    this.callFunc(path, vals, t.loc, (v) => {
      out = v;
      return true;
    });
    return out;
  }

  /** A builtin threw: raised at the call when strict (or for a halting error), else the call is undefined. */
  private builtinFailed(e: unknown, loc: Loc): void {
    if (!(e instanceof BuiltinError)) throw e;
    if (this.strict || e.halt) throw new RegoError(e.code, e.message, loc);
  }

  /** Evaluates items into acc[0..]; `order` (from callsFirst) is the order to evaluate them in. */
  private evalItems(items: Term[], f: Frame, i: number, acc: Value[], k: (vals: Value[]) => boolean, order?: readonly number[]): boolean {
    if (i === items.length) return k(acc);
    const j = order === undefined ? i : (order[i] as number);
    return this.evalTerm(items[j] as Term, f, (v) => {
      acc[j] = v;
      return this.evalItems(items, f, i + 1, acc, k, order);
    });
  }

  private evalRef(t: Term & { type: 'ref' }, f: Frame, k: VK): boolean {
    const dyn = dynamicKeys(t);
    if (dyn !== undefined) {
      // OPA's compiler hoists refs and calls out of a ref's keys, so they are evaluated before the
      // head is read (`input.missing[f(x)]` still calls f)
      const terms = dyn.map((i) => t.path[i] as Term);
      return this.evalItems(terms, f, 0, new Array(terms.length), (vals) => {
        const path = t.path.slice();
        dyn.forEach((i, j) => (path[i] = { type: 'value', value: vals[j] as Value, loc: (t.path[i] as Term).loc }));
        return this.evalRefFrom({ type: 'ref', head: t.head, path, loc: t.loc }, f, k);
      });
    }
    return this.evalRefFrom(t, f, k);
  }

  private evalRefFrom(t: Term & { type: 'ref' }, f: Frame, k: VK): boolean {
    const head = t.head;
    if (head.type === 'var' && head.slot === undefined) {
      if (head.name === 'data') {
        const plan = this.s.nodeOverrides === undefined ? dataRefPlan(t, this.policy.root) : undefined;
        if (plan === undefined || plan.kind === 'general') return this.evalData(this.policy.root, this.s.base, t.path, 0, f, k);
        // jump to where the constant prefix leads instead of descending from the root on every read
        let base: Value | undefined = this.s.base;
        for (let i = 0; i < plan.depth && base !== undefined; i++) base = childOf(base, (t.path[i] as Term & { type: 'value' }).value, true);
        if (plan.kind === 'base') return base === undefined ? false : this.walk(base, t.path, plan.depth, f, k, true);
        return this.evalData(plan.node, base, t.path, plan.depth, f, k);
      }
      if (head.name === 'input') {
        if (this.s.input === undefined) return false;
        return this.walk(this.s.input, t.path, 0, f, k);
      }
    }
    if (head.type === 'var' && head.slot !== undefined) {
      // a bound local (the common `item.risk`): no continuation closure for the head
      const v = f[head.slot];
      if (v === undefined) throw new RegoError('rego_unsafe_var_error', `var ${head.name} is unsafe`, head.loc);
      return this.walk(v, t.path, 0, f, k);
    }
    return this.evalTerm(head, f, (v) => this.walk(v, t.path, 0, f, k));
  }

  private walk(v: Value, path: Term[], i: number, f: Frame, k: VK, store = false): boolean {
    if (i === path.length) return k(v);
    const p = path[i] as Term;
    if (p.type === 'value') {
      const c = childOf(v, p.value, store);
      return c === undefined ? false : this.walk(c, path, i + 1, f, k, store);
    }
    if (p.type === 'var' && p.slot !== undefined) {
      const cur = f[p.slot];
      if (cur !== undefined) {
        const c = childOf(v, cur, store);
        return c === undefined ? false : this.walk(c, path, i + 1, f, k, store);
      }
      const slot = p.slot;
      return this.iterate(v, (key, val) => {
        f[slot] = key;
        try {
          return this.walk(val, path, i + 1, f, k);
        } finally {
          f[slot] = undefined;
        }
      });
    }
    if (isPattern(p, f)) {
      return this.iterate(v, (key, val) => this.unifyValue(p, key, f, () => this.walk(val, path, i + 1, f, k)));
    }
    return this.evalTerm(p, f, (key) => {
      const c = childOf(v, key);
      return c === undefined ? false : this.walk(c, path, i + 1, f, k);
    });
  }

  // ------------------------------------------------------------ data documents
  private evalData(node: DataNode, base: Value | undefined, path: Term[], i: number, f: Frame, k: VK): boolean {
    const over = this.s.nodeOverrides?.get(node);
    if (over !== undefined) return this.walk(over, path, i, f, k);
    if (node.rules.length) {
      const doc = this.nodeDoc(node, base);
      return doc === undefined ? false : this.walk(doc, path, i, f, k);
    }
    if (node.funcs.length && !node.hasRules && node.funcs[0]?.args.length === 0) {
      // a zero-argument function named by reference evaluates to its value
      return this.callFunc(['data', ...node.path].join('.'), [], node.funcs[0].loc, (v) => this.walk(v, path, i, f, k));
    }
    if (i === path.length) {
      const v = this.nodeValue(node, base);
      return v === undefined ? false : k(v);
    }
    const p = path[i] as Term;
    const step = (key: Value): boolean => {
      const child = typeof key === 'string' ? node.children.get(key) : undefined;
      const b = base === undefined ? undefined : childOf(base, key, true);
      if (child && (child.hasRules || child.funcs.length > 0)) return this.evalData(child, b, path, i + 1, f, k);
      return b === undefined ? false : this.walk(b, path, i + 1, f, k, true);
    };
    if (p.type === 'value') return step(p.value);
    if (isUnboundVar(p, f) || isPattern(p, f)) {
      const keys = new SetValue();
      for (const [key, c] of node.children) if (c.hasRules) keys.add(key);
      if (base instanceof ObjectValue) for (const [key] of base.unordered()) keys.add(key);
      else if (base !== undefined) {
        // non-object base: iterate it plainly
        return this.walk(base, path, i, f, k);
      }
      return this.iterate(keys, (key) => {
        const child = typeof key === 'string' ? node.children.get(key) : undefined;
        if (child && child.hasRules) {
          // only keys whose document is defined
          let defined = false;
          this.evalData(child, base === undefined ? undefined : childOf(base, key), [], 0, f, () => (defined = true));
          if (!defined) return false;
        }
        return this.unifyValue(p, key, f, () => step(key));
      });
    }
    return this.evalTerm(p, f, step);
  }

  /** Full value of a data node without rules of its own: base document merged with children. */
  private nodeValue(node: DataNode, base: Value | undefined): Value | undefined {
    const over = this.s.nodeOverrides?.get(node);
    if (over !== undefined) return over;
    if (node.rules.length) return this.nodeDoc(node, base);
    if (!node.hasRules) return base;
    const cached = this.s.valueCache?.get(node);
    if (cached !== undefined) return cached === UNDEF ? undefined : cached;
    const out = new ObjectValue();
    if (base instanceof ObjectValue) for (const [k, v] of base.unordered()) out.set(k, v);
    for (const [key, child] of node.children) {
      if (!child.hasRules) continue;
      const v = this.nodeValue(child, base === undefined ? undefined : childOf(base, key));
      if (v !== undefined) out.set(key, v);
    }
    (this.s.valueCache ??= new Map()).set(node, out);
    return out;
  }

  /** The document a node's rules define (merged with rules of child nodes), cached per evaluation. */
  private nodeDoc(node: DataNode, base: Value | undefined): Value | undefined {
    const cached = this.s.cache.get(node);
    if (cached !== undefined) return cached === UNDEF ? undefined : cached;
    const shared = this.shared !== undefined && this.s === this.top && this.shared.nodes.has(node) ? this.shared.docs : undefined;
    if (shared?.has(node)) {
      const doc = shared.get(node);
      this.s.cache.set(node, doc === undefined ? UNDEF : doc);
      return doc;
    }
    if (this.depth > 2000) this.budget.exceeded('depth');
    this.depth++;
    let doc: Value | undefined;
    const outer = this.budget.rule;
    if (node.rules.length > 0) this.budget.rule = node.rules[0];
    try {
      doc = this.computeNodeDoc(node, base);
    } finally {
      this.depth--;
      this.budget.rule = outer;
    }
    this.s.cache.set(node, doc === undefined ? UNDEF : doc);
    shared?.set(node, doc);
    return doc;
  }

  private computeNodeDoc(node: DataNode, base: Value | undefined): Value | undefined {
    const groups = (node.groups ??= {
      complete: node.rules.filter((r) => r.kind === 'value' && r.rest.length === 0),
      multi: node.rules.filter((r) => r.kind === 'multi' && r.rest.length === 0),
      obj: node.rules.filter((r) => r.rest.length > 0),
      hasChild: [...node.children.values()].some((c) => c.hasRules),
    });
    const complete = groups.complete;
    let doc: Value | undefined;
    if (complete.length) {
      doc = this.evalComplete(complete);
    } else {
      const multi = groups.multi;
      if (multi.length) {
        const set = new SetValue();
        for (const r of multi) {
          if (!this.indexed(r)) continue;
          const fr: Frame = new Array(r.nslots);
          const constant = (r.key as Term).type === 'value';
          const add = (v: Value): boolean => {
            set.add(v);
            return constant;
          };
          this.evalBody(r.body, 0, fr, () => {
            const v = this.direct(r.key as Term, fr);
            if (v === GENERAL) return this.evalTerm(r.key as Term, fr, add);
            return v === undefined ? false : add(v);
          });
        }
        doc = set.seal();
      }
      const objRules = groups.obj;
      if (objRules.length) {
        const obj = new ObjectValue();
        for (const r of objRules) if (!r.isDefault) this.evalObjectRule(r, obj);
        // a default rule at a ref-head path (`default p.q[true] := v`) fills its key when no rule defined it
        for (const r of objRules) if (r.isDefault) this.applyObjectDefault(r, obj);
        doc = obj;
      }
    }
    // child nodes with rules extend an object document
    if (groups.hasChild && (doc === undefined || doc instanceof ObjectValue)) {
      const out = new ObjectValue(doc instanceof ObjectValue ? doc.unordered() : []);
      for (const [key, child] of node.children) {
        if (!child.hasRules) continue;
        const v = this.nodeValue(child, base === undefined ? undefined : childOf(base, key));
        if (v !== undefined) {
          const prev = out.get(key);
          if (prev instanceof ObjectValue && v instanceof ObjectValue) out.set(key, mergeObjects(prev, v));
          else if (prev !== undefined && !valueEquals(prev, v)) {
            // `p[x] := 5` (x = "a" at run time) and `p.a := 1` define the same key
            throw new RegoError('eval_conflict_error', 'object keys must be unique', child.rules[0]?.loc ?? child.funcs[0]?.loc);
          } else out.set(key, v);
        }
      }
      if (doc !== undefined || out.size > 0) doc = out;
    }
    return doc;
  }

  private evalComplete(rules: CRule[]): Value | undefined {
    let result: Value | undefined;
    let def: CRule | undefined;
    // asked only once a value is known and another definition is left to try
    let earlyExit: boolean | undefined;
    for (const r of rules) {
      if (r.isDefault) {
        def = r;
        continue;
      }
      if (result !== undefined && (earlyExit ??= this.agreeOnConstant(rules))) break;
      this.ruleValues(r, (v, rr) => {
        if (result === undefined) result = v;
        else if (!valueEquals(result, v)) {
          const msg = rr.refLen > 1 ? `rule ${rr.path.join('.')} produced conflicting values` : 'complete rules must not produce multiple outputs';
          throw new RegoError('eval_conflict_error', msg, rr.loc);
        }
      });
    }
    if (result === undefined && def) {
      const fr: Frame = new Array(def.nslots);
      this.evalTerm(def.value, fr, (v) => {
        result = v;
        return true;
      });
    }
    return result;
  }

  /** Values of one rule definition: its body's solutions, or the first else branch with a solution. */
  private ruleValues(r: CRule, onValue: (v: Value, r: CRule) => void, f: Frame = new Array(r.nslots)): void {
    // A branch counts when its body holds and its value is defined (OPA evaluates the head value in the body).
    // Early exit (as OPA): a constant value needs only the first solution of the body.
    let any = false;
    const constant = r.value.type === 'value';
    if (this.indexed(r))
      this.evalBody(r.body, 0, f, () =>
        this.evalTerm(r.value, f, (v) => {
          any = true;
          onValue(v, r);
          return constant;
        }),
      );
    if (any) return;
    for (const e of r.elses) {
      if (!this.indexed(e)) continue;
      let got = false;
      this.evalBody(e.body, 0, f, () =>
        this.evalTerm(e.value, f, (v) => {
          got = true;
          onValue(v, e);
          return false;
        }),
      );
      if (got) return;
    }
  }

  /**
   * Whether OPA's rule index would hand this branch to evaluation (ruleindex.ts): every ref its
   * conditions read is defined and holds the value or affix they name. `args`: a function's arguments.
   */
  private indexed(r: CRule, args?: readonly Value[]): boolean {
    const conds = branchConditions(r, this.policy.root);
    for (const c of conds) {
      const root = c.ref.root;
      let v: Value | undefined = root === 'input' ? this.s.input : root === 'data' ? this.s.base : args?.[root];
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
  private agreeOnConstant(rules: readonly CRule[], args?: readonly Value[]): boolean {
    let val: Value | undefined;
    for (const r of rules) {
      if (r.isDefault) continue;
      for (const br of [r, ...r.elses]) {
        if (!this.indexed(br, args)) continue;
        if (br.value.type !== 'value') return false;
        if (val !== undefined && !valueEquals(val, br.value.value)) return false;
        val = br.value.value;
      }
    }
    return true;
  }

  private applyObjectDefault(r: CRule, obj: ObjectValue): void {
    const fr: Frame = new Array(r.nslots);
    this.evalItems(r.rest, fr, 0, new Array(r.rest.length), (keys) => {
      let cur: ObjectValue = obj;
      for (let i = 0; i < keys.length - 1; i++) {
        const next = cur.get(keys[i] as Value);
        if (next === undefined) {
          const o = new ObjectValue();
          cur.set(keys[i] as Value, o);
          cur = o;
        } else if (next instanceof ObjectValue) cur = next;
        else return true;
      }
      const last = keys[keys.length - 1] as Value;
      if (cur.get(last) !== undefined) return true;
      return this.evalTerm(r.value, fr, (v) => {
        cur.set(last, v);
        return true;
      });
    });
  }

  private evalObjectRule(r: CRule, obj: ObjectValue): void {
    const fr: Frame = new Array(r.nslots);
    const insert = (keys: Value[], leaf: Value): void => {
      let cur = obj;
      for (let i = 0; i < keys.length - 1; i++) {
        const k = keys[i] as Value;
        let next = cur.get(k);
        if (next === undefined) {
          next = new ObjectValue();
          cur.set(k, next);
        } else if (!(next instanceof ObjectValue)) {
          throw new RegoError('eval_conflict_error', 'object keys must be unique', r.loc);
        }
        cur = next;
      }
      const last = keys[keys.length - 1] as Value;
      if (r.kind === 'multi') {
        let set = cur.get(last);
        if (set === undefined) cur.set(last, (set = new SetValue()));
        if (!(set instanceof SetValue)) throw new RegoError('eval_conflict_error', 'object keys must be unique', r.loc);
        set.add(leaf);
        return;
      }
      const prev = cur.get(last);
      if (prev !== undefined && !valueEquals(prev, leaf)) {
        throw new RegoError('eval_conflict_error', 'object keys must be unique', r.loc);
      }
      cur.set(last, leaf);
    };
    const constant = r.rest.every((t) => t.type === 'value') && (r.kind === 'multi' ? (r.key as Term) : r.value).type === 'value';
    const onSolution = (valueTerm: Term): boolean =>
      this.evalItems(r.rest, fr, 0, new Array(r.rest.length), (keys) =>
        this.evalTerm(valueTerm, fr, (v) => {
          insert(keys.slice(), v);
          return constant;
        }),
      );
    let any = false;
    if (this.indexed(r))
      this.evalBody(r.body, 0, fr, () => {
        any = true;
        return onSolution(r.kind === 'multi' ? (r.key as Term) : r.value);
      });
    if (any) return;
    for (const e of r.elses) {
      if (!this.indexed(e)) continue;
      let got = false;
      this.evalBody(e.body, 0, fr, () => {
        got = true;
        return onSolution(e.value);
      });
      if (got) return;
    }
  }

  // ------------------------------------------------------------ calls
  private evalCall(t: Term & { type: 'call' }, f: Frame, k: VK): boolean {
    const target = t.target;
    if (!target) throw new RegoError('rego_type_error', `undefined function ${t.name}`, t.loc);
    let out: Term | undefined;
    if (target.kind === 'builtin') {
      const b = lookupBuiltin(target.name);
      if (b && b.arity >= 0 && t.args.length === b.arity + 1) out = t.args[t.args.length - 1];
      if (target.name === 'print') return this.evalPrint(t, f, k);
    } else out = funcOutputMarks.get(t);
    const ins = out ? t.args.slice(0, -1) : t.args;
    const outT = out;
    return this.evalItems(ins, f, 0, new Array(ins.length), (vals) =>
      this.callTarget(target, vals.slice(), t.loc, outT ? (v) => this.unifyValue(outT, v, f, () => k(true)) : k),
    callsFirst(ins, t));
  }

  private evalPrint(t: Term & { type: 'call' }, f: Frame, k: VK): boolean {
    const parts: string[] = [];
    for (const a of t.args) {
      const vals: Value[] = [];
      this.evalTerm(a, f, (v) => {
        vals.push(v);
        return false;
      });
      if (vals.length === 0) parts.push('<undefined>');
      else for (const v of vals) parts.push(typeof v === 'string' ? v : printValue(v));
    }
    this.ctx.print(parts.join(' '));
    return k(true);
  }

  private callTarget(target: CallTarget, vals: Value[], loc: Loc, k: VK): boolean {
    const key = target.kind === 'builtin' ? target.name : target.path;
    const over = this.s.funcOverrides?.get(key);
    if (over) {
      if (over.kind === 'value') return k(over.value);
      const t2 = over.target;
      if (t2.kind === 'builtin' ? t2.name !== key : t2.path !== key) {
        // the replacement runs without the overrides of builtins (a mock never calls another mock)
        const saved = this.s;
        const overrides = new Map(saved.funcOverrides);
        for (const [name] of saved.funcOverrides ?? []) if (!name.startsWith('data.') || name === key) overrides.delete(name);
        const inner: WithState = { ...saved, funcOverrides: overrides.size ? overrides : undefined, funcCache: undefined };
        this.s = inner;
        let r: boolean;
        try {
          r = this.callTargetRaw(t2, vals, loc, (v) => {
            this.s = saved;
            try {
              return k(v);
            } finally {
              this.s = inner;
            }
          }, saved);
        } finally {
          this.s = saved;
        }
        return r;
      }
    }
    return this.callTargetRaw(target, vals, loc, k, this.s);
  }

  private callTargetRaw(target: CallTarget, vals: Value[], loc: Loc, k: VK, _st: WithState): boolean {
    if (target.kind === 'func') return this.callFunc(target.path, vals, loc, k);
    const def = lookupBuiltin(target.name);
    if (!def) throw new RegoError('rego_type_error', `undefined function ${target.name}`, loc);
    try {
      if (def.rel) {
        const results = def.rel(vals, this.ctx);
        for (const r of results) if (k(r)) return true;
        return false;
      }
      const r = (def.fn as NonNullable<typeof def.fn>)(vals, this.ctx);
      if (r === undefined) return false;
      return k(r);
    } catch (e) {
      this.builtinFailed(e, loc);
      return false;
    }
  }

  /** A function branch's value with its parameters bound: undefined when its body fails, an error when its solutions disagree. */
  private branchValue(br: CRule, fr: Frame): Value | undefined {
    let got: Value | undefined;
    this.evalBody(br.body, 0, fr, () =>
      this.evalTerm(br.value, fr, (v) => {
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
  private callFunc(path: string, vals: Value[], loc: Loc, k: VK): boolean {
    const rules = this.policy.funcs.get(path);
    if (!rules) throw new RegoError('rego_type_error', `undefined function ${path}`, loc);
    const st = this.s;
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
      const depth = this.depth;
      const rule = this.budget.rule;
      this.depth = outerDepth;
      this.budget.rule = outer;
      try {
        stop = k(v);
      } finally {
        this.depth = depth;
        this.budget.rule = rule;
      }
    };
    if (this.depth > 2000) this.budget.exceeded('depth');
    const outerDepth = this.depth;
    this.depth++;
    const outer = this.budget.rule;
    if (rules.length > 0) this.budget.rule = rules[0];
    try {
      let def: CRule | undefined;
      // asked only once a value is known and another definition is left to try
      let earlyExit: boolean | undefined;
      for (const r of candidateRules(rules, vals)) {
        if (r.isDefault) {
          def = r;
          continue;
        }
        if (result !== undefined && (earlyExit ??= this.agreeOnConstant(rules, vals))) break;
        const fr: Frame = new Array(r.nslots);
        for (let b = -1; b < r.elses.length; b++) {
          const br = b < 0 ? r : (r.elses[b] as CRule);
          if (!this.indexed(br, vals)) continue;
          let got: Value | undefined;
          const bound = bindArgs(br.args, vals, fr);
          if (bound === undefined) {
            this.unifyItems(br.args, vals, 0, fr, () => {
              got = this.branchValue(br, fr);
              return false;
            });
          } else if (bound) {
            try {
              got = this.branchValue(br, fr);
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
        this.unifyItems(d.args, vals, 0, fr, () =>
          this.evalTerm(d.value, fr, (v) => {
            dv = v;
            return true;
          }),
        );
        if (dv !== undefined) first(dv);
      }
    } finally {
      this.depth = outerDepth;
      this.budget.rule = outer;
    }
    if (result === undefined) entry.result = UNDEF;
    return stop;
  }
}
