/**
 * OPA's safety reordering of body literals: what each literal needs bound and what it binds, the
 * order that binds every variable before use (nested bodies of comprehensions, `every` and `not`
 * included), and `rego_unsafe_var_error` for what no order can bind.
 */
import { walkTerms, walkLiteral, varSlots, literalTopSlots, literalSlots } from './term-walk.ts';
import type { Literal, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { unmatchedVars } from './unmatched-shapes.ts';
import { lookupBuiltin } from './builtins/registry.ts';

/** Vars a term needs bound to be evaluated (ref keys and call outputs excluded), given bound set. */
export function termNeeds(t: Term, bound: Set<number>, outs: Set<number>): number[] {
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
        // the evaluator runs a call's ref arguments before its plain ones (eval-plans callsFirst)
        for (const a of x.args) if (a.type !== 'var') need(a);
        for (const a of x.args) if (a.type === 'var') need(a);
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
export const FUNC_OUTPUT = new WeakMap<Term, Term>();

/** Returns the vars this literal binds if it can run with `bound`, or the missing vars. */
function placeLiteral(l: Literal, bound: Set<number>, outside: Set<number>): { outs: Set<number> } | { missing: number[] } {
  const outs = new Set<number>();
  const e = l.expr;
  const missing: number[] = [];
  for (const w of l.withs) missing.push(...termNeeds(w.value, bound, outs));
  if (l.negated) {
    // every var that is also used outside this literal must be bound first
    for (const s of literalSlots(l)) if (outside.has(s) && !bound.has(s)) missing.push(s);
    // and so must every var of the negated expression itself (a closure inside it has its own), as OPA's safety check
    for (const s of literalTopSlots(l)) if (!bound.has(s) && !missing.includes(s)) missing.push(s);
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
      const never = unmatchedVars(e.left, e.right, bound);
      if (never !== undefined && never.length > 0) return { missing: never };
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
      // the vars `:=` declares are its outputs: what it lacks is what its value needs (OPA: `x := y`
      // has y unsafe, `x = y` both)
      if (e.kind === 'unify') termNeeds(e.left, bound, new Set()).forEach((s) => m.push(s));
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

export interface OrderCtx {
  names: Map<number, string>;
  errors: RegoError[];
}

/**
 * Orders a body so every literal runs after the literals that bind its inputs. `bound` holds the slots
 * bound on entry; on return it also holds the slots the body binds. `outside` holds slots used outside
 * the body (head, enclosing body), which negations and closures must wait for.
 */
export function orderBody(body: Literal[], bound: Set<number>, outside: Set<number>, octx: OrderCtx): Literal[] {
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
      // OPA sorts its errors, so the unsafe vars of one expression come by name
      const names = [...new Set(missing.map((s) => octx.names.get(s) ?? '?'))].filter((n) => n !== '_').sort();
      const shown = names.length ? names : ['_'];
      for (const n of shown) octx.errors.push(new RegoError('rego_unsafe_var_error', `var ${n} is unsafe`, l.loc));
      return out.concat(remaining.map((x) => x.l));
    }
  }
  return out;
}

/** Orders the bodies nested in a literal (comprehensions, every, negation-free closures). */
export function prepareNested(l: Literal, bound: Set<number>, outside: Set<number>, octx: OrderCtx): void {
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
      const errorsBefore = octx.errors.length;
      const ordered = orderBody(t.body, b2, new Set([...outside, ...headSlots]), octx);
      t.body.splice(0, t.body.length, ...ordered);
      // a body that cannot be ordered is the error: the head vars it would bind are not reported too
      const bodyFailed = octx.errors.length > errorsBefore;
      const heads = t.type === 'objectcompr' ? [t.key, t.value] : [t.term];
      // a comprehension in the head sees the vars this one's body binds
      const headVisit = comprVisitor(b2, outside, octx);
      for (const h of heads) walkTerms(h, headVisit);
      for (const h of heads) {
        const outs = new Set<number>();
        const missing = termNeeds(h, b2, outs);
        for (const s of outs) b2.add(s);
        if (missing.length) {
          if (!bodyFailed) octx.errors.push(new RegoError('rego_unsafe_var_error', `var ${octx.names.get(missing[0] as number) ?? '?'} is unsafe`, t.loc));
          break;
        }
      }
      return;
    }
  };
  return visit;
}

export { FUNC_OUTPUT as funcOutputMarks };
