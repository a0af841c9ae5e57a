/**
 * What OPA's rule index (ast/index.go) decides about a rule before evaluating its body: OPA looks a
 * rule set up in an index built from the body's literals and evaluates only the rules (and `else`
 * branches) whose indexed conditions hold. The conditions are side-effect free reads of `input`,
 * base `data` or a function's arguments:
 *
 * - every ground ref into `input` or base `data` that OPA's compiler hoists into `__localN__ = ref`
 *   (call operands, collection items, `x := ref`, head values, `every` domains) or leaves as a bare
 *   statement must be defined;
 * - `ref = scalar` / `ref == scalar` (also through a local bound to the ref or to a constant, or a
 *   function argument) must hold;
 * - `startswith(ref, "s")` / `endswith(ref, "s")` need a string with that affix (not for a function
 *   argument).
 *
 * A body whose condition fails would fail anyway, so this changes nothing without strict builtin
 * errors; with them it decides which errors can be raised at all: OPA never evaluates `is_string(
 * to_number("a"))` in a rule whose body also reads an undefined `input.x`, whatever the literal order.
 * Only the subset of OPA's index that is certain is modelled (no `in`, globs or array values); a
 * missing condition only makes the engine evaluate a body OPA skips.
 */
import type { CRule, DataNode } from './compiler.ts';
import type { Literal, Term } from './ast.ts';
import { isScalar, type Value } from './value.ts';

/** A read the index makes: the root (`input`, `data` or the index of a function argument) and constant keys. */
export interface IndexRef {
  readonly root: 'input' | 'data' | number;
  readonly path: readonly Value[];
}

export interface IndexCond {
  readonly ref: IndexRef;
  readonly kind: 'defined' | 'eq' | 'prefix' | 'suffix';
  readonly value?: Value;
}

/** The index conditions of one branch (a rule body or one of its `else` bodies), computed once. */
export function branchConditions(r: CRule, root: DataNode): readonly IndexCond[] {
  return (r.indexConds ??= computeConditions(r, root));
}

function isVirtual(root: DataNode, path: readonly Value[]): boolean {
  let node: DataNode | undefined = root;
  for (const seg of path) {
    if (node.rules.length || node.funcs.length) return true;
    node = typeof seg === 'string' ? node.children.get(seg) : undefined;
    if (node === undefined) return false;
  }
  return node.hasRules || node.rules.length > 0 || node.funcs.length > 0;
}

function hasPrint(body: readonly Literal[]): boolean {
  let found = false;
  const visit = (t: Term): void => {
    if (found) return;
    switch (t.type) {
      case 'call':
        if (t.name === 'print') found = true;
        else t.args.forEach(visit);
        return;
      case 'ref':
        visit(t.head);
        t.path.forEach(visit);
        return;
      case 'array':
      case 'set':
        t.items.forEach(visit);
        return;
      case 'object':
        for (const [k, v] of t.entries) (visit(k), visit(v));
        return;
      case 'arraycompr':
      case 'setcompr':
        visit(t.term);
        if (hasPrint(t.body)) found = true;
        return;
      case 'objectcompr':
        visit(t.key);
        visit(t.value);
        if (hasPrint(t.body)) found = true;
        return;
      default:
        return;
    }
  };
  for (const l of body) {
    const e = l.expr;
    if (e.kind === 'term') visit(e.term);
    else if (e.kind === 'unify' || e.kind === 'assign') (visit(e.left), visit(e.right));
    else if (e.kind === 'somein') visit(e.coll);
    else if (e.kind === 'every') {
      visit(e.domain);
      if (hasPrint(e.body)) found = true;
    }
    for (const w of l.withs) visit(w.value);
    if (found) return true;
  }
  return false;
}

function computeConditions(r: CRule, root: DataNode): readonly IndexCond[] {
  if (hasPrint(r.body)) return [];
  const conds: IndexCond[] = [];
  const argOf = new Map<number, number>();
  r.args.forEach((a, i) => {
    if (a.type === 'var' && a.slot !== undefined && !argOf.has(a.slot)) argOf.set(a.slot, i);
  });
  /** Locals bound by `x = ref` (OPA's resolveVarToRef) and to scalar constants. */
  const refOf = new Map<number, IndexRef>();
  const constOf = new Map<number, Value>();

  const groundRef = (t: Term): IndexRef | undefined => {
    if (t.type === 'var' && t.slot === undefined && t.name === 'input') return { root: 'input', path: [] };
    if (t.type !== 'ref' || t.head.type !== 'var' || t.head.slot !== undefined) return undefined;
    const rootName = t.head.name;
    if (rootName !== 'input' && rootName !== 'data') return undefined;
    const path: Value[] = [];
    for (const p of t.path) {
      if (p.type !== 'value') return undefined;
      path.push(p.value);
    }
    if (rootName === 'data' && isVirtual(root, path)) return undefined;
    return { root: rootName, path };
  };
  const resolved = (t: Term): IndexRef | undefined => {
    if (t.type === 'var' && t.slot !== undefined) {
      const a = argOf.get(t.slot);
      if (a !== undefined) return { root: a, path: [] };
      return refOf.get(t.slot);
    }
    return groundRef(t);
  };
  const constant = (t: Term): Value | undefined => {
    if (t.type === 'value') return isScalar(t.value) ? t.value : undefined;
    if (t.type === 'var' && t.slot !== undefined) return constOf.get(t.slot);
    return undefined;
  };
  /** Every ground ref OPA hoists out of a term (closures keep theirs). */
  const hoisted = (t: Term): void => {
    switch (t.type) {
      case 'var':
      case 'ref': {
        const g = groundRef(t);
        if (g) conds.push({ ref: g, kind: 'defined' });
        else if (t.type === 'ref') t.path.forEach(hoisted);
        return;
      }
      case 'array':
      case 'set':
        t.items.forEach(hoisted);
        return;
      case 'object':
        for (const [k, v] of t.entries) (hoisted(k), hoisted(v));
        return;
      case 'call':
        t.args.forEach(hoisted);
        return;
      default:
        return;
    }
  };

  for (const l of r.body) {
    if (l.withs.length) continue;
    const e = l.expr;
    if (l.negated) {
      // the compiler hoists a negated call's operands out of the negation (compiler.ts hoistDynamics)
      continue;
    }
    switch (e.kind) {
      case 'unify':
      case 'assign':
        eq(e.left, e.right);
        break;
      case 'term': {
        const t = e.term;
        if (t.type === 'call' && t.target?.kind === 'builtin' && t.args.length === 2 && t.name === 'equal') eq(t.args[0] as Term, t.args[1] as Term);
        else if (t.type === 'call' && t.target?.kind === 'builtin' && t.args.length === 2 && (t.name === 'startswith' || t.name === 'endswith')) {
          hoisted(t);
          const ref = resolved(t.args[0] as Term);
          const s = constant(t.args[1] as Term);
          // a function argument is no index ref for an affix (OPA's isValidIndexRef)
          if (ref && typeof ref.root !== 'number' && typeof s === 'string') conds.push({ ref, kind: t.name === 'startswith' ? 'prefix' : 'suffix', value: s });
        } else hoisted(t);
        break;
      }
      case 'somein':
        // `some x in ref` becomes `x = ref[_]`, which is not ground: only refs inside the collection's keys count
        if (e.coll.type === 'ref') e.coll.path.forEach(hoisted);
        else hoisted(e.coll);
        break;
      case 'every':
        hoisted(e.domain);
        break;
      default:
        break;
    }
  }
  for (const t of [r.value, r.key, ...r.rest]) if (t) hoisted(t);
  return dedupe(conds);

  function eq(a: Term, b: Term): void {
    if (!side(a, b)) side(b, a);
    // operands that are not the ref or value of the comparison are hoisted
    for (const t of [a, b]) if (!groundRef(t)) hoisted(t);
  }
  /** `a = b` with a the ref (or a local naming one); false when `a` is neither. */
  function side(a: Term, b: Term): boolean {
    if (a.type === 'var' && a.slot !== undefined) {
      const c = constant(b);
      if (c !== undefined && !argOf.has(a.slot) && !refOf.has(a.slot)) constOf.set(a.slot, c);
      const ref = resolved(a);
      if (ref === undefined) {
        // `x := input.a` makes x name input.a for later literals
        const g = groundRef(b);
        if (g && !constOf.has(a.slot)) refOf.set(a.slot, g);
        return false;
      }
      if (c !== undefined) conds.push({ ref, kind: 'eq', value: c });
      else if (b.type === 'var') conds.push({ ref, kind: 'defined' });
      return true;
    }
    const ref = groundRef(a);
    // OPA indexes a ref against a var, a scalar or an array (`input.a = input.b` is not indexed); a
    // call or a comprehension there is a var by then, the compiler having moved it into a local before
    const hoistedToVar = b.type === 'call' || b.type === 'arraycompr' || b.type === 'setcompr' || b.type === 'objectcompr';
    if (ref === undefined || !(b.type === 'var' || hoistedToVar || b.type === 'array' || (b.type === 'value' && isScalar(b.value)))) return false;
    const c = constant(b);
    if (c !== undefined) conds.push({ ref, kind: 'eq', value: c });
    else conds.push({ ref, kind: 'defined' });
    return true;
  }
}

function refKey(r: IndexRef): string {
  return `${typeof r.root === 'number' ? `#${r.root}` : r.root}${JSON.stringify(r.path, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`;
}

/**
 * Two different values (or affixes) for one ref make OPA index the rule under alternatives, not both:
 * keep only that the ref is defined there.
 */
function dedupe(conds: IndexCond[]): IndexCond[] {
  const byRef = new Map<string, IndexCond[]>();
  for (const c of conds) {
    const k = refKey(c.ref);
    const l = byRef.get(k);
    if (l) l.push(c);
    else byRef.set(k, [c]);
  }
  const out: IndexCond[] = [];
  for (const l of byRef.values()) {
    const valued = l.filter((c) => c.kind !== 'defined');
    const first = valued[0];
    const same = first !== undefined && valued.every((c) => c.kind === first.kind && c.value === first.value);
    if (first && same && typeof first.value !== 'object') out.push(first);
    else if (first && valued.length === 1) out.push(first);
    else out.push({ ref: (l[0] as IndexCond).ref, kind: 'defined' });
  }
  return out;
}
