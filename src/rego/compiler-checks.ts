/**
 * The compiler's checks over whole rules and the rule tree: the type check stage, constant default
 * values, conflicting rule kinds and defaults, rule recursion, and the order in which OPA's stages
 * report their errors.
 */
import type { CRule, DataNode } from './compiler.ts';
import { walkTerms, walkLiteral } from './term-walk.ts';
import type { Import, Literal, Loc, Term } from './ast.ts';
import { refSegment, termText } from './term-text.ts';
import { RegoError } from './errors.ts';
import { checkBodyTypes, checkFunctionCalls, checkFunctionRefs } from './typecheck.ts';
import { compareValues, typeName, type Value } from './value.ts';
import { valueKey } from './value-key.ts';

/** Errors of the type check, OPA's last compile stage (CheckTypes). */
const TYPE_STAGE = new WeakSet<RegoError>();

export function typeCheck(body: Literal[], errors: RegoError[], headTerms: readonly Term[] = []): void {
  const found: RegoError[] = [];
  checkBodyTypes(body, found, headTerms);
  for (const e of found) TYPE_STAGE.add(e);
  errors.push(...found);
}

/** Every compiled rule and function of the tree. */
export function rulesOf(root: DataNode, funcs: ReadonlyMap<string, readonly CRule[]>): CRule[] {
  const rules: CRule[] = [...funcs.values()].flat();
  const walk = (n: DataNode): void => {
    rules.push(...n.rules);
    for (const c of n.children.values()) walk(c);
  };
  walk(root);
  return rules;
}

/** The type check of the calls of the policy's own functions and of references to them (typecheck.ts), once every rule is compiled. */
export function typeCheckFunctionCalls(funcs: ReadonlyMap<string, readonly CRule[]>, rules: readonly CRule[], errors: RegoError[]): void {
  const found: RegoError[] = [];
  checkFunctionCalls(funcs, rules, found);
  checkFunctionRefs(funcs, rules, found);
  for (const e of found) TYPE_STAGE.add(e);
  errors.push(...found);
}

/**
 * OPA stops at the first compile stage with errors: local-var rewriting, rule conflicts and undefined
 * functions come before safety, and types are checked last (a module with an unsafe var and a
 * `1 == "a"` reports only the unsafe var; one with `x` "referenced above" and an unsafe var only the
 * former).
 */
export function throwCompileErrors(errors: RegoError[]): never {
  const stage = (e: RegoError): number => (TYPE_STAGE.has(e) ? 3 : e.regoCode === 'rego_unsafe_var_error' ? 2 : 1);
  // OPA sorts the type check's errors by location, then text (ast.Errors.Sort)
  const byPlace = (a: RegoError, b: RegoError): number => (stage(a) === 3 && stage(b) === 3 ? compareLocs(a, b) : 0);
  const fatal = errors.filter((e) => !RECOVERABLE.has(e));
  let ordered = fatal.map((e, i) => ({ e, i })).sort((a, b) => stage(a.e) - stage(b.e) || byPlace(a.e, b.e) || a.i - b.i).map((x) => x.e);
  // the stages that go on after their errors report them with the first failing stage's, all sorted by place
  const kept = errors.filter((e) => RECOVERABLE.has(e));
  if (kept.length) ordered = [...kept, ...ordered.slice(0, 1)].sort(compareLocs).concat(ordered.slice(1));
  const first = ordered[0] as RegoError;
  throw new RegoError(first.regoCode ?? 'rego_compile_error', first.regoMessage ?? '', first.loc, ordered.slice(1));
}

/** Go's Location.Compare (file, row, column; no location last), then the error text. */
function compareLocs(a: RegoError, b: RegoError): number {
  const [x, y] = [a.loc, b.loc];
  if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
  const c = x.file < y.file ? -1 : x.file > y.file ? 1 : x.line - y.line || x.col - y.col;
  return c !== 0 ? c : a.message < b.message ? -1 : a.message > b.message ? 1 : 0;
}

/**
 * Errors of the stages OPA goes on after (checkKeywordOverrides, checkImports record them as
 * recoverable): the compile ends at the next stage that fails, and every error is sorted by place.
 */
const RECOVERABLE = new WeakSet<RegoError>();

/** Records an error of a stage OPA goes on after. */
export function recoverableError(e: RegoError, errors: RegoError[]): void {
  RECOVERABLE.add(e);
  errors.push(e);
}

/** Two imports of one name in a module (the alias, else the path's last step): the later one is refused, naming the first. */
export function checkDuplicateImports(imports: readonly Import[], errors: RegoError[]): void {
  const seen = new Map<string, Import>();
  for (const imp of imports) {
    const name = importName(imp);
    const first = seen.get(name);
    if (first === undefined) seen.set(name, imp);
    else recoverableError(new RegoError('rego_compile_error', `import must not shadow import ${termText(first.path)}${first.alias === undefined ? '' : ` as ${first.alias}`}`, imp.loc), errors);
  }
}

function importName(imp: Import): string {
  if (imp.alias !== undefined) return imp.alias;
  const t = imp.path;
  if (t.type === 'var') return t.name;
  if (t.type !== 'ref') return '';
  const last = t.path[t.path.length - 1];
  if (last === undefined) return t.head.type === 'var' ? t.head.name : '';
  return last.type === 'var' ? last.name : last.type === 'value' && typeof last.value === 'string' ? last.value : '';
}

/** A default function's arguments are distinct variables, as OPA's parser requires. */
export function checkDefaultArgs(args: readonly Term[], loc: Loc, errors: RegoError[]): void {
  const seen = new Set<string>();
  for (const a of args) {
    if (a.type !== 'var') {
      const name = a.type === 'value' ? typeName(a.value) : a.type === 'arraycompr' ? 'arraycomprehension' : a.type === 'setcompr' ? 'setcomprehension' : a.type === 'objectcompr' ? 'objectcomprehension' : a.type;
      errors.push(new RegoError('rego_parse_error', `illegal default rule (arguments cannot contain ${name})`, loc));
      return;
    }
    if (a.name !== '_' && seen.has(a.name)) {
      errors.push(new RegoError('rego_parse_error', `illegal default rule (arguments cannot be repeated ${a.name})`, loc));
      return;
    }
    seen.add(a.name);
  }
}

/** Default values must be constants (no refs, calls or operators outside comprehensions). */
export function checkDefaultValue(t: Term, errors: RegoError[]): void {
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

/**
 * OPA's check of the rule tree (compile.go checkRuleConflicts), node by node, its errors in source
 * order: a rule whose whole ref is ground has no rules inside its extent (`p := {}` beside `p.q := 1`,
 * `p := 1` beside `p[1] := 2`), nor a rule with a variable in its ref a function; the rules of one
 * node are of one kind and arity, not complete beside partial; at most one default. OPA's tree keys
 * a node by every ground term of a ref, where this one keys only strings: a rule whose ref goes on
 * with a ground term past its node (`p[1]`) lies below that node, as in OPA.
 */
export function checkConflicts(root: DataNode, errors: RegoError[], pkgLocs: ReadonlyMap<string, Loc>): void {
  const found: RegoError[] = [];
  const visit = (placed: readonly Placed[], children: readonly DataNode[]): void => {
    const all = [...placed].sort((a, b) => bySource(a.rule, b.rule));
    const here = all.filter((p) => !isBelow(p));
    const beside = all.filter(isBelow);
    const inside = [...beside.map((p) => p.rule), ...children.flatMap(rulesBelow)];
    const conflict = conflictOf(here, inside);
    if (conflict !== undefined) found.push(conflict);
    else if (here.length > 0) {
      const name = refText(here[here.length - 1]!.rule);
      const single = (p: Placed) => p.rule.kind !== 'multi';
      const kinds = new Set(here.map(single));
      const arities = new Set(here.map((p) => p.rule.args.length));
      const complete = here.some((p) => single(p) && isWhole(p));
      const partial = here.some((p) => !(single(p) && isWhole(p)));
      const sets = here.some((p) => !single(p) && isWhole(p));
      const objects = here.some((p) => !single(p) && !isWhole(p));
      const defaults = here.filter((p) => p.rule.isDefault).map((p) => p.rule);
      if (kinds.size > 1 || arities.size > 1 || (complete && partial) || (sets && objects)) {
        found.push(new RegoError('rego_type_error', `conflicting rules ${name} found`, here[0]!.rule.loc));
      } else if (defaults.length > 1) {
        const at = defaults.map((r) => `${r.loc.file}:${r.loc.line}`).join(', ');
        found.push(new RegoError('rego_type_error', `multiple default rules ${name} found at ${at}`, pkgLocs.get(defaults[0]!.loc.file) ?? defaults[0]!.loc));
      }
    }
    // the nodes below: OPA's for a ground term past this node's path, and this tree's for a string
    const byKey = new Map<string, Placed[]>();
    for (const p of beside) {
      const key = valueKey((p.rule.rest[p.depth] as Term & { type: 'value' }).value);
      byKey.set(key, [...(byKey.get(key) ?? []), { rule: p.rule, depth: p.depth + 1 }]);
    }
    for (const group of byKey.values()) visit(group, []);
    for (const c of children) visit([...c.rules, ...c.funcs].map((rule) => ({ rule, depth: 0 })), [...c.children.values()]);
  };
  visit([...root.rules, ...root.funcs].map((rule) => ({ rule, depth: 0 })), [...root.children.values()]);
  found.sort((a, b) => (a.loc && b.loc ? a.loc.file.localeCompare(b.loc.file) || a.loc.line - b.loc.line || a.loc.col - b.loc.col : 0));
  errors.push(...found);
}

/** A rule at a node of OPA's tree: `depth` of its ref's terms past its constant path are that node's path. */
interface Placed {
  readonly rule: CRule;
  readonly depth: number;
}

/** Whether the rule's ref ends at its node (it is ground). */
const isWhole = (p: Placed): boolean => p.rule.rest.length === p.depth;

/** Whether the rule's ref goes on past its node with a ground term: it lies in a node below, in OPA's tree. */
const isBelow = (p: Placed): boolean => p.rule.rest.length > p.depth && p.rule.rest[p.depth]!.type === 'value';

/**
 * The extent conflict of a node's rules, as OPA words it: a ground rule with any rules inside its
 * extent, else a rule with a variable in its ref with functions inside.
 */
function conflictOf(here: readonly Placed[], inside: readonly CRule[]): RegoError | undefined {
  if (here.length === 0 || inside.length === 0) return undefined;
  const within = here.some(isWhole) ? inside : inside.filter((r) => r.kind === 'func');
  if (within.length === 0) return undefined;
  // OPA lists each ref once, a ref inside another's extent not at all, in ref order
  const refs = [...new Map(within.map((r) => [refText(r), r])).entries()].sort((a, b) => compareRefs(a[1], b[1]));
  const outer = refs.filter(([t]) => !refs.some(([o]) => o !== t && (t.startsWith(`${o}.`) || t.startsWith(`${o}[`))));
  const lines = outer.map(([t, r]) => `  rule ${t} at ${r.loc.file}:${r.loc.line}`);
  return new RegoError('rego_type_error', `rule ${refText(here[here.length - 1]!.rule)} conflicts with:\n${lines.join('\n')}`, here[0]!.rule.loc);
}

function rulesBelow(n: DataNode): CRule[] {
  return [...n.rules, ...n.funcs, ...[...n.children.values()].flatMap(rulesBelow)];
}

/** Source order: file, then line and column. */
function bySource(a: CRule, b: CRule): number {
  return a.loc.file.localeCompare(b.loc.file) || a.loc.line - b.loc.line || a.loc.col - b.loc.col;
}

/** A rule's ref as OPA prints it: `data.t.p.q`, `data.t.p[1]`, `data.t.p[x]`. */
function refText(r: CRule): string {
  const segs = r.path.slice(1).map((s): Term => ({ type: 'value', value: s, loc: r.loc }));
  return `${r.path[0]}${[...segs, ...r.rest].map(refSegment).join('')}`;
}

/** OPA's ref order: each term in turn, strings after numbers (its value order), then length. */
function compareRefs(a: CRule, b: CRule): number {
  const terms = (r: CRule): Value[] => [...r.path.slice(1), ...r.rest.map((t) => (t.type === 'value' ? t.value : (t as { name?: string }).name ?? ''))];
  const [x, y] = [terms(a), terms(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const c = compareValues(x[i]!, y[i]!);
    if (c !== 0) return c;
  }
  return x.length - y.length;
}

/** Rule-level dependency graph: refs to data paths and calls; cycles are recursion errors. */
export function checkRecursion(root: DataNode, funcs: Map<string, CRule[]>, errors: RegoError[]): void {
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
        let at = 0;
        for (const p of t.path) {
          if (p.type !== 'value' || typeof p.value !== 'string') {
            stoppedOnConst = p.type === 'value';
            break;
          }
          prefix = `${prefix}.${p.value}`;
          at++;
          if (byId.has(prefix)) d.add(prefix);
        }
        // below a variable key, only the rules the ref's later constant keys can still reach (as OPA)
        const rest = t.path.slice(at);
        const reaches = (k: string): boolean =>
          k
            .slice(prefix.length + 1)
            .split('.')
            .every((seg, j) => {
              const p = rest[j];
              return p === undefined || p.type !== 'value' || p.value === seg;
            });
        if (!stoppedOnConst) for (const k of below.get(prefix) ?? []) if (reaches(k)) d.add(k);
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
