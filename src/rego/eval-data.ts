/**
 * Documents under `data`: walking rule nodes and the base document, a node's document (complete
 * values with their conflict check and default, partial sets and objects, ref-head objects, child
 * nodes) computed once per evaluation or shared. Each branch is run through eval-branch.ts.
 */
import { type VK, type Frame, UNDEF, GENERAL, childOf, isUnboundVar, isPattern } from './eval-support.ts';
import type { Loc, Term } from './ast.ts';
import { conflictError, type ConflictingValue } from './conflicts.ts';
import type { CRule, DataNode } from './compiler.ts';
import { RegoError } from './errors.ts';
import { ObjectValue, SetValue, type Value, valueEquals } from './value.ts';
import type { Evaluator } from './eval.ts';
import { unifyValue } from './eval-unify.ts';
import { direct } from './eval-direct.ts';
import { callFunc } from './eval-calls.ts';
import { agreeOnConstant, eachBranchValue, indexed } from './eval-branch.ts';
import { hasOneDefinition } from './eval-plans.ts';
import { walk } from './eval-refs.ts';

export function evalData(ev: Evaluator, node: DataNode, base: Value | undefined, path: Term[], i: number, f: Frame, k: VK): boolean {
  const over = ev.s.nodeOverrides?.get(node);
  if (over !== undefined) return walk(ev, over, path, i, f, k);
  if (node.rules.length) {
    const doc = nodeDoc(ev, node, base);
    return doc === undefined ? false : walk(ev, doc, path, i, f, k);
  }
  if (node.funcs.length && !node.hasRules && node.funcs[0]?.args.length === 0) {
    // a zero-argument function named by reference evaluates to its value
    return callFunc(ev, ['data', ...node.path].join('.'), [], node.funcs[0].loc, (v) => walk(ev, v, path, i, f, k), true);
  }
  if (i === path.length) {
    const v = nodeValue(ev, node, base);
    return v === undefined ? false : k(v);
  }
  const p = path[i] as Term;
  const step = (key: Value): boolean => {
    const child = typeof key === 'string' ? node.children.get(key) : undefined;
    const b = base === undefined ? undefined : childOf(base, key, true);
    if (child && (child.hasRules || child.funcs.length > 0)) return evalData(ev, child, b, path, i + 1, f, k);
    return b === undefined ? false : walk(ev, b, path, i + 1, f, k, true);
  };
  if (p.type === 'value') return step(p.value);
  if (isUnboundVar(p, f) || isPattern(p, f)) {
    const keys = new SetValue();
    for (const [key, c] of node.children) if (c.hasRules) keys.add(key);
    if (base instanceof ObjectValue) for (const [key] of base.unordered()) keys.add(key);
    else if (base !== undefined) {
      // non-object base: iterate it plainly
      return walk(ev, base, path, i, f, k);
    }
    return ev.iterate(keys, (key) => {
      const child = typeof key === 'string' ? node.children.get(key) : undefined;
      if (child && child.hasRules) {
        // only keys whose document is defined
        let defined = false;
        evalData(ev, child, base === undefined ? undefined : childOf(base, key), [], 0, f, () => (defined = true));
        if (!defined) return false;
      }
      return unifyValue(ev, p, key, f, () => step(key));
    });
  }
  return ev.evalTerm(p, f, step);
}

/** Full value of a data node without rules of its own: base document merged with children. */
export function nodeValue(ev: Evaluator, node: DataNode, base: Value | undefined): Value | undefined {
  const over = ev.s.nodeOverrides?.get(node);
  if (over !== undefined) return over;
  if (node.rules.length) return nodeDoc(ev, node, base);
  if (!node.hasRules) return base;
  const cached = ev.s.valueCache?.get(node);
  if (cached !== undefined) return cached === UNDEF ? undefined : cached;
  const out = new ObjectValue();
  if (base instanceof ObjectValue) for (const [k, v] of base.unordered()) out.set(k, v);
  for (const [key, child] of node.children) {
    if (!child.hasRules) continue;
    const v = nodeValue(ev, child, base === undefined ? undefined : childOf(base, key));
    if (v !== undefined) out.set(key, v);
  }
  (ev.s.valueCache ??= new Map()).set(node, out);
  return out;
}

/** The document a node's rules define (merged with rules of child nodes), cached per evaluation. */
export function nodeDoc(ev: Evaluator, node: DataNode, base: Value | undefined): Value | undefined {
  const cached = ev.s.cache.get(node);
  if (cached !== undefined) return cached === UNDEF ? undefined : cached;
  const shared = ev.shared !== undefined && ev.s === ev.top && ev.shared.nodes.has(node) ? ev.shared.docs : undefined;
  if (shared?.has(node)) {
    const doc = shared.get(node);
    ev.s.cache.set(node, doc === undefined ? UNDEF : doc);
    return doc;
  }
  if (ev.depth > 2000) ev.budget.exceeded('depth');
  ev.depth++;
  let doc: Value | undefined;
  const outer = ev.budget.rule;
  if (node.rules.length > 0) ev.budget.rule = node.rules[0];
  try {
    doc = computeNodeDoc(ev, node, base);
  } finally {
    ev.depth--;
    ev.budget.rule = outer;
  }
  ev.s.cache.set(node, doc === undefined ? UNDEF : doc);
  shared?.set(node, doc);
  return doc;
}

function computeNodeDoc(ev: Evaluator, node: DataNode, base: Value | undefined): Value | undefined {
  const groups = (node.groups ??= {
    complete: node.rules.filter((r) => r.kind === 'value' && r.rest.length === 0),
    multi: node.rules.filter((r) => r.kind === 'multi' && r.rest.length === 0),
    obj: node.rules.filter((r) => r.rest.length > 0),
    hasChild: [...node.children.values()].some((c) => c.hasRules),
  });
  const complete = groups.complete;
  let doc: Value | undefined;
  if (complete.length) {
    doc = evalComplete(ev, complete);
    if (doc instanceof ObjectValue) doc.wholeRuleValue = true;
  } else {
    const multi = groups.multi;
    if (multi.length) {
      const set = new SetValue();
      for (const r of multi) {
        if (!indexed(ev, r)) continue;
        const fr: Frame = new Array(r.nslots);
        const constant = (r.key as Term).type === 'value';
        const add = (v: Value): boolean => {
          set.add(v);
          return constant;
        };
        ev.evalBody(r.body, 0, fr, () => {
          const v = direct(ev, r.key as Term, fr);
          if (v === GENERAL) return ev.evalTerm(r.key as Term, fr, add);
          return v === undefined ? false : add(v);
        });
      }
      doc = set.seal();
    }
    const objRules = groups.obj;
    if (objRules.length) {
      const obj = new ObjectValue();
      for (const r of objRules) if (!r.isDefault) evalObjectRule(ev, r, obj);
      // a default rule at a ref-head path (`default p.q[true] := v`) fills its key when no rule defined it
      for (const r of objRules) if (r.isDefault) applyObjectDefault(ev, r, obj);
      doc = obj;
    }
  }
  // child nodes with rules extend an object document
  if (groups.hasChild && (doc === undefined || doc instanceof ObjectValue)) {
    const out = new ObjectValue(doc instanceof ObjectValue ? doc.unordered() : []);
    for (const [key, child] of node.children) {
      if (!child.hasRules) continue;
      const v = nodeValue(ev, child, base === undefined ? undefined : childOf(base, key));
      if (v !== undefined) {
        const prev = out.get(key);
        // `p[x] := 5` (x = "a" at run time) and `p.a := 1` define the same key
        out.set(key, prev === undefined ? v : mergeRuleDocs(prev, v, child.rules[0]?.loc ?? child.funcs[0]?.loc));
      }
    }
    if (doc !== undefined || out.size > 0) doc = out;
  }
  return doc;
}

/**
 * Two rule documents for the same place (a ref-head rule with a variable and one at a constant ref):
 * objects merge key by key, the sets of multi-value rules join, equal values agree, and anything else
 * conflicts, as in OPA (no side wins).
 */
function mergeRuleDocs(a: Value, b: Value, loc: Loc | undefined): Value {
  if (a instanceof ObjectValue && b instanceof ObjectValue && a.wholeRuleValue !== true && b.wholeRuleValue !== true) {
    const out = new ObjectValue(a.unordered());
    for (const [k, v] of b.unordered()) {
      const prev = out.get(k);
      out.set(k, prev === undefined ? v : mergeRuleDocs(prev, v, loc));
    }
    return out;
  }
  if (a instanceof SetValue && b instanceof SetValue) return new SetValue([...a.values(), ...b.values()]);
  if (valueEquals(a, b)) return a;
  throw new RegoError('eval_conflict_error', 'object keys must be unique', loc);
}

function evalComplete(ev: Evaluator, rules: CRule[]): Value | undefined {
  let result: Value | undefined;
  let def: CRule | undefined;
  // asked only once a value is known and another definition is left to try
  let earlyExit: boolean | undefined;
  let everyBranchAgrees: boolean | undefined;
  // as OPA: every definition is tried, each adding its first value that differs from the first one
  let conflicts: ConflictingValue[] | undefined;
  let firstAt: Loc | undefined;
  let path = '';
  for (const r of rules) {
    if (r.isDefault) {
      def = r;
      continue;
    }
    if (result !== undefined && (earlyExit ??= agreeOnConstant(ev, rules))) break;
    const f: Frame = new Array(r.nslots);
    const d = directRuleValue(ev, r, f);
    if (d.value !== GENERAL) {
      // the one value of a direct definition, taken as `take` below would (no closure per rule)
      const v = d.value;
      if (v === undefined) continue;
      if (result === undefined) {
        result = v;
        firstAt = d.branch.loc;
      } else if (!valueEquals(result, v)) {
        (conflicts ??= [[result, firstAt ?? d.branch.loc]]).push([v, d.branch.loc]);
        path = d.branch.path.join('.');
      }
      continue;
    }
    /** Takes one value of a definition; true when it disagrees with the first value. */
    const take = (v: Value, rr: CRule): boolean => {
      if (result === undefined) {
        result = v;
        firstAt = rr.loc;
        return false;
      }
      if (valueEquals(result, v)) return false;
      (conflicts ??= [[result, firstAt ?? rr.loc]]).push([v, rr.loc]);
      path = rr.path.join('.');
      return true;
    };
    let disagreed = false;
    // as OPA: a body stops at its first solution only when every candidate branch has one constant value
    const firstOnly = r.value.type === 'value' && (everyBranchAgrees ??= (r.elses.length === 0 && hasOneDefinition(rules)) || agreeOnConstant(ev, rules));
    ruleValues(ev, r, (v, rr) => {
      if (!disagreed) disagreed = take(v, rr);
    }, f, d.branch, firstOnly);
  }
  if (conflicts !== undefined) throw conflictError('rule', path, conflicts);
  if (result === undefined && def) {
    const fr: Frame = new Array(def.nslots);
    const v = direct(ev, def.value, fr);
    if (v !== GENERAL) return v;
    ev.evalTerm(def.value, fr, (x) => {
      result = x;
      return true;
    });
  }
  return result;
}

/** What directRuleValue found: a value (undefined when no branch holds) and its branch, or GENERAL and the branch to go on from. */
interface DirectRuleValue {
  value: Value | undefined | typeof GENERAL;
  branch: CRule;
}

const directResult: DirectRuleValue = { value: undefined, branch: undefined as unknown as CRule };

/**
 * The value of one rule definition while its branches, tried in order, are direct: the first whose
 * body holds and value is defined. GENERAL with the branch the general path must go on from (the
 * branches before it were tried and did not hold). The answer object is reused: read it at once.
 */
function directRuleValue(ev: Evaluator, r: CRule, f: Frame): DirectRuleValue {
  for (let b = -1; b < r.elses.length; b++) {
    const br = b < 0 ? r : (r.elses[b] as CRule);
    if (!indexed(ev, br)) continue;
    const mark = ev.trailMark();
    let v: Value | undefined | typeof GENERAL = GENERAL;
    try {
      const j = ev.directPrefix(br.body, 0, f);
      if (j < 0) v = undefined;
      else if (j === br.body.length) v = direct(ev, br.value, f);
    } finally {
      ev.unbindTo(mark, f);
    }
    directResult.branch = br;
    if (v === GENERAL) {
      directResult.value = GENERAL;
      return directResult;
    }
    if (v !== undefined) {
      directResult.value = v;
      return directResult;
    }
  }
  directResult.value = undefined;
  return directResult;
}

/**
 * Values of one rule definition: its body's solutions, or the first else branch with a solution;
 * `from` is the branch to start at (the ones before it did not hold), `firstOnly` whether its body
 * may stop at its first solution.
 */
function ruleValues(ev: Evaluator, r: CRule, onValue: (v: Value, r: CRule) => void, f: Frame, from: CRule, firstOnly: boolean): void {
  // A branch counts when its body holds and its value is defined (OPA evaluates the head value in the body).
  // Early exit (as OPA): `firstOnly` when the value is constant and agrees with every other candidate's.
  if (from === r && indexed(ev, r) && branchValues(ev, r, f, onValue, firstOnly)) return;
  let started = from === r;
  for (const e of r.elses) {
    if (!started) {
      if (e !== from) continue;
      started = true;
    }
    if (indexed(ev, e) && branchValues(ev, e, f, onValue, false)) return;
  }
}

/** Calls onValue per solution of one branch (only the first when `firstOnly`); whether there was one. */
function branchValues(ev: Evaluator, br: CRule, f: Frame, onValue: (v: Value, r: CRule) => void, firstOnly: boolean): boolean {
  let any = false;
  eachBranchValue(ev, br, f, (v) => {
    any = true;
    onValue(v, br);
    return firstOnly;
  });
  return any;
}

function applyObjectDefault(ev: Evaluator, r: CRule, obj: ObjectValue): void {
  const fr: Frame = new Array(r.nslots);
  ev.evalItems(r.rest, fr, 0, new Array(r.rest.length), (keys) => {
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
    return ev.evalTerm(r.value, fr, (v) => {
      cur.set(last, v);
      return true;
    });
  });
}

function evalObjectRule(ev: Evaluator, r: CRule, obj: ObjectValue): void {
  const fr: Frame = new Array(r.nslots);
  const insert = (keys: Value[], leaf: Value): void => {
    let cur = obj;
    for (let i = 0; i < keys.length - 1; i++) {
      const k = keys[i] as Value;
      let next = cur.get(k);
      if (next === undefined) {
        next = new ObjectValue();
        cur.set(k, next);
      } else if (!(next instanceof ObjectValue) || next.wholeRuleValue === true) {
        // no rule reaches inside another rule's value
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
    if (leaf instanceof ObjectValue) leaf.wholeRuleValue = true;
    cur.set(last, leaf);
  };
  const constant = r.rest.every((t) => t.type === 'value') && (r.kind === 'multi' ? (r.key as Term) : r.value).type === 'value';
  const onSolution = (valueTerm: Term): boolean =>
    ev.evalItems(r.rest, fr, 0, new Array(r.rest.length), (keys) =>
      ev.evalTerm(valueTerm, fr, (v) => {
        insert(keys.slice(), v);
        return constant;
      }),
    );
  let any = false;
  if (indexed(ev, r))
    ev.evalBody(r.body, 0, fr, () => {
      any = true;
      return onSolution(r.kind === 'multi' ? (r.key as Term) : r.value);
    });
  if (any) return;
  for (const e of r.elses) {
    if (!indexed(ev, e)) continue;
    let got = false;
    ev.evalBody(e.body, 0, fr, () => {
      got = true;
      return onSolution(e.value);
    });
    if (got) return;
  }
}
