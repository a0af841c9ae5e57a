/**
 * The compiler's checks over whole rules and the rule tree: the type check stage, constant default
 * values, conflicting rule kinds and defaults, rule recursion, and the order in which OPA's stages
 * report their errors.
 */
import type { CRule, DataNode } from './compiler.ts';
import { walkTerms, walkLiteral } from './term-walk.ts';
import type { Literal, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { checkBodyTypes, checkFunctionCalls } from './typecheck.ts';
import type { Value } from './value.ts';
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

/** The type check of the calls of the policy's own functions (typecheck.ts checkFunctionCalls), once every rule is compiled. */
export function typeCheckFunctionCalls(funcs: ReadonlyMap<string, readonly CRule[]>, rules: readonly CRule[], errors: RegoError[]): void {
  const found: RegoError[] = [];
  checkFunctionCalls(funcs, rules, found);
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
  const ordered = errors.map((e, i) => ({ e, i })).sort((a, b) => stage(a.e) - stage(b.e) || byPlace(a.e, b.e) || a.i - b.i).map((x) => x.e);
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

export function checkConflicts(node: DataNode, errors: RegoError[]): void {
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
