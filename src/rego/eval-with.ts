/**
 * `with` modifiers: a literal evaluated under a swapped input, a patched base document, a replaced
 * rule node or a replaced function/builtin (by value or by another function), with fresh caches.
 */
import { type K, type Frame, type WithState, EMPTY_OBJECT, refPath, childPath, patchValue } from './eval-support.ts';
import type { CallTarget, Literal, Term } from './ast.ts';
import { lookupBuiltin } from './builtins/registry.ts';
import type { DataNode } from './compiler.ts';
import { WITH_FUNC_VALUES } from './compiler-resolve.ts';
import { RegoError } from './errors.ts';
import type { Value } from './value.ts';
import type { Evaluator } from './eval.ts';
import { nodeDoc } from './eval-data.ts';

/** Evaluates a literal under its `with` modifiers; `core` is what runs under them (the literal by default). */
export function evalWith(ev: Evaluator, l: Literal, f: Frame, i: number, vals: Value[], k: K, core?: (k: K) => boolean): boolean {
  if (i < l.withs.length) {
    const w = l.withs[i] as Literal['withs'][number];
    // a function-valued replacement: with f as g
    const tv = w.value;
    const asTarget = withTargetFunc(ev, tv);
    if (asTarget) {
      vals[i] = null;
      (vals as unknown as Record<string, unknown>)[`t${i}`] = asTarget;
      return evalWith(ev, l, f, i + 1, vals, k, core);
    }
    return ev.evalTerm(tv, f, (v) => {
      vals[i] = v;
      return evalWith(ev, l, f, i + 1, vals, k, core);
    });
  }
  const saved = ev.s;
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
      let node: DataNode | undefined = ev.policy.root;
      let i2 = 0;
      for (; i2 < rest.length && node; i2++) {
        if (node.rules.length) break;
        node = node.children.get(rest[i2] as string);
      }
      if (node && (i2 === rest.length || node.rules.length)) {
        const over = new Map(inner.nodeOverrides ?? []);
        if (i2 === rest.length) over.set(node, v);
        else {
          const doc = withState(ev, saved, () => nodeDoc(ev, node as DataNode, childPath(saved.base, rest.slice(0, i2))));
          over.set(node, patchValue(doc ?? EMPTY_OBJECT, rest.slice(i2), v));
        }
        inner.nodeOverrides = over;
        // overriding a node also hides its children's rules
      }
      inner.base = rest.length === 0 ? v : patchValue(inner.base, rest, v);
    }
  });
  ev.s = inner;
  try {
    const under = core ?? ((next: K): boolean => ev.evalLiteralCore(l, f, next));
    return under(() => {
      ev.s = saved;
      try {
        return k();
      } finally {
        ev.s = inner;
      }
    });
  } finally {
    ev.s = saved;
  }
}

function withTargetFunc(ev: Evaluator, t: Term): CallTarget | undefined {
  if (t.type === 'call' && t.args.length === 0 && t.target && WITH_FUNC_VALUES.has(t)) return t.target;
  if (t.type === 'var' && t.slot === undefined && t.name !== 'input' && t.name !== 'data' && lookupBuiltin(t.name)) {
    return { kind: 'builtin', name: t.name };
  }
  if (t.type === 'ref' && t.head.type === 'var' && t.head.slot === undefined && t.head.name === 'data') {
    const p = refPath(t);
    if (p && ev.policy.funcs.has(p.join('.'))) return { kind: 'func', path: p.join('.') };
  }
  if (t.type === 'ref' && t.head.type === 'var' && t.head.slot === undefined && t.head.name !== 'input' && t.head.name !== 'data') {
    const p = refPath(t);
    if (p && lookupBuiltin(p.join('.'))) return { kind: 'builtin', name: p.join('.') };
  }
  return undefined;
}

function withState<T>(ev: Evaluator, st: WithState, fn: () => T): T {
  const cur = ev.s;
  ev.s = st;
  try {
    return fn();
  } finally {
    ev.s = cur;
  }
}
