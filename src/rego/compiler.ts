/**
 * Compiler: the compiled forms (rules, the data tree of rule nodes, queries) and the driver that turns
 * modules and queries into them. Its stages live beside it: name resolution and local-var scoping
 * (`compiler-resolve.ts`), OPA's safety reordering (`compiler-order.ts`), the checks over rules and the
 * rule tree and their reporting order (`compiler-checks.ts`), constant folding (`compiler-fold.ts`).
 */
import { refName, varSlots, topSlots } from './term-walk.ts';
import { Scope, type ResolveCtx, checkDeclsUsed, ROOTS, declarePattern, resolveTerm, resolveBody, importSegments } from './compiler-resolve.ts';
import { typeCheck, typeCheckFunctionCalls, throwCompileErrors, checkDefaultArgs, checkDefaultValue, checkConflicts, checkRecursion, rulesOf, checkDuplicateImports, recoverableError } from './compiler-checks.ts';
import { checkVoidCalls } from './void-calls.ts';
import { checkTemplateVars } from './template-vars.ts';
import { termNeeds, type OrderCtx, orderBody, prepareNested } from './compiler-order.ts';
import { foldRule } from './compiler-fold.ts';
import type { Literal, Loc, Module, Rule, Term } from './ast.ts';
import type { IndexCond } from './ruleindex.ts';
import { RegoError } from './errors.ts';
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
  /**
   * The branch's rule index conditions (ruleindex.ts), worked out on its first evaluation. Kept on
   * the rule, not in a weak map: they are read on every call of a function.
   */
  indexConds: readonly IndexCond[] | undefined;
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

export interface ModuleCompileOptions {
  /**
   * The modules are known to compile (a whole set they belong to did, with this compiler: decide's
   * certificate), so the checks that only report are not run again: types, rule conflicts and
   * recursion. Each holds of a part of a set it holds of (a part's rules, and the edges between
   * them, are among the whole's).
   */
  readonly knownToCompile?: boolean;
}

export function compiledPolicyOf(modules: readonly Module[], options: ModuleCompileOptions = {}): CompiledPolicy {
  const check = options.knownToCompile ? () => {} : typeCheck;
  const errors: RegoError[] = [];
  const root: DataNode = { path: [], children: new Map(), rules: [], funcs: [], hasRules: false };
  const funcs = new Map<string, CRule[]>();
  const funcArity = new Map<string, number>();
  const rulePaths = new Set<string>();
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
      } else rulePaths.add(['data', ...m.pkg.slice(1), ...constPrefix(r).consts].join('.'));
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
  // OPA's stages before any rule is compiled: rule names that shadow a root document, then imports of one name
  for (const m of modules) {
    if (!m.regoV1) continue;
    for (const r of m.rules) {
      const head = ruleHeadName(r);
      if (ROOTS.has(head)) recoverableError(new RegoError('rego_compile_error', `rules must not shadow ${head} (use a different rule name)`, r.loc), errors);
    }
  }
  for (const m of modules) if (m.regoV1) checkDuplicateImports(m.imports, errors);
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
      const ctx: ResolveCtx = { v1: m.regoV1, notKeyword, pkg, file: m.file, imports, ruleNames, funcArity, rulePaths, nslots: 0, names: new Map(), errors };
      if (r.isDefault) {
        checkDefaultArgs(r.args, r.loc, errors);
        checkDefaultValue(r.value, errors);
      }
      const { consts, rest } = constPrefix(r);
      const compiled = compileRule(r, ctx, pkg, consts, rest, check);
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
  if (!options.knownToCompile) {
    const all = rulesOf(root, funcs);
    checkVoidCalls(all, errors);
    typeCheckFunctionCalls(funcs, all, errors);
    checkConflicts(root, errors, new Map(modules.map((m) => [m.file, m.pkgLoc])));
    if (errors.length === 0) checkRecursion(root, funcs, errors);
  }
  if (errors.length) throwCompileErrors(errors);
  return { root, funcs, modules };
}

function compileRule(r: Rule, ctx: ResolveCtx, pkg: string[], consts: string[], rest: Term[], check: typeof typeCheck): CRule {
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
  check(body, ctx.errors, [...restR, ...(key ? [key] : []), value]);
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
    check(eb, ctx.errors, [ev]);
    const b3 = new Set(bound);
    const hs = topSlots(ev, new Set());
    const ord = orderBody(eb, b3, hs, octx);
    // an else's value is a head of its own: its vars must be bound by the arguments or its body
    const missing = termNeeds(ev, b3, new Set());
    if (missing.length && ctx.errors.length === 0) ctx.errors.push(new RegoError('rego_unsafe_var_error', `var ${ctx.names.get(missing[0] as number) ?? '?'} is unsafe`, e.loc));
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
      indexConds: undefined,
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
    indexConds: undefined,
  };
  checkDeclsUsed(ctx);
  checkTemplateVars(ctx, { terms: [...args, ...restR, value, ...(key ? [key] : []), ...elses.map((e) => e.value)], bodies: [body, ...elses.map((e) => e.body)] });
  out.nslots = ctx.nslots;
  for (const e of elses) e.nslots = ctx.nslots;
  for (const br of [out, ...elses]) foldRule(br);
  return out;
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
