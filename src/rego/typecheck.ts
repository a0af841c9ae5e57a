/**
 * The part of OPA's compile-time type check that literals decide on their own: unifications (`=`, `:=`)
 * whose two sides have shapes that can never match, and `some ... in` over a collection whose type is
 * known and cannot hold the pattern (or is a scalar, which cannot be iterated). OPA reports these as
 * `rego_type_error` before evaluation ("match error", "undefined ref"), so the policy never runs.
 *
 * Also a builtin call whose operand can never have the type the builtin declares (OPA's declarations,
 * from the pinned capabilities): `contains(null, "")`, `sum([1, "a"])`, `1 + "a"` are "invalid argument(s)".
 *
 * And a call of the policy's own function with an argument its parameter's type rules out
 * (checkFunctionCalls).
 *
 * Types come from constants and composite literals only (type-shapes.ts); variables, references,
 * calls and comprehensions are "any", so this check finds a subset of OPA's type errors and never more.
 */
import type { Literal, Term } from './ast.ts';
import type { CRule } from './compiler.ts';
import { RegoError } from './errors.ts';
import { isNumber, ObjectValue } from './value.ts';
import { forEachChild } from './term-walk.ts';
import { termText } from './term-text.ts';
import { ANY, compatible, declOf, elementType, fits, iteration, shapeOf, shapeOfValue, union, type DeclType, type Shape, type VarShapes } from './type-shapes.ts';

/** Builtin calls in a term, comprehension heads included (their bodies are checked as literals); `onRef` sees each ref. */
function callsIn(t: Term, visit: (c: Term & { type: 'call' }) => void, onRef?: (r: Term & { type: 'ref' }) => void): void {
  switch (t.type) {
    case 'ref':
      onRef?.(t);
      callsIn(t.head, visit, onRef);
      for (const p of t.path) callsIn(p, visit, onRef);
      return;
    case 'array':
    case 'set':
      for (const i of t.items) callsIn(i, visit, onRef);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        callsIn(k, visit, onRef);
        callsIn(v, visit, onRef);
      }
      return;
    case 'call':
      for (const a of t.args) callsIn(a, visit, onRef);
      visit(t);
      return;
    case 'arraycompr':
    case 'setcompr':
      callsIn(t.term, visit, onRef);
      return;
    case 'objectcompr':
      callsIn(t.key, visit, onRef);
      callsIn(t.value, visit, onRef);
      return;
    default:
      return;
  }
}

/** `x in coll` / `k, x in coll`: OPA unifies the operands with the collection's keys and elements. */
function checkMembership(c: Term & { type: 'call' }, errors: RegoError[], vars: VarShapes): boolean {
  const name = c.target?.kind === 'builtin' ? c.target.name : undefined;
  if (name !== 'internal.member_2' && name !== 'internal.member_3') return false;
  const coll = c.args[c.args.length - 1];
  if (coll === undefined || c.args.length !== (name === 'internal.member_2' ? 2 : 3)) return true;
  const collShape = shapeOf(coll, vars);
  // an empty collection's element type is unknown to OPA too
  if (collShape.k === 'array' && collShape.items.length === 0) return true;
  const it = iteration(collShape);
  if (it === undefined) return true;
  const value = shapeOf(c.args[c.args.length - 2] as Term, vars);
  const key = name === 'internal.member_3' ? shapeOf(c.args[0] as Term, vars) : ANY;
  const keys = collShape.k === 'object' ? objectKeyShape(coll) : it.key;
  if (!compatible(value, it.value) || !compatible(key, keys)) errors.push(new RegoError('rego_type_error', 'match error', c.loc));
  return true;
}

/** The keys' shape of an object written with constant keys (else any). */
function objectKeyShape(t: Term): Shape {
  if (t.type === 'value' && t.value instanceof ObjectValue) return union([...t.value.entries()].map(([k]) => shapeOfValue(k)));
  if (t.type === 'object' && t.entries.every(([k]) => k.type === 'value')) return union(t.entries.map(([k]) => shapeOfValue((k as Term & { type: 'value' }).value)));
  return ANY;
}

function checkBuiltinCall(c: Term & { type: 'call' }, errors: RegoError[], vars: VarShapes): void {
  if (c.target?.kind !== 'builtin') return;
  if (checkMembership(c, errors, vars)) return;
  const d = declOf(c.target.name);
  if (d === undefined) return;
  const want = c.args.length === d.args.length + 1 && d.result ? [...d.args, d.result] : d.args;
  for (let i = 0; i < c.args.length && i < want.length; i++) {
    if (!fits(shapeOf(c.args[i] as Term, vars), want[i] as DeclType)) {
      errors.push(new RegoError('rego_type_error', `${c.target.name}: invalid argument(s)`, c.loc));
      return;
    }
  }
}

const SCALAR_TYPES: ReadonlySet<string> = new Set(['null', 'boolean', 'number', 'string']);

/**
 * A ref into what a builtin returns that the declared result cannot have: any step into a scalar
 * (`count(x)[0]`), a constant step into an array that is not a number (`split(s, ",").x`). OPA's
 * "undefined ref", also under a `with` that replaces the builtin (its declaration still types it).
 */
function checkCallRef(r: Term & { type: 'ref' }, errors: RegoError[]): void {
  const h = r.head;
  const step = r.path[0];
  if (h.type !== 'call' || h.target?.kind !== 'builtin' || step === undefined) return;
  const result = declOf(h.target.name)?.result;
  if (result === undefined) return;
  const noKey = SCALAR_TYPES.has(result.type) || (result.type === 'array' && step.type === 'value' && !isNumber(step.value));
  if (noKey) errors.push(new RegoError('rego_type_error', `undefined ref: ${termText(r)}`, h.loc));
}

function literalTerms(l: Literal): Term[] {
  const e = l.expr;
  if (e.kind === 'term') return [e.term];
  if (e.kind === 'unify' || e.kind === 'assign') return [e.left, e.right];
  if (e.kind === 'somein') return [e.value, e.coll, ...(e.key ? [e.key] : [])];
  if (e.kind === 'every') return [e.domain];
  return [];
}

/**
 * Whether a literal's `with`s replace only the input, so its calls are checked as without them (a
 * `with` on data or on a function may replace a function by one of other types).
 */
function callsKeepTypes(l: Literal): boolean {
  return l.withs.every((w) => {
    const head = w.target.type === 'ref' ? w.target.head : w.target;
    return head.type === 'var' && head.name === 'input';
  });
}

function checkLiteral(l: Literal, errors: RegoError[], vars: VarShapes): void {
  const keep = callsKeepTypes(l);
  for (const t of literalTerms(l)) callsIn(t, (c) => keep && checkBuiltinCall(c, errors, vars), (r) => checkCallRef(r, errors));
  const e = l.expr;
  if (e.kind === 'unify' || e.kind === 'assign') {
    if (!compatible(shapeOf(e.left, vars), shapeOf(e.right, vars))) {
      errors.push(new RegoError('rego_type_error', 'match error', l.loc));
    }
    if (e.kind === 'assign' && e.left.type === 'var' && e.left.slot !== undefined && l.withs.length === 0) {
      const s = shapeOf(e.right, vars);
      if (s.k !== 'any') vars.set(e.left.slot, s);
    }
  } else if (e.kind === 'term' && isStatementEqual(e.term)) {
    // OPA rewrites an `a == b` statement into the unification `a = b` before its type check.
    const [a, b] = e.term.args as [Term, Term];
    if (!compatible(shapeOf(a, vars), shapeOf(b, vars))) {
      errors.push(new RegoError('rego_type_error', 'match error', l.loc));
    }
  } else if (e.kind === 'somein') {
    const coll = shapeOf(e.coll, vars);
    const it = iteration(coll);
    if (!it) {
      errors.push(new RegoError('rego_type_error', `undefined ref: cannot iterate over a ${coll.k} in some ... in`, l.loc));
    } else if (!compatible(shapeOf(e.value, vars), it.value) || (e.key && !compatible(shapeOf(e.key, vars), it.key))) {
      errors.push(new RegoError('rego_type_error', 'match error', l.loc));
    }
  }
}

function isStatementEqual(t: Term): t is Term & { type: 'call' } {
  return t.type === 'call' && t.name === 'equal' && t.args.length === 2 && (t.target === undefined || t.target.kind === 'builtin');
}

/**
 * Checks a body and the comprehension bodies nested in it (not `every` bodies, as OPA), then the
 * builtin calls in the rule's head terms (OPA moves those into the body before its type check).
 */
export function checkBodyTypes(body: readonly Literal[], errors: RegoError[], headTerms: readonly Term[] = []): void {
  const seen = new Set<Literal>();
  const vars: VarShapes = new Map();
  const visit = (l: Literal): void => {
    if (seen.has(l)) return;
    seen.add(l);
    checkLiteral(l, errors, vars);
    // OPA v1.22.3 type-checks no `every` body: `every x in [1] { x; 1 == "a" }` compiles
    const terms: Term[] = [];
    const e = l.expr;
    if (e.kind === 'term') terms.push(e.term);
    else if (e.kind === 'unify' || e.kind === 'assign') terms.push(e.left, e.right);
    else if (e.kind === 'somein') terms.push(e.value, e.coll, ...(e.key ? [e.key] : []));
    else if (e.kind === 'every') terms.push(e.domain);
    for (const w of l.withs) terms.push(w.value);
    for (const t of terms) nestedBodies(t, visit);
  };
  for (const l of body) visit(l);
  for (const t of headTerms) {
    callsIn(t, (c) => checkBuiltinCall(c, errors, vars), (r) => checkCallRef(r, errors));
    nestedBodies(t, visit);
  }
}

/** Calls `visit` on the literals of comprehensions inside a term (not inside their bodies: visit recurses). */
function nestedBodies(t: Term, visit: (l: Literal) => void): void {
  switch (t.type) {
    case 'arraycompr':
    case 'setcompr':
      nestedBodies(t.term, visit);
      for (const l of t.body) visit(l);
      return;
    case 'objectcompr':
      nestedBodies(t.key, visit);
      nestedBodies(t.value, visit);
      for (const l of t.body) visit(l);
      return;
    default:
      forEachChild(t, (c) => nestedBodies(c, visit));
  }
}

/**
 * Calls of the policy's own functions with an argument that can never have the type the function
 * gives that parameter. OPA types a parameter by the builtins its definitions pass it to directly
 * (`f(x) := x + 1` takes a number), joined over every definition and `else` (one that passes it to
 * none takes anything), and refuses `f("a")` at compile time as `data.p.f: invalid argument(s)`.
 * Counted here, as OPA counts them: a parameter that is a variable, given as an operand itself (not
 * through another variable, not inside a comprehension) to a builtin in a body's literals or the
 * head; checked: constant and literal arguments. So this finds a subset of those errors.
 */
export function checkFunctionCalls(funcs: ReadonlyMap<string, readonly CRule[]>, rules: readonly CRule[], errors: RegoError[]): void {
  const params = new Map<string, (readonly DeclType[] | undefined)[]>();
  for (const [path, defs] of funcs) params.set(path, parameterTypes(defs));
  const none: VarShapes = new Map();
  const checkCall = (c: Term & { type: 'call' }): void => {
    if (c.target?.kind !== 'func') return;
    const types = params.get(c.target.path);
    if (types === undefined) return;
    for (let i = 0; i < c.args.length && i < types.length; i++) {
      const want = types[i];
      if (want !== undefined && !want.some((d) => fits(shapeOf(c.args[i] as Term, none), d))) {
        errors.push(new RegoError('rego_type_error', `${c.target.path}: invalid argument(s)`, c.loc));
        return;
      }
    }
  };
  const visit = (l: Literal): void => {
    if (callsKeepTypes(l)) for (const t of literalTerms(l)) callsIn(t, checkCall);
    for (const t of literalTerms(l)) nestedBodies(t, visit);
  };
  for (const r of rules) {
    for (const b of [r, ...r.elses]) {
      for (const l of b.body) visit(l);
      for (const t of [...b.rest, ...(b.key ? [b.key] : []), b.value]) {
        callsIn(t, checkCall);
        nestedBodies(t, visit);
      }
    }
  }
}

/**
 * References to the policy's functions that do not call them (`p := f`, `f.x`): OPA's type check
 * refuses them as `function data.p.f used as reference, not called`, naming the whole ref. (A
 * `with` may take a function as its value: with values are not looked at.)
 */
export function checkFunctionRefs(funcs: ReadonlyMap<string, readonly CRule[]>, rules: readonly CRule[], errors: RegoError[]): void {
  const term = (t: Term): void => {
    if (t.type === 'ref' && t.head.type === 'var' && t.head.name === 'data') {
      let path = 'data';
      for (const p of t.path) {
        if (p.type !== 'value' || typeof p.value !== 'string') break;
        path += `.${p.value}`;
        if (funcs.has(path)) {
          errors.push(new RegoError('rego_type_error', `function ${termText(t)} used as reference, not called`, t.loc));
          return;
        }
      }
    }
    forEachChild(t, term);
    if (t.type === 'arraycompr' || t.type === 'setcompr' || t.type === 'objectcompr') t.body.forEach(literal);
  };
  const literal = (l: Literal): void => {
    literalTerms(l).forEach(term);
    if (l.expr.kind === 'every') l.expr.body.forEach(literal);
  };
  for (const r of rules) {
    for (const b of [r, ...r.elses]) {
      b.body.forEach(literal);
      [...b.rest, ...(b.key ? [b.key] : []), b.value].forEach(term);
    }
  }
}

/** Each parameter's types, one per definition or `else` (any of them will do), or undefined where one leaves it open. */
function parameterTypes(defs: readonly CRule[]): (readonly DeclType[] | undefined)[] {
  const arity = defs[0]?.args.length ?? 0;
  const out: (readonly DeclType[] | undefined)[] = [];
  for (let i = 0; i < arity; i++) {
    const types: DeclType[] = [];
    for (const d of defs) {
      for (const b of [d, ...d.elses]) {
        const t = parameterType(b, i);
        if (t !== undefined) types.push(t);
        else {
          types.length = 0;
          break;
        }
      }
      if (types.length === 0) break;
    }
    out.push(types.length > 0 ? types : undefined);
  }
  return out;
}

/**
 * The declared type of the one builtin operand position a branch passes parameter `i` to, or
 * undefined when it passes it to none, or to positions of different types (OPA would narrow it
 * further, or refuse the body itself).
 */
function parameterType(b: CRule, i: number): DeclType | undefined {
  const a = b.args[i];
  if (a?.type !== 'var' || a.slot === undefined) return undefined;
  let found: DeclType | undefined;
  let text: string | undefined;
  let mixed = false;
  const operandOf = (c: Term & { type: 'call' }): void => {
    if (c.target?.kind !== 'builtin') return;
    const d = declOf(c.target.name);
    if (d === undefined) return;
    const constrain = (want: DeclType | undefined): void => {
      if (want === undefined) return;
      const t = JSON.stringify(want);
      if (text === undefined) [found, text] = [want, t];
      else if (text !== t) mixed = true;
    };
    c.args.forEach((x, j) => {
      if (j >= d.args.length) return;
      if (x.type === 'var' && x.slot === a.slot) constrain(d.args[j]);
      // an element of an array or set literal operand: OPA types it by the collection's elements
      else if (x.type === 'array' || x.type === 'set') {
        x.items.forEach((item, k) => {
          if (item.type === 'var' && item.slot === a.slot) constrain(elementType(x.type, k, d.args[j] as DeclType));
        });
      }
    });
  };
  for (const l of b.body) if (callsKeepTypes(l)) for (const t of literalTerms(l)) directCalls(t, operandOf);
  directCalls(b.value, operandOf);
  return mixed ? undefined : found;
}

/** Calls in a term, nested calls included, not those inside a comprehension. */
function directCalls(t: Term, visit: (c: Term & { type: 'call' }) => void): void {
  if (t.type === 'arraycompr' || t.type === 'setcompr' || t.type === 'objectcompr') return;
  if (t.type === 'call') visit(t);
  forEachChild(t, (c) => directCalls(c, visit));
}
