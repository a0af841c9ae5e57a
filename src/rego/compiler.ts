/**
 * Compiler: resolves names (imports, rules of the package, builtins), gives every local variable a frame
 * slot, orders body literals so each variable is bound before use (OPA's safety reordering), and checks
 * what OPA checks at compile time: unsafe variables, recursion, unknown functions, arity, conflicting rule
 * kinds, re-assigned variables. Produces the data tree of rules the evaluator walks.
 */
import type { CallTarget, Expr, Literal, Loc, Module, Rule, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { lookupBuiltin } from './builtins/registry.ts';
import { checkBodyTypes } from './typecheck.ts';
import { ObjectValue, SetValue, typeName, valueKey, type Value } from './value.ts';
import './builtins/index.ts';

export interface CRule {
  kind: Rule['kind'];
  /** Constant path of the rule's node from the data root (package + constant head prefix). */
  path: string[];
  /** Head ref terms after the constant prefix (object keys, possibly variables). */
  rest: Term[];
  key: Term | undefined;
  value: Term;
  args: Term[];
  body: Literal[];
  elses: CRule[];
  isDefault: boolean;
  nslots: number;
  /** Number of terms in the rule's head ref (1 for `p`, 3 for `p.q[x]`). */
  refLen: number;
  loc: Loc;
}

export interface DataNode {
  readonly path: string[];
  readonly children: Map<string, DataNode>;
  /** Rules whose constant head path ends at this node (functions excluded). */
  rules: CRule[];
  /** Functions defined at this node. */
  funcs: CRule[];
  /** True when some rule is defined at this node or below. */
  hasRules: boolean;
  /** Rules grouped by kind (computed by the evaluator on first use). */
  groups?: { complete: CRule[]; multi: CRule[]; obj: CRule[]; hasChild: boolean };
}

export interface CompiledPolicy {
  readonly root: DataNode;
  /** Functions by dotted data path (`data.pkg.f`). */
  readonly funcs: Map<string, CRule[]>;
  readonly modules: readonly Module[];
}

export interface CompiledQuery {
  readonly body: Literal[];
  readonly nslots: number;
  /** Named query variables and their slots, in order of first appearance. */
  readonly vars: { name: string; slot: number }[];
}

// ---------------------------------------------------------------- term utilities

export function walkTerms(t: Term, fn: (t: Term) => void): void {
  fn(t);
  switch (t.type) {
    case 'ref':
      walkTerms(t.head, fn);
      for (const p of t.path) walkTerms(p, fn);
      break;
    case 'array':
    case 'set':
      for (const i of t.items) walkTerms(i, fn);
      break;
    case 'object':
      for (const [k, v] of t.entries) {
        walkTerms(k, fn);
        walkTerms(v, fn);
      }
      break;
    case 'call':
      for (const a of t.args) walkTerms(a, fn);
      break;
    case 'arraycompr':
    case 'setcompr':
      walkTerms(t.term, fn);
      for (const l of t.body) walkLiteral(l, fn);
      break;
    case 'objectcompr':
      walkTerms(t.key, fn);
      walkTerms(t.value, fn);
      for (const l of t.body) walkLiteral(l, fn);
      break;
    default:
      break;
  }
}

export function walkLiteral(l: Literal, fn: (t: Term) => void): void {
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      walkTerms(e.term, fn);
      break;
    case 'unify':
    case 'assign':
      walkTerms(e.left, fn);
      walkTerms(e.right, fn);
      break;
    case 'some':
      for (const v of e.vars) walkTerms(v, fn);
      break;
    case 'somein':
      if (e.key) walkTerms(e.key, fn);
      walkTerms(e.value, fn);
      walkTerms(e.coll, fn);
      break;
    case 'every':
      if (e.key) walkTerms(e.key, fn);
      walkTerms(e.value, fn);
      walkTerms(e.domain, fn);
      for (const b of e.body) walkLiteral(b, fn);
      break;
  }
  for (const w of l.withs) {
    walkTerms(w.target, fn);
    walkTerms(w.value, fn);
  }
}

function varSlots(t: Term, out: Set<number>): Set<number> {
  walkTerms(t, (x) => {
    if (x.type === 'var' && x.slot !== undefined) out.add(x.slot);
  });
  return out;
}

/** Slots used by a term outside comprehension bodies (comprehension locals are not visible outside). */
function topSlots(t: Term, out: Set<number>): Set<number> {
  switch (t.type) {
    case 'var':
      if (t.slot !== undefined) out.add(t.slot);
      break;
    case 'ref':
      topSlots(t.head, out);
      for (const p of t.path) topSlots(p, out);
      break;
    case 'array':
    case 'set':
      for (const i of t.items) topSlots(i, out);
      break;
    case 'object':
      for (const [k, v] of t.entries) {
        topSlots(k, out);
        topSlots(v, out);
      }
      break;
    case 'call':
      for (const a of t.args) topSlots(a, out);
      break;
    default:
      break;
  }
  return out;
}

function literalTopSlots(l: Literal): Set<number> {
  const out = new Set<number>();
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      topSlots(e.term, out);
      break;
    case 'unify':
    case 'assign':
      topSlots(e.left, out);
      topSlots(e.right, out);
      break;
    case 'some':
      // `some x` only declares x; OPA drops the declaration before its safety check, so a closure
      // whose var appears nowhere else in the body binds it itself.
      break;
    case 'somein':
      if (e.key) topSlots(e.key, out);
      topSlots(e.value, out);
      topSlots(e.coll, out);
      break;
    case 'every':
      topSlots(e.domain, out);
      break;
  }
  for (const w of l.withs) topSlots(w.value, out);
  return out;
}

function literalSlots(l: Literal): Set<number> {
  const out = new Set<number>();
  walkLiteral(l, (x) => {
    if (x.type === 'var' && x.slot !== undefined) out.add(x.slot);
  });
  return out;
}

// ---------------------------------------------------------------- scopes and resolution

/** A function argument, a `some`/`every` declaration, or a `:=` assignment. */
type DeclKind = 'arg' | 'declared' | 'assigned';

const REDECLARED: Record<DeclKind, (name: string) => string> = {
  arg: (n) => `arg ${n} redeclared`,
  declared: (n) => `var ${n} declared above`,
  assigned: (n) => `var ${n} assigned above`,
};

class Scope {
  readonly vars = new Map<string, number>();
  /** Names declared with some / := / every / function args (not merely used). */
  readonly declared = new Set<string>();
  /** How each declared name was declared, for OPA's wording when it is declared again. */
  readonly declaredAs = new Map<string, DeclKind>();
  /** Names referenced in this scope without a declaration (OPA's "seen" vars). */
  readonly seen = new Set<string>();
  /** Vars declared by `some x` or as an `every` key/value, and whether anything used them since. */
  readonly decls = new Map<string, { loc: Loc; used: boolean }>();
  constructor(readonly parent: Scope | undefined) {}
  /** Marks a use of `name` in the scope that declared it. */
  use(name: string): void {
    for (let sc: Scope | undefined = this; sc; sc = sc.parent) {
      if (sc.declared.has(name)) {
        const d = sc.decls.get(name);
        if (d) d.used = true;
        return;
      }
    }
  }
  isDeclared(name: string): boolean {
    return this.declared.has(name) || (this.parent?.isDeclared(name) ?? false);
  }
  lookup(name: string): number | undefined {
    return this.vars.get(name) ?? this.parent?.lookup(name);
  }
}

interface ResolveCtx {
  /** Module uses Rego v1 rules (deprecated builtins refused, input/data not assignable). */
  v1?: boolean;
  /**
   * `import future.keywords` / `future.keywords.not`: OPA evaluates a negated expression's operands
   * inside the negation (no hoisting, see hoistDynamics).
   */
  notKeyword?: boolean;
  /** The call term that is a whole statement (may carry an output argument). */
  statementCall?: Term;
  pkg: string[];
  file: string;
  /** import alias -> ref term */
  imports: Map<string, Term>;
  /** names of rules in the package (first head segment) -> kinds present */
  ruleNames: Map<string, Set<Rule['kind']>>;
  /** all function paths (dotted, from data) -> arity */
  funcArity: Map<string, number>;
  nslots: number;
  names: Map<number, string>;
  errors: RegoError[];
  /** Slots of variables named in the query (query compile only). */
  queryVars?: { name: string; slot: number }[];
  /** Every `some x` / `every` declaration of the rule or query being compiled (see checkDeclsUsed). */
  decls?: { name: string; loc: Loc; state: { used: boolean } }[];
}

/**
 * Registers the vars of a declaration (`some x, y`, an `every` key/value) once the declaration itself
 * was resolved, so that only later references count as uses.
 */
function registerDecls(terms: readonly Term[], scope: Scope, ctx: ResolveCtx): void {
  for (const t of terms) {
    walkTerms(t, (x) => {
      if (x.type !== 'var' || x.name === '_' || x.name.startsWith('$')) return;
      const state = { loc: x.loc, used: false };
      scope.decls.set(x.name, state);
      (ctx.decls ??= []).push({ name: x.name, loc: x.loc, state });
    });
  }
}

/**
 * OPA refuses a var declared with `some` (or as an `every` key/value) that nothing after the
 * declaration uses, in the body, a nested body or the rule head (`declared var x unused`).
 */
function checkDeclsUsed(ctx: ResolveCtx): void {
  for (const d of ctx.decls ?? []) {
    if (!d.state.used) ctx.errors.push(new RegoError('rego_compile_error', `declared var ${d.name} unused`, d.loc));
  }
  ctx.decls = [];
}

const ROOTS = new Set(['data', 'input']);

function newSlot(ctx: ResolveCtx, name: string): number {
  const s = ctx.nslots++;
  ctx.names.set(s, name);
  return s;
}

/**
 * Declares the vars of a pattern term in scope (for some/:=/every/function args). `check`: as OPA, a
 * var declared, assigned or referenced earlier in the same scope cannot be declared again (`:=`, `some`).
 */
function declarePattern(t: Term, scope: Scope, ctx: ResolveCtx, check: boolean, kind: DeclKind): void {
  walkTerms(t, (x) => {
    if (x.type !== 'var') return;
    if (x.name === '_') return;
    if (check && scope.declared.has(x.name)) {
      ctx.errors.push(new RegoError('rego_compile_error', REDECLARED[scope.declaredAs.get(x.name) ?? 'assigned'](x.name), x.loc));
    } else if (check && scope.seen.has(x.name)) {
      ctx.errors.push(new RegoError('rego_compile_error', `var ${x.name} referenced above`, x.loc));
    }
    if (!scope.declared.has(x.name)) {
      scope.vars.set(x.name, newSlot(ctx, x.name));
      scope.declaredAs.set(x.name, kind);
    }
    scope.declared.add(x.name);
  });
}

function dataRef(path: string[], loc: Loc): Term {
  return {
    type: 'ref',
    head: { type: 'var', name: 'data', loc },
    path: path.map((p) => ({ type: 'value', value: p, loc })),
    loc,
  };
}

/** Resolves a term in place, returning the rewritten term. `pattern`: vars may be introduced here. */
function resolveTerm(t: Term, scope: Scope, ctx: ResolveCtx): Term {
  switch (t.type) {
    case 'value':
      return t;
    case 'var': {
      if (t.name === '_') return { type: 'var', name: '_', loc: t.loc, slot: newSlot(ctx, '_') };
      const s = scope.lookup(t.name);
      if (s !== undefined) {
        if (!scope.isDeclared(t.name)) scope.seen.add(t.name);
        else scope.use(t.name);
        return { type: 'var', name: t.name, loc: t.loc, slot: s };
      }
      if (ROOTS.has(t.name)) return t;
      if (ctx.ruleNames.has(t.name)) return dataRef([...ctx.pkg, t.name], t.loc);
      const imp = ctx.imports.get(t.name);
      if (imp) return imp;
      // A new variable: it lives in the outermost (rule) scope so closures in comprehensions share it.
      let root = scope;
      while (root.parent) root = root.parent;
      const slot = newSlot(ctx, t.name);
      root.vars.set(t.name, slot);
      scope.seen.add(t.name);
      ctx.queryVars?.push({ name: t.name, slot });
      return { type: 'var', name: t.name, loc: t.loc, slot };
    }
    case 'ref': {
      const head = resolveTerm(t.head, scope, ctx);
      const path = t.path.map((p) => resolveTerm(p, scope, ctx));
      if (head.type === 'ref') return { type: 'ref', head: head.head, path: [...head.path, ...path], loc: t.loc };
      return { type: 'ref', head, path, loc: t.loc };
    }
    case 'array':
      return { ...t, items: t.items.map((i) => resolveTerm(i, scope, ctx)) };
    case 'set':
      return { ...t, items: t.items.map((i) => resolveTerm(i, scope, ctx)) };
    case 'object':
      return { ...t, entries: t.entries.map(([k, v]) => [resolveTerm(k, scope, ctx), resolveTerm(v, scope, ctx)] as [Term, Term]) };
    case 'arraycompr':
    case 'setcompr': {
      const inner = new Scope(scope);
      const body = resolveBody(t.body, inner, ctx);
      return { ...t, body, term: resolveTerm(t.term, inner, ctx) };
    }
    case 'objectcompr': {
      const inner = new Scope(scope);
      const body = resolveBody(t.body, inner, ctx);
      return { ...t, body, key: resolveTerm(t.key, inner, ctx), value: resolveTerm(t.value, inner, ctx) };
    }
    case 'call': {
      const args = t.args.map((a) => resolveTerm(a, scope, ctx));
      const target = resolveCall(t, args.length, ctx, ctx.statementCall === t);
      const out: Term = { ...t, args, target };
      if (target.kind === 'func' && args.length === (ctx.funcArity.get(target.path) ?? -2) + 1) {
        FUNC_OUTPUT.set(out, args[args.length - 1] as Term);
      }
      return out;
    }
  }
}

const DEPRECATED = new Set(['any', 'all', 're_match', 'net.cidr_overlap', 'set_diff', 'cast_array', 'cast_set', 'cast_string', 'cast_boolean', 'cast_null', 'cast_object']);

function resolveCall(t: Term & { type: 'call' }, nargs: number, ctx: ResolveCtx, statement: boolean): CallTarget {
  const parts = t.name.split('.');
  const first = parts[0] as string;
  let path: string[] | undefined;
  if (first === 'data') path = parts.slice(1);
  else if (ctx.imports.has(first)) {
    const imp = ctx.imports.get(first) as Term;
    if (imp.type === 'ref' && imp.head.type === 'var' && imp.head.name === 'data') {
      path = [...imp.path.map((p) => (p.type === 'value' ? String(p.value) : '?')), ...parts.slice(1)];
    }
  } else if (ctx.ruleNames.get(first)?.has('func') && parts.length === 1) path = [...ctx.pkg, first];
  else if (ctx.funcArity.has(['data', ...ctx.pkg, ...parts].join('.'))) path = [...ctx.pkg, ...parts];
  if (path) {
    const key = ['data', ...path].join('.');
    const arity = ctx.funcArity.get(key);
    if (arity === undefined) {
      ctx.errors.push(new RegoError('rego_type_error', `undefined function ${key}`, t.loc));
    } else if (nargs !== arity && !(statement && nargs === arity + 1)) {
      ctx.errors.push(
        new RegoError('rego_type_error', `function ${key} has arity ${arity}, got ${nargs} argument${nargs === 1 ? '' : 's'}`, t.loc),
      );
    }
    return { kind: 'func', path: key };
  }
  const deprecated = ctx.v1 && DEPRECATED.has(t.name);
  const b = deprecated ? undefined : lookupBuiltin(t.name);
  if (!b) {
    ctx.errors.push(new RegoError('rego_type_error', deprecated ? `deprecated built-in function calls in expression: ${t.name}` : `undefined function ${t.name}`, t.loc));
    return { kind: 'builtin', name: t.name };
  }
  if (b.arity >= 0 && nargs !== b.arity && !(statement && nargs === b.arity + 1)) {
    // OPA's arity check comes before its type check, so a wrong count is always an "arity mismatch"
    ctx.errors.push(new RegoError('rego_type_error', `${t.name}: arity mismatch`, t.loc));
  }
  return { kind: 'builtin', name: t.name };
}

function resolveBody(body: Literal[], scope: Scope, ctx: ResolveCtx): Literal[] {
  const out: Literal[] = [];
  for (const l of body) {
    const r = resolveLiteral(l, scope, ctx);
    if (r.negated && !ctx.notKeyword) hoistDynamics(r, ctx, out);
    out.push(r);
  }
  return out;
}

/**
 * OPA's compiler (stage RewriteDynamicTerms, after `==` statements became `=`) moves the operands of
 * a call that are refs or calls, also inside array/set/object operands, into assignments of their
 * own placed before the expression, with the expression's `with`s. Outside a negation that changes
 * nothing; inside one it does: `not is_array(input.x)` fails when `input.x` is undefined (the
 * hoisted `__local0__ = input.x` fails), and so does `not f(g(x))` when `g` fails. The hoisted
 * assignments are added to `out`; the literal's terms are replaced by the new vars in place.
 */
function importSegments(t: Term): string[] {
  if (t.type === 'var') return [t.name];
  if (t.type === 'ref' && t.head.type === 'var') return [t.head.name, ...t.path.map((p) => (p.type === 'value' ? String(p.value) : '?'))];
  return [];
}

function hoistDynamics(l: Literal, ctx: ResolveCtx, out: Literal[]): void {
  const e = l.expr;
  const hoist = (t: Term): Term => {
    const v: Term = { type: 'var', name: `__local${ctx.nslots}__`, loc: t.loc, slot: newSlot(ctx, `__local${ctx.nslots}__`) };
    out.push({ negated: false, expr: { kind: 'unify', left: v, right: t }, withs: l.withs, loc: l.loc });
    return v;
  };
  // rewriteDynamicsOne: refs and calls are hoisted (after their own dynamic parts), composites recursed.
  const one = (t: Term): Term => {
    switch (t.type) {
      case 'ref':
        return hoist({ ...t, path: t.path.map(one) });
      case 'var':
        return t.slot === undefined && ROOTS.has(t.name) ? hoist(t) : t;
      case 'call': {
        const out2 = { ...t, args: t.args.map(one) };
        const f = FUNC_OUTPUT.get(t);
        if (f !== undefined) FUNC_OUTPUT.set(out2, out2.args[out2.args.length - 1] as Term);
        return hoist(out2);
      }
      case 'array':
        return { ...t, items: t.items.map(one) };
      case 'set':
        return { ...t, items: t.items.map(one) };
      case 'object':
        return { ...t, entries: t.entries.map(([k, v]) => [one(k), one(v)] as [Term, Term]) };
      default:
        return t;
    }
  };
  // rewriteDynamicsInTerm: a ref keeps its place (only its dynamic path parts move), a comprehension too.
  const inTerm = (t: Term): Term => {
    if (t.type === 'ref') return { ...t, path: t.path.map(one) };
    if (t.type === 'var' || t.type === 'arraycompr' || t.type === 'setcompr' || t.type === 'objectcompr') return t;
    return one(t);
  };
  if (e.kind === 'unify') {
    l.expr = { kind: 'unify', left: inTerm(e.left), right: inTerm(e.right) };
  } else if (e.kind === 'term') {
    const t = e.term;
    if (t.type === 'call' && t.name === 'equal' && t.args.length === 2 && t.target?.kind !== 'func') {
      l.expr = { kind: 'unify', left: inTerm(t.args[0] as Term), right: inTerm(t.args[1] as Term) };
    } else if (t.type === 'call' && !FUNC_OUTPUT.has(t)) {
      l.expr = { kind: 'term', term: { ...t, args: t.args.map(one) } };
    } else if (t.type !== 'call') {
      l.expr = { kind: 'term', term: inTerm(t) };
    }
  }
}

function resolveLiteral(l: Literal, scope: Scope, ctx: ResolveCtx): Literal {
  const e = l.expr;
  let expr: Expr;
  switch (e.kind) {
    case 'term': {
      const prev = ctx.statementCall;
      ctx.statementCall = e.term;
      expr = { kind: 'term', term: resolveTerm(e.term, scope, ctx) };
      ctx.statementCall = prev;
      break;
    }
    case 'unify':
      expr = { kind: 'unify', left: resolveTerm(e.left, scope, ctx), right: resolveTerm(e.right, scope, ctx) };
      break;
    case 'assign': {
      const right = resolveTerm(e.right, scope, ctx);
      if (e.left.type === 'ref' || (ctx.v1 && e.left.type === 'var' && ROOTS.has(e.left.name))) {
        const msg = e.left.type === 'var' ? `variables must not shadow ${e.left.name} (use a different variable name)` : 'cannot assign to ref';
        ctx.errors.push(new RegoError('rego_compile_error', msg, l.loc));
      }
      let hasVar = false;
      let firstValue: Value | undefined;
      walkTerms(e.left, (x) => {
        if (x.type === 'var') hasVar = true;
        else if (x.type === 'value' && firstValue === undefined) firstValue = x.value;
      });
      // OPA names the type of what cannot be assigned to (its first constant)
      if (!hasVar) ctx.errors.push(new RegoError('rego_compile_error', `cannot assign to ${firstValue === undefined ? e.left.type : typeName(firstValue)}`, l.loc));
      declarePattern(e.left, scope, ctx, true, 'assigned');
      expr = { kind: 'assign', left: resolveTerm(e.left, scope, ctx), right };
      break;
    }
    case 'some':
      for (const v of e.vars) declarePattern(v, scope, ctx, true, 'declared');
      expr = { kind: 'some', vars: e.vars.map((v) => resolveTerm(v, scope, ctx)) };
      registerDecls(e.vars, scope, ctx);
      break;
    case 'somein': {
      const coll = resolveTerm(e.coll, scope, ctx);
      if (e.key) declarePattern(e.key, scope, ctx, true, 'declared');
      declarePattern(e.value, scope, ctx, true, 'declared');
      expr = {
        kind: 'somein',
        key: e.key ? resolveTerm(e.key, scope, ctx) : undefined,
        value: resolveTerm(e.value, scope, ctx),
        coll,
      };
      break;
    }
    case 'every': {
      const domain = resolveTerm(e.domain, scope, ctx);
      const inner = new Scope(scope);
      if (e.key) declarePattern(e.key, inner, ctx, false, 'declared');
      declarePattern(e.value, inner, ctx, false, 'declared');
      const key = e.key ? resolveTerm(e.key, inner, ctx) : undefined;
      const value = resolveTerm(e.value, inner, ctx);
      registerDecls(e.key ? [e.key, e.value] : [e.value], inner, ctx);
      const body = resolveBody(e.body, new EveryScope(inner), ctx);
      expr = { kind: 'every', key, value, domain, body };
      break;
    }
  }
  const withs = l.withs.map((w) => ({ target: resolveWithTarget(w.target, ctx), value: resolveWithValue(w.value, scope, ctx), loc: w.loc }));
  return { negated: l.negated, expr, withs, loc: l.loc };
}

/** Calls used as `with` replacement functions (`with count as my_count`). */
export const WITH_FUNC_VALUES = new WeakSet<Term>();

function resolveWithValue(t: Term, scope: Scope, ctx: ResolveCtx): Term {
  const name = refName(t);
  if (name !== undefined) {
    const first = name.split('.')[0] as string;
    if (scope.lookup(first) === undefined && !ROOTS.has(first)) {
      const asFunc = resolveWithTarget(t, { ...ctx, errors: [] });
      if (asFunc.type === 'call') {
        WITH_FUNC_VALUES.add(asFunc);
        return asFunc;
      }
    }
  }
  return resolveTerm(t, scope, ctx);
}

/** Variables first seen inside an `every` body are local to it. */
class EveryScope extends Scope {}

function resolveWithTarget(t: Term, ctx: ResolveCtx): Term {
  // Targets are input/data refs, or function names (builtins or user functions).
  if (t.type === 'var' && (t.name === 'input' || t.name === 'data')) return t;
  if (t.type === 'ref' && t.head.type === 'var' && (t.head.name === 'input' || t.head.name === 'data')) {
    const full = refName(t);
    if (full !== undefined && ctx.funcArity.has(full)) return { type: 'call', name: full, args: [], loc: t.loc, target: { kind: 'func', path: full } };
    return t;
  }
  const name = refName(t);
  if (name === undefined) {
    ctx.errors.push(new RegoError('rego_compile_error', 'with keyword target must be a reference to input, data or a function', t.loc));
    return t;
  }
  const first = name.split('.')[0] as string;
  if (ctx.ruleNames.has(first) && !name.includes('.')) {
    const kinds = ctx.ruleNames.get(first) as Set<Rule['kind']>;
    if (kinds.has('func')) return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'func', path: ['data', ...ctx.pkg, first].join('.') } };
    return dataRef([...ctx.pkg, first], t.loc);
  }
  const imp = ctx.imports.get(first);
  if (imp && imp.type === 'ref') {
    const rest = name.split('.').slice(1);
    const segs = imp.path.map((p) => String((p as { value: unknown }).value));
    const full = ['data', ...segs, ...rest].join('.');
    if (ctx.funcArity.has(full)) return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'func', path: full } };
    return { ...imp, path: [...imp.path, ...rest.map((r) => ({ type: 'value' as const, value: r, loc: t.loc }))] };
  }
  if (lookupBuiltin(name)) return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'builtin', name } };
  if (ctx.funcArity.has(['data', ...ctx.pkg, name].join('.')))
    return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'func', path: ['data', ...ctx.pkg, name].join('.') } };
  ctx.errors.push(new RegoError('rego_compile_error', `with keyword target ${name} is not a known function or rule`, t.loc));
  return t;
}

function refName(t: Term): string | undefined {
  if (t.type === 'var') return t.name;
  if (t.type === 'ref' && t.head.type === 'var') {
    const parts = [t.head.name];
    for (const p of t.path) {
      if (p.type !== 'value' || typeof p.value !== 'string') return undefined;
      parts.push(p.value);
    }
    return parts.join('.');
  }
  return undefined;
}

/** Errors of the type check, OPA's last compile stage (CheckTypes). */
const TYPE_STAGE = new WeakSet<RegoError>();

function typeCheck(body: Literal[], errors: RegoError[], headTerms: readonly Term[] = []): void {
  const found: RegoError[] = [];
  checkBodyTypes(body, found, headTerms);
  for (const e of found) TYPE_STAGE.add(e);
  errors.push(...found);
}

/**
 * OPA stops at the first compile stage with errors: local-var rewriting, rule conflicts and undefined
 * functions come before safety, and types are checked last (a module with an unsafe var and a
 * `1 == "a"` reports only the unsafe var; one with `x` "referenced above" and an unsafe var only the
 * former).
 */
function throwCompileErrors(errors: RegoError[]): never {
  const stage = (e: RegoError): number => (TYPE_STAGE.has(e) ? 3 : e.regoCode === 'rego_unsafe_var_error' ? 2 : 1);
  const ordered = errors.map((e, i) => ({ e, i })).sort((a, b) => stage(a.e) - stage(b.e) || a.i - b.i).map((x) => x.e);
  const first = ordered[0] as RegoError;
  throw new RegoError(first.regoCode ?? 'rego_compile_error', first.regoMessage ?? '', first.loc, ordered.slice(1));
}

// ---------------------------------------------------------------- safety ordering

/** Vars a term needs bound to be evaluated (ref keys and call outputs excluded), given bound set. */
function termNeeds(t: Term, bound: Set<number>, outs: Set<number>): number[] {
  const missing: number[] = [];
  const need = (x: Term): void => {
    switch (x.type) {
      case 'value':
        return;
      case 'var':
        if (x.slot !== undefined && !bound.has(x.slot) && !outs.has(x.slot)) missing.push(x.slot);
        return;
      case 'ref':
        need(x.head);
        for (const p of x.path) {
          if (p.type === 'var' && p.slot !== undefined && !bound.has(p.slot)) outs.add(p.slot);
          else if (isPatternish(p, bound)) patternOuts(p, bound, outs);
          else need(p);
        }
        return;
      case 'array':
      case 'set':
        for (const i of x.items) need(i);
        return;
      case 'object':
        for (const [k, v] of x.entries) {
          need(k);
          need(v);
        }
        return;
      case 'call':
        for (const a of x.args) need(a);
        return;
      case 'arraycompr':
      case 'setcompr':
      case 'objectcompr':
        for (const s of comprFree(x)) if (!bound.has(s) && !outs.has(s)) missing.push(s);
        return;
    }
  };
  need(t);
  return missing;
}

/** Closure vars of a comprehension: slots set by `freeVarsOf` during compile. */
const COMPR_FREE = new WeakMap<Term, Set<number>>();
function comprFree(t: Term): Set<number> {
  return COMPR_FREE.get(t) ?? new Set();
}

function isPatternish(t: Term, bound: Set<number>): boolean {
  if (t.type === 'var') return t.slot !== undefined && !bound.has(t.slot);
  if (t.type === 'array') return t.items.some((i) => isPatternish(i, bound));
  if (t.type === 'object') return t.entries.some(([, v]) => isPatternish(v, bound));
  return false;
}

/** Vars a pattern binds; object keys bind nothing (OPA: keys must be bound before the unification). */
function patternOuts(t: Term, bound: Set<number>, outs: Set<number>): void {
  switch (t.type) {
    case 'var':
      if (t.slot !== undefined && !bound.has(t.slot)) outs.add(t.slot);
      return;
    case 'array':
      for (const i of t.items) patternOuts(i, bound, outs);
      return;
    case 'object':
      for (const [, v] of t.entries) patternOuts(v, bound, outs);
      return;
    default:
      walkTerms(t, (x) => {
        if (x.type === 'var' && x.slot !== undefined && !bound.has(x.slot)) outs.add(x.slot);
      });
  }
}

/** The vars in object keys of a pattern that are not bound yet. */
function unboundKeyVars(t: Term, bound: Set<number>): number[] {
  const out: number[] = [];
  const visit = (x: Term): void => {
    if (x.type === 'array') x.items.forEach(visit);
    else if (x.type === 'object') {
      for (const [k, v] of x.entries) {
        walkTerms(k, (y) => {
          if (y.type === 'var' && y.slot !== undefined && !bound.has(y.slot)) out.push(y.slot);
        });
        visit(v);
      }
    }
  };
  visit(t);
  return out;
}

/** For a call with an extra output argument, the output term. */
function callOutput(t: Term): Term | undefined {
  if (t.type !== 'call' || !t.target) return undefined;
  if (t.target.kind === 'builtin') {
    const b = lookupBuiltin(t.target.name);
    if (b && b.arity >= 0 && t.args.length === b.arity + 1) return t.args[t.args.length - 1];
    return undefined;
  }
  return FUNC_OUTPUT.get(t);
}
const FUNC_OUTPUT = new WeakMap<Term, Term>();

/** Returns the vars this literal binds if it can run with `bound`, or the missing vars. */
function placeLiteral(l: Literal, bound: Set<number>, outside: Set<number>): { outs: Set<number> } | { missing: number[] } {
  const outs = new Set<number>();
  const e = l.expr;
  const missing: number[] = [];
  for (const w of l.withs) missing.push(...termNeeds(w.value, bound, outs));
  if (l.negated) {
    // every var that is also used outside this literal must be bound first
    for (const s of literalSlots(l)) if (outside.has(s) && !bound.has(s)) missing.push(s);
    return missing.length ? { missing } : { outs: new Set() };
  }
  const tryUnify = (a: Term, b: Term): boolean => {
    const o1 = new Set<number>();
    const m1 = termNeeds(b, bound, o1);
    if (m1.length === 0) {
      const trial = new Set([...bound, ...o1]);
      if (unboundKeyVars(a, trial).length > 0) return false;
      if (termNeeds(a, trial, new Set()).length === 0 || isPatternish(a, trial) || patternable(a, trial)) {
        for (const s of o1) outs.add(s);
        patternOuts(a, trial, outs);
        walkTerms(a, (x) => {
          if (x.type === 'ref' || x.type === 'call') termNeeds(x, trial, outs);
        });
        return true;
      }
    }
    return false;
  };
  switch (e.kind) {
    case 'term': {
      const out = callOutput(e.term);
      if (out && e.term.type === 'call') {
        const ins = e.term.args.slice(0, -1);
        for (const a of ins) missing.push(...termNeeds(a, bound, outs));
        if (missing.length) return { missing };
        patternOuts(out, new Set([...bound, ...outs]), outs);
        return { outs };
      }
      missing.push(...termNeeds(e.term, bound, outs));
      return missing.length ? { missing } : { outs };
    }
    case 'unify':
    case 'assign': {
      if (missing.length) return { missing };
      if (tryUnify(e.left, e.right) || tryUnify(e.right, e.left)) return { outs };
      if (e.left.type === 'array' && e.right.type === 'array' && e.left.items.length === e.right.items.length) {
        // element-wise: place if each pair can be unified in some order
        let b2 = new Set(bound);
        const pending = e.left.items.map((x, i) => [x, e.right.type === 'array' ? (e.right.items[i] as Term) : x] as [Term, Term]);
        let progress = true;
        while (pending.length && progress) {
          progress = false;
          for (let i = 0; i < pending.length; i++) {
            const [x, y] = pending[i] as [Term, Term];
            const sub: Literal = { negated: false, expr: { kind: 'unify', left: x, right: y }, withs: [], loc: l.loc };
            const r = placeLiteral(sub, b2, outside);
            if ('outs' in r) {
              for (const s of r.outs) outs.add(s);
              b2 = new Set([...b2, ...r.outs]);
              pending.splice(i, 1);
              progress = true;
              break;
            }
          }
        }
        if (pending.length === 0) return { outs };
      }
      if (e.left.type === 'object' && e.right.type === 'object' && e.left.entries.length === e.right.entries.length) {
        const rk = new Map<string, Term>();
        for (const [k, v] of e.right.entries) if (k.type === 'value') rk.set(JSON.stringify(String(k.value)) + typeof k.value, v);
        const pairs: [Term, Term][] = [];
        for (const [k, v] of e.left.entries) {
          const m = k.type === 'value' ? rk.get(JSON.stringify(String(k.value)) + typeof k.value) : undefined;
          if (m) pairs.push([v, m]);
        }
        if (pairs.length === e.left.entries.length) {
          const sub: Literal = {
            negated: false,
            expr: { kind: 'unify', left: { type: 'array', items: pairs.map((p) => p[0]), loc: l.loc }, right: { type: 'array', items: pairs.map((p) => p[1]), loc: l.loc } },
            withs: [],
            loc: l.loc,
          };
          const r = placeLiteral(sub, bound, outside);
          if ('outs' in r) return r;
        }
      }
      const m: number[] = [];
      termNeeds(e.left, bound, new Set()).forEach((s) => m.push(s));
      termNeeds(e.right, bound, new Set()).forEach((s) => m.push(s));
      return { missing: m.length ? m : [...literalSlots(l)].filter((s) => !bound.has(s)) };
    }
    case 'some':
      return { outs };
    case 'somein': {
      missing.push(...termNeeds(e.coll, bound, outs));
      if (missing.length) return { missing };
      // a call as the element (`some (x in a) in b`) binds nothing: its vars must be bound already
      if (e.value.type === 'call') missing.push(...termNeeds(e.value, bound, outs));
      if (missing.length) return { missing };
      if (e.key) patternOuts(e.key, bound, outs);
      patternOuts(e.value, bound, outs);
      return { outs };
    }
    case 'every': {
      missing.push(...termNeeds(e.domain, bound, outs));
      for (const s of literalSlots({ ...l, expr: { kind: 'term', term: { type: 'value', value: null, loc: l.loc } } }))
        if (outside.has(s) && !bound.has(s)) missing.push(s);
      for (const b of e.body) for (const s of literalSlots(b)) if (outside.has(s) && !bound.has(s)) missing.push(s);
      return missing.length ? { missing } : { outs: new Set() };
    }
  }
}

function patternable(t: Term, bound: Set<number>): boolean {
  if (t.type === 'var') return true;
  if (t.type === 'value') return true;
  if (t.type === 'array') return t.items.every((i) => patternable(i, bound));
  if (t.type === 'object') return t.entries.every(([k, v]) => termNeeds(k, bound, new Set()).length === 0 && patternable(v, bound));
  return termNeeds(t, bound, new Set()).length === 0;
}

interface OrderCtx {
  names: Map<number, string>;
  errors: RegoError[];
}

/**
 * Orders a body so every literal runs after the literals that bind its inputs. `bound` holds the slots
 * bound on entry; on return it also holds the slots the body binds. `outside` holds slots used outside
 * the body (head, enclosing body), which negations and closures must wait for.
 */
function orderBody(body: Literal[], bound: Set<number>, outside: Set<number>, octx: OrderCtx): Literal[] {
  // First order nested bodies (comprehensions, every) with their own closure info.
  const counts = new Map<number, number>();
  const litSlots = body.map((l) => literalTopSlots(l));
  for (const s of litSlots) for (const x of s) counts.set(x, (counts.get(x) ?? 0) + 1);
  const remaining = body.map((l, i) => ({ l, i }));
  const out: Literal[] = [];
  // What the other literals use does not change while the body is ordered: built once per literal,
  // not on every attempt to place it.
  const othersOf = new Map<number, Set<number>>();
  const othersFor = (i: number): Set<number> => {
    const known = othersOf.get(i);
    if (known !== undefined) return known;
    const others = new Set(outside);
    litSlots.forEach((s, k) => {
      if (k !== i) for (const x of s) others.add(x);
    });
    othersOf.set(i, others);
    return others;
  };
  while (remaining.length) {
    let placed = false;
    for (let j = 0; j < remaining.length; j++) {
      const { l, i } = remaining[j] as { l: Literal; i: number };
      const others = othersFor(i);
      prepareNested(l, bound, others, octx);
      const r = placeLiteral(l, bound, others);
      if ('outs' in r) {
        for (const s of r.outs) bound.add(s);
        out.push(l);
        remaining.splice(j, 1);
        placed = true;
        break;
      }
    }
    if (!placed) {
      const { l } = remaining[0] as { l: Literal };
      const others = new Set(outside);
      const r = placeLiteral(l, bound, others);
      const missing = 'missing' in r ? r.missing : [];
      const names = [...new Set(missing.map((s) => octx.names.get(s) ?? '?'))].filter((n) => n !== '_');
      const shown = names.length ? names : ['_'];
      for (const n of shown) octx.errors.push(new RegoError('rego_unsafe_var_error', `var ${n} is unsafe`, l.loc));
      return out.concat(remaining.map((x) => x.l));
    }
  }
  return out;
}

/** Orders the bodies nested in a literal (comprehensions, every, negation-free closures). */
function prepareNested(l: Literal, bound: Set<number>, outside: Set<number>, octx: OrderCtx): void {
  const visit = comprVisitor(bound, outside, octx);
  if (l.expr.kind !== 'every') walkLiteral(l, visit);
  else {
    // The body's closures are ordered with the body below, where the key and value are bound.
    walkTerms(l.expr.domain, visit);
    for (const w of l.withs) walkTerms(w.value, visit);
  }
  if (l.expr.kind === 'every') {
    const e = l.expr;
    const b2 = new Set(bound);
    for (const s of literalSlots({ ...l, expr: { kind: 'term', term: e.value }, withs: [] })) b2.add(s);
    if (e.key) varSlots(e.key, b2);
    for (const s of outside) b2.add(s);
    const ordered = orderBody(e.body, b2, outside, octx);
    e.body.splice(0, e.body.length, ...ordered);
  }
}

/** Orders each comprehension a walk meets, given the slots bound and used outside it. */
function comprVisitor(bound: Set<number>, outside: Set<number>, octx: OrderCtx): (t: Term) => void {
  const visit = (t: Term): void => {
    if (t.type === 'arraycompr' || t.type === 'setcompr' || t.type === 'objectcompr') {
      if (COMPR_FREE.has(t)) return;
      const inner = new Set<number>();
      for (const b of t.body) for (const s of literalSlots(b)) inner.add(s);
      const headSlots = new Set<number>();
      if (t.type === 'objectcompr') {
        varSlots(t.key, headSlots);
        varSlots(t.value, headSlots);
      } else varSlots(t.term, headSlots);
      for (const s of headSlots) inner.add(s);
      const free = new Set<number>();
      for (const s of inner) if (outside.has(s) || bound.has(s)) free.add(s);
      COMPR_FREE.set(t, free);
      const b2 = new Set(bound);
      for (const s of free) b2.add(s);
      const ordered = orderBody(t.body, b2, new Set([...outside, ...headSlots]), octx);
      t.body.splice(0, t.body.length, ...ordered);
      const heads = t.type === 'objectcompr' ? [t.key, t.value] : [t.term];
      // a comprehension in the head sees the vars this one's body binds
      const headVisit = comprVisitor(b2, outside, octx);
      for (const h of heads) walkTerms(h, headVisit);
      for (const h of heads) {
        const outs = new Set<number>();
        const missing = termNeeds(h, b2, outs);
        for (const s of outs) b2.add(s);
        if (missing.length) {
          octx.errors.push(new RegoError('rego_unsafe_var_error', `var ${octx.names.get(missing[0] as number) ?? '?'} is unsafe`, t.loc));
          break;
        }
      }
      return;
    }
  };
  return visit;
}

// ---------------------------------------------------------------- modules

function ruleHeadName(r: Rule): string {
  return (r.ref[0] as Term & { type: 'var' }).name;
}

/** Constant string prefix of a head ref (after the first var). */
function constPrefix(r: Rule): { consts: string[]; rest: Term[] } {
  const consts = [ruleHeadName(r)];
  let i = 1;
  for (; i < r.ref.length; i++) {
    const t = r.ref[i] as Term;
    if (t.type === 'value' && typeof t.value === 'string') consts.push(t.value);
    else break;
  }
  return { consts, rest: r.ref.slice(i) };
}

export function compiledPolicyOf(modules: readonly Module[]): CompiledPolicy {
  const errors: RegoError[] = [];
  const root: DataNode = { path: [], children: new Map(), rules: [], funcs: [], hasRules: false };
  const funcs = new Map<string, CRule[]>();
  const funcArity = new Map<string, number>();
  const ruleNamesByPkg = new Map<string, Map<string, Set<Rule['kind']>>>();
  for (const m of modules) {
    const key = m.pkg.join('.');
    let names = ruleNamesByPkg.get(key);
    if (!names) ruleNamesByPkg.set(key, (names = new Map()));
    for (const r of m.rules) {
      const n = ruleHeadName(r);
      let s = names.get(n);
      if (!s) names.set(n, (s = new Set()));
      s.add(r.kind);
      if (r.kind === 'func') {
        const path = ['data', ...m.pkg.slice(1), ...constPrefix(r).consts].join('.');
        const prev = funcArity.get(path);
        if (prev !== undefined && prev !== r.args.length)
          errors.push(new RegoError('rego_type_error', `conflicting rules ${path} found`, r.loc));
        funcArity.set(path, r.args.length);
      }
    }
  }
  const nodeAt = (path: string[], isFunc = false): DataNode => {
    let n = root;
    n.hasRules = true;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i] as string;
      let c = n.children.get(seg);
      if (!c) n.children.set(seg, (c = { path: path.slice(0, i + 1), children: new Map(), rules: [], funcs: [], hasRules: false }));
      n = c;
      if (!isFunc || i < path.length - 1) n.hasRules = true;
    }
    return n;
  };
  for (const m of modules) {
    if (m.pkg[0] !== 'data') {
      errors.push(new RegoError('rego_parse_error', 'package must begin with data', m.pkgLoc));
      continue;
    }
    const pkg = m.pkg.slice(1);
    nodeAt(pkg);
    const imports = new Map<string, Term>();
    for (const imp of m.imports) {
      const t = imp.path;
      const segs = refName(t)?.split('.') ?? [];
      if (segs[0] !== 'data' && segs[0] !== 'input') continue;
      const alias = imp.alias ?? (segs[segs.length - 1] as string);
      imports.set(alias, t);
    }
    const ruleNames = ruleNamesByPkg.get(m.pkg.join('.')) as Map<string, Set<Rule['kind']>>;
    for (const r of m.rules) {
      const notKeyword = m.imports.some((i) => {
        const segs = importSegments(i.path);
        return segs[0] === 'future' && segs[1] === 'keywords' && (segs.length === 2 || segs[2] === 'not');
      });
      const ctx: ResolveCtx = { v1: m.regoV1, notKeyword, pkg, file: m.file, imports, ruleNames, funcArity, nslots: 0, names: new Map(), errors };
      const head = ruleHeadName(r);
      if (m.regoV1 && ROOTS.has(head)) errors.push(new RegoError('rego_compile_error', `rules must not shadow ${head} (${head} cannot be shadowed)`, r.loc));
      if (r.isDefault) checkDefaultValue(r.value, errors);
      const { consts, rest } = constPrefix(r);
      const compiled = compileRule(r, ctx, pkg, consts, rest);
      if (r.kind === 'func') {
        const path = ['data', ...pkg, ...consts].join('.');
        let list = funcs.get(path);
        if (!list) funcs.set(path, (list = []));
        list.push(compiled);
        nodeAt([...pkg, ...consts], true).funcs.push(compiled);
      } else {
        nodeAt([...pkg, ...consts]).rules.push(compiled);
      }
    }
  }
  checkConflicts(root, errors);
  if (errors.length === 0) checkRecursion(root, funcs, errors);
  if (errors.length) throwCompileErrors(errors);
  return { root, funcs, modules };
}

/** Default values must be constants (no refs, calls or operators outside comprehensions). */
function checkDefaultValue(t: Term, errors: RegoError[]): void {
  const bad = (x: Term): string | undefined => {
    switch (x.type) {
      case 'ref':
        return 'ref';
      case 'call':
        return 'call';
      case 'var':
        return 'var';
      case 'array':
      case 'set':
        for (const i of x.items) {
          const b = bad(i);
          if (b) return b;
        }
        return undefined;
      case 'object':
        for (const [k, v] of x.entries) {
          const b = bad(k) ?? bad(v);
          if (b) return b;
        }
        return undefined;
      default:
        return undefined;
    }
  };
  const b = bad(t);
  // OPA's parser refuses these (the rule's location, its wording)
  if (b) errors.push(new RegoError('rego_parse_error', `illegal default rule (value cannot contain ${b})`, t.loc));
}

function compileRule(r: Rule, ctx: ResolveCtx, pkg: string[], consts: string[], rest: Term[]): CRule {
  const scope = new Scope(undefined);
  const bound = new Set<number>();
  // function args are patterns bound on entry
  const args = r.args.map((a) => {
    declarePattern(a, scope, ctx, false, 'arg');
    const t = resolveTerm(a, scope, ctx);
    varSlots(t, bound);
    return t;
  });
  // Each `else` is a rule of its own in OPA: its body starts from the function's arguments alone.
  const argVars = new Map(scope.vars);
  const argDeclared = new Set(scope.declared);
  const body = resolveBody(r.body, scope, ctx);
  const restR = rest.map((t) => resolveTerm(t, scope, ctx));
  const key = r.key ? resolveTerm(r.key, scope, ctx) : undefined;
  const value = resolveTerm(r.value, scope, ctx);
  typeCheck(body, ctx.errors, [...restR, ...(key ? [key] : []), value]);
  const headSlots = new Set<number>();
  for (const t of [...restR, value, ...(key ? [key] : [])]) topSlots(t, headSlots);
  const octx: OrderCtx = { names: ctx.names, errors: ctx.errors };
  const b = new Set(bound);
  const ordered = orderBody(body, b, headSlots, octx);
  // head terms may contain comprehensions that need ordering too
  for (const t of [...restR, value, ...(key ? [key] : [])]) {
    prepareNested({ negated: false, expr: { kind: 'term', term: t }, withs: [], loc: r.loc }, b, new Set(), octx);
  }
  for (const t of [...restR, ...(key ? [key] : []), value]) {
    const outs = new Set<number>();
    const missing = termNeeds(t, b, outs);
    for (const s of outs) b.add(s);
    if (missing.length && ctx.errors.length === 0) {
      const n = ctx.names.get(missing[0] as number) ?? '?';
      ctx.errors.push(new RegoError('rego_unsafe_var_error', `var ${n} is unsafe`, r.loc));
    }
  }
  const elses = r.elses.map((e) => {
    const es = new Scope(undefined);
    for (const [n, slot] of argVars) es.vars.set(n, slot);
    for (const n of argDeclared) {
      es.declared.add(n);
      es.declaredAs.set(n, 'arg');
    }
    const eb = resolveBody(e.body, es, ctx);
    const ev = resolveTerm(e.value, es, ctx);
    typeCheck(eb, ctx.errors, [ev]);
    const b3 = new Set(bound);
    const hs = topSlots(ev, new Set());
    const ord = orderBody(eb, b3, hs, octx);
    return {
      kind: r.kind,
      path: ['data', ...pkg, ...consts],
      rest: restR,
      key: undefined,
      value: ev,
      args,
      body: ord,
      elses: [],
      isDefault: false,
      nslots: 0,
      refLen: r.ref.length,
      loc: e.loc,
    } as CRule;
  });
  const out: CRule = {
    kind: r.kind,
    path: ['data', ...pkg, ...consts],
    rest: restR,
    key,
    value,
    args,
    body: ordered,
    elses,
    isDefault: r.isDefault,
    nslots: 0,
    refLen: r.ref.length,
    loc: r.loc,
  };
  checkDeclsUsed(ctx);
  out.nslots = ctx.nslots;
  for (const e of elses) e.nslots = ctx.nslots;
  for (const br of [out, ...elses]) foldRule(br);
  return out;
}

// ---------------------------------------------------------------- constant literals

/**
 * Turns every array, set and object literal whose members are all constants into one constant
 * term, in place, after the checks that read literal shapes: such a literal is then built once,
 * not on every evaluation (`method in {"GET", "POST"}`, a table of constants as a rule's value).
 * The value is what evaluating the literal gives (a repeated object key keeps its last value, a
 * set drops repeats), and it is shared, like the base document, so nothing may change it.
 */
function foldRule(r: CRule): void {
  for (const t of [...r.args, ...r.rest, ...(r.key ? [r.key] : []), r.value]) foldTerm(t);
  for (const l of r.body) foldLiteral(l);
}

function foldLiteral(l: Literal): void {
  const e = l.expr;
  switch (e.kind) {
    case 'term':
      foldTerm(e.term);
      break;
    case 'unify':
    case 'assign':
      foldTerm(e.left);
      foldTerm(e.right);
      break;
    case 'somein':
      foldTerm(e.coll);
      break;
    case 'every':
      foldTerm(e.domain);
      for (const b of e.body) foldLiteral(b);
      break;
    default:
      break;
  }
  for (const w of l.withs) foldTerm(w.value);
}

function foldTerm(t: Term): void {
  switch (t.type) {
    case 'ref':
      for (const p of t.path) foldTerm(p);
      return;
    case 'call':
      for (const a of t.args) foldTerm(a);
      return;
    case 'arraycompr':
    case 'setcompr':
      foldTerm(t.term);
      for (const l of t.body) foldLiteral(l);
      return;
    case 'objectcompr':
      foldTerm(t.key);
      foldTerm(t.value);
      for (const l of t.body) foldLiteral(l);
      return;
    case 'array':
    case 'set': {
      for (const i of t.items) foldTerm(i);
      if (!t.items.every((i) => i.type === 'value')) return;
      const vals = t.items.map((i) => (i as Term & { type: 'value' }).value);
      becomeConstant(t, t.type === 'array' ? vals : new SetValue(vals));
      return;
    }
    case 'object': {
      for (const [k, v] of t.entries) {
        foldTerm(k);
        foldTerm(v);
      }
      if (!t.entries.every(([k, v]) => k.type === 'value' && v.type === 'value')) return;
      const o = new ObjectValue();
      for (const [k, v] of t.entries) o.set((k as Term & { type: 'value' }).value, (v as Term & { type: 'value' }).value);
      becomeConstant(t, o);
      return;
    }
    default:
      return;
  }
}

function becomeConstant(t: Term, value: Value): void {
  const m = t as unknown as Record<string, unknown>;
  delete m.items;
  delete m.entries;
  m.type = 'value';
  m.value = value;
}

function checkConflicts(node: DataNode, errors: RegoError[]): void {
  const kinds = new Set(node.rules.map((r) => (r.rest.length ? 'obj' : r.kind)));
  if (kinds.size > 1 || (node.funcs.length && node.rules.length)) {
    const r = node.rules[0] ?? node.funcs[0];
    errors.push(new RegoError('rego_type_error', `conflicting rules ${node.path.join('.')} found`, r?.loc));
  }
  // several defaults are allowed only at distinct constant ref-head keys (`default p[true] := ...`)
  const defaultKeys = node.rules
    .filter((r) => r.isDefault)
    .map((r) => (r.rest.length && r.rest.every((t) => t.type === 'value') ? r.rest.map((t) => valueKey((t as { value: Value }).value)).join('/') : ''));
  const defaults = defaultKeys.length + node.funcs.filter((r) => r.isDefault).length;
  if (defaults > 1 && (defaultKeys.includes('') || new Set(defaultKeys).size < defaultKeys.length || node.funcs.some((r) => r.isDefault))) {
    errors.push(new RegoError('rego_type_error', `multiple default rules ${['data', ...node.path].join('.')} found`, node.rules[0]?.loc));
  }
  for (const c of node.children.values()) checkConflicts(c, errors);
}

/** Rule-level dependency graph: refs to data paths and calls; cycles are recursion errors. */
function checkRecursion(root: DataNode, funcs: Map<string, CRule[]>, errors: RegoError[]): void {
  const all: { id: string; rules: CRule[] }[] = [];
  const collect = (n: DataNode): void => {
    if (n.rules.length) all.push({ id: ['data', ...n.path].join('.'), rules: n.rules });
    for (const c of n.children.values()) collect(c);
  };
  collect(root);
  for (const [p, rs] of funcs) all.push({ id: p, rules: rs });
  const byId = new Map(all.map((x) => [x.id, x]));
  // The ids below each dotted prefix (every id starting with `prefix.`), in byId order: scanning
  // every id for every data ref made this pass quadratic.
  const below = new Map<string, string[]>();
  for (const k of byId.keys()) {
    for (let i = k.indexOf('.'); i !== -1; i = k.indexOf('.', i + 1)) {
      const prefix = k.slice(0, i);
      let list = below.get(prefix);
      if (!list) below.set(prefix, (list = []));
      list.push(k);
    }
  }
  const deps = new Map<string, Set<string>>();
  for (const { id, rules } of all) {
    const d = new Set<string>();
    const visit = (t: Term): void => {
      if (t.type === 'call' && t.target?.kind === 'func') d.add(t.target.path);
      if (t.type === 'ref' && t.head.type === 'var' && t.head.name === 'data') {
        // the longest constant prefix that names a rule node, plus everything below it when it stops early
        let prefix = 'data';
        let stoppedOnConst = false;
        for (const p of t.path) {
          if (p.type !== 'value' || typeof p.value !== 'string') {
            stoppedOnConst = p.type === 'value';
            break;
          }
          prefix = `${prefix}.${p.value}`;
          if (byId.has(prefix)) d.add(prefix);
        }
        if (!stoppedOnConst) for (const k of below.get(prefix) ?? []) d.add(k);
      }
    };
    for (const r of rules) {
      for (const rr of [r, ...r.elses]) {
        for (const l of rr.body) walkLiteral(l, visit);
        walkTerms(rr.value, visit);
        if (rr.key) walkTerms(rr.key, visit);
        for (const t of rr.rest) walkTerms(t, visit);
      }
    }
    deps.set(id, d);
  }
  const state = new Map<string, number>();
  const stack: string[] = [];
  const dfs = (id: string): boolean => {
    state.set(id, 1);
    stack.push(id);
    for (const d of deps.get(id) ?? []) {
      const s = state.get(d);
      if (s === 1) {
        const cyc = stack.slice(stack.indexOf(d)).concat(d);
        const r = byId.get(d)?.rules[0];
        errors.push(new RegoError('rego_recursion_error', `rule ${d} is recursive: ${cyc.join(' -> ')}`, r?.loc));
        return true;
      }
      if (s === undefined && dfs(d)) return true;
    }
    stack.pop();
    state.set(id, 2);
    return false;
  };
  for (const { id } of all) if (!state.has(id) && dfs(id)) return;
}

// ---------------------------------------------------------------- queries

export function compileQuery(body: Literal[], policy: CompiledPolicy | undefined, pkg: string[] = []): CompiledQuery {
  const errors: RegoError[] = [];
  const funcArity = new Map<string, number>();
  if (policy) for (const [p, rs] of policy.funcs) funcArity.set(p, rs[0]?.args.length ?? 0);
  const vars: { name: string; slot: number }[] = [];
  const ctx: ResolveCtx = {
    pkg,
    file: 'query',
    imports: new Map(),
    ruleNames: new Map(),
    funcArity,
    nslots: 0,
    names: new Map(),
    errors,
    queryVars: vars,
  };
  const scope = new Scope(undefined);
  const resolved = resolveBody(body, scope, ctx);
  typeCheck(resolved, errors);
  // vars declared with := / some at top level are also result bindings
  for (const [name, slot] of scope.vars) if (!vars.some((v) => v.slot === slot)) vars.push({ name, slot });
  checkDeclsUsed(ctx);
  const ordered = orderBody(resolved, new Set(), new Set(), { names: ctx.names, errors });
  if (errors.length) throwCompileErrors(errors);
  return {
    body: ordered,
    nslots: ctx.nslots,
    vars: vars.filter((v) => !v.name.startsWith('_')).sort((a, b) => a.slot - b.slot),
  };
}

export { FUNC_OUTPUT as funcOutputMarks };
