/**
 * Name resolution of the compiler: scopes of local variables (one frame slot each; `:=`, `some`,
 * `every`, comprehensions, function arguments), imports, rules of the package, functions and builtins,
 * `with` targets and values, and the hoisting of a negated call's dynamic operands. Reports the
 * local-var errors (re-assigned, declared unused, referenced above).
 *
 * One file past 400 lines: every construct that opens a scope is resolved by one walk over one
 * scope stack, and its parts call one another as the constructs nest.
 */
import { refName, walkTerms } from './term-walk.ts';
import { assignedBefore, walkOutputTerms } from './pattern-vars.ts';
import { isTemplateCapture } from './template-vars.ts';
import { FUNC_OUTPUT } from './compiler-order.ts';
import type { CallTarget, Expr, Literal, Loc, Rule, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { recoverableError } from './compiler-checks.ts';
import { lookupBuiltin } from './builtins/registry.ts';
import { ObjectValue, typeName, type Value } from './value.ts';

/** A function argument, a `some`/`every` declaration, or a `:=` assignment. */
type DeclKind = 'arg' | 'declared' | 'assigned';

const REDECLARED: Record<DeclKind, (name: string) => string> = {
  arg: (n) => `arg ${n} redeclared`,
  declared: (n) => `var ${n} declared above`,
  assigned: (n) => `var ${n} assigned above`,
};

export class Scope {
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

export interface ResolveCtx {
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
  /** Paths of the rules that are not functions, which a call names with OPA's arity 0. */
  rulePaths?: ReadonlySet<string>;
  nslots: number;
  names: Map<number, string>;
  errors: RegoError[];
  /** Slots of variables named in the query (query compile only). */
  queryVars?: { name: string; slot: number }[];
  /** Every `some x` / `every` declaration of the rule or query being compiled (see checkDeclsUsed). */
  decls?: { name: string; loc: Loc; state: { used: boolean } }[];
  /** The expressions of template strings in the rule being resolved (string-interpolation.ts), resolved. */
  templateParts?: Term[];
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
export function checkDeclsUsed(ctx: ResolveCtx): void {
  for (const d of ctx.decls ?? []) {
    if (!d.state.used) ctx.errors.push(new RegoError('rego_compile_error', `declared var ${d.name} unused`, d.loc));
  }
  ctx.decls = [];
}

export const ROOTS = new Set(['data', 'input']);

function newSlot(ctx: ResolveCtx, name: string): number {
  const s = ctx.nslots++;
  ctx.names.set(s, name);
  return s;
}

/**
 * Declares the vars of a pattern term in scope (for some/:=/every/function args). `check`: as OPA, a
 * var declared, assigned or referenced earlier in the same scope cannot be declared again (`:=`, `some`).
 */
export function declarePattern(t: Term, scope: Scope, ctx: ResolveCtx, check: boolean, kind: DeclKind): void {
  walkOutputTerms(t, (x) => {
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
export function resolveTerm(t: Term, scope: Scope, ctx: ResolveCtx): Term {
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
      if (t.term.type === 'var' && isTemplateCapture(t.term.name)) {
        // a template expression that is a var (not a rule's name) is always defined: OPA takes the set of its one value (any `with` dropped)
        const e = t.body[0]?.expr;
        if (e?.kind === 'unify' && e.right.type === 'var') {
          const v = resolveTerm(e.right, scope, ctx);
          if (v.type === 'var') return { type: 'set', items: [v], loc: t.loc };
        }
      }
      const inner = new Scope(scope);
      const body = resolveBody(t.body, inner, ctx);
      const capture = body[0]?.expr;
      if (t.term.type === 'var' && isTemplateCapture(t.term.name) && capture?.kind === 'unify') (ctx.templateParts ??= []).push(capture.right);
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
  // a rule of the package shadows a builtin of its name, as OPA: calling it is an arity error (an
  // operator too: with a rule `lt`, `1 < 2` is `function data.pkg.lt has arity 0, got 2 arguments`)
  else if (ctx.ruleNames.has(first)) path = [...ctx.pkg, ...parts];
  else if (ctx.funcArity.has(['data', ...ctx.pkg, ...parts].join('.'))) path = [...ctx.pkg, ...parts];
  if (path) {
    const key = ['data', ...path].join('.');
    const arity = ctx.funcArity.get(key);
    if (arity === undefined && nargs > 0 && ctx.rulePaths?.has(key)) {
      ctx.errors.push(new RegoError('rego_type_error', `function ${key} has arity 0, got ${nargs} argument${nargs === 1 ? '' : 's'}`, t.loc));
    } else if (arity === undefined) {
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

export function resolveBody(body: Literal[], scope: Scope, ctx: ResolveCtx): Literal[] {
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
export function importSegments(t: Term): string[] {
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
      if ((e.left.type === 'ref' && !l.negated) || (ctx.v1 && e.left.type === 'var' && ROOTS.has(e.left.name))) {
        const msg = e.left.type === 'var' ? `variables must not shadow ${e.left.name} (use a different variable name)` : 'cannot assign to ref';
        const err = new RegoError('rego_compile_error', msg, l.loc);
        if (e.left.type === 'var') recoverableError(err, ctx.errors);
        else ctx.errors.push(err);
      }
      if (l.negated) ctx.errors.push(new RegoError('rego_compile_error', 'cannot assign vars inside negated expression', l.loc));
      else if (e.left.type !== 'ref') for (const fault of unassignable(e.left)) ctx.errors.push(new RegoError('rego_compile_error', `cannot assign to ${fault.what}`, fault.loc));
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
      // the vars `some` binds must not also appear in the collection
      for (const n of assignedBefore(e.key, e.value, e.coll)) ctx.errors.push(new RegoError('rego_compile_error', `var ${n} assigned before`, l.loc));
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

/**
 * What in the target of `:=` is not a variable, each named as OPA names it: arrays are walked, an
 * object's values (not its keys) too, anything else is refused (`[x, 1] := ...`: a number).
 */
function unassignable(t: Term): { what: string; loc: Loc }[] {
  const ofValue = (v: Value, loc: Loc): { what: string; loc: Loc }[] => {
    if (Array.isArray(v)) return v.flatMap((x) => ofValue(x, loc));
    if (v instanceof ObjectValue) return v.entries().flatMap(([, x]) => ofValue(x, loc));
    return [{ what: typeName(v), loc }];
  };
  switch (t.type) {
    case 'var':
      return [];
    case 'array':
      return t.items.flatMap(unassignable);
    case 'object':
      return t.entries.flatMap(([, v]) => unassignable(v));
    case 'value':
      return ofValue(t.value, t.loc);
    case 'arraycompr':
    case 'setcompr':
    case 'objectcompr':
      return [{ what: { arraycompr: 'arraycomprehension', setcompr: 'setcomprehension', objectcompr: 'objectcomprehension' }[t.type], loc: t.loc }];
    default:
      return [{ what: t.type, loc: t.loc }];
  }
}

/** Variables first seen inside an `every` body are local to it. */
class EveryScope extends Scope {}

function resolveWithTarget(t: Term, ctx: ResolveCtx): Term {
  // Targets are input/data refs, or function names (builtins or user functions).
  if (t.type === 'var' && (t.name === 'input' || t.name === 'data')) return t;
  if (t.type === 'ref' && t.head.type === 'var' && (t.head.name === 'input' || t.head.name === 'data')) {
    const full = refName(t);
    if (full !== undefined && ctx.funcArity.has(full)) return { type: 'call', name: full, args: [], loc: t.loc, target: { kind: 'func', path: full } };
    // a rule's value is replaced whole or not at all
    const segs = full?.split('.') ?? [];
    if (t.head.name === 'data' && segs.slice(0, -1).some((_, i) => ctx.rulePaths?.has(segs.slice(0, i + 1).join('.')))) {
      ctx.errors.push(new RegoError('rego_compile_error', 'with keyword cannot partially replace virtual document(s)', t.loc));
    }
    return t;
  }
  const name = refName(t);
  if (name === undefined) {
    ctx.errors.push(unknownWithTarget(t));
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
  const refused = builtinTargetRefusal(name);
  if (refused !== undefined) {
    ctx.errors.push(new RegoError('rego_compile_error', `with keyword replacing built-in function: ${refused}`, t.loc));
    return t;
  }
  if (lookupBuiltin(name)) return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'builtin', name } };
  if (ctx.funcArity.has(['data', ...ctx.pkg, name].join('.')))
    return { type: 'call', name, args: [], loc: t.loc, target: { kind: 'func', path: ['data', ...ctx.pkg, name].join('.') } };
  ctx.errors.push(unknownWithTarget(t));
  return t;
}

/**
 * Why a builtin may not be a `with` target, as OPA says it: unification and the rule metadata
 * calls, the internal functions, a relation (`walk`), a function with no value (`print`).
 */
function builtinTargetRefusal(name: string): string | undefined {
  if (name === 'eq' || name === 'rego.metadata.chain' || name === 'rego.metadata.rule') return `replacement of ${JSON.stringify(name)} invalid`;
  if (name.startsWith('internal.')) return `replacement of internal function ${JSON.stringify(name)} invalid`;
  if (name === 'walk') return 'target must not be a relation';
  if (name === 'print') return 'target must not be a void function';
  return undefined;
}

/** A `with` target that is neither input, data nor a function, in OPA's words. */
function unknownWithTarget(t: Term): RegoError {
  return new RegoError('rego_type_error', 'with keyword target must reference existing input, data, or a function', t.loc);
}

