/** walk (a relation) and graph.reachable / graph.reachable_paths. */
import { type Value, ObjectValue, SetValue } from '../value.ts';
import { registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { arg, obj, oneOfError } from './args.ts';

/** Every [path, value] pair; each path is charged as it is built (a deep value makes long paths). */
function walkAll(v: Value, ctx: BuiltinContext): Value[] {
  const out: Value[] = [];
  const stack: [Value[], Value][] = [[[], v]];
  const budget = ctx.budget;
  while (stack.length > 0) {
    const [path, x] = stack.pop()!;
    budget?.alloc(path.length + 1);
    out.push([path, x]);
    const children: [Value, Value][] = [];
    if (Array.isArray(x)) x.forEach((c, i) => children.push([i, c]));
    else if (x instanceof ObjectValue) for (const [k, c] of x.entries()) children.push([k, c]);
    else if (x instanceof SetValue) for (const c of x.values()) children.push([c, c]);
    for (let i = children.length - 1; i >= 0; i--) {
      const [k, c] = children[i]!;
      stack.push([[...path, k], c]);
    }
  }
  return out;
}

function members(name: string, v: Value, n: number): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof SetValue) return v.values();
  throw oneOfError(name, n, ['array', 'set'], v);
}

function neighbours(edges: Value | undefined): readonly Value[] {
  if (edges === undefined || edges === null) return [];
  if (Array.isArray(edges)) return edges;
  if (edges instanceof SetValue) return edges.values();
  return [];
}

export const GRAPH_BUILTINS: BuiltinDef[] = [
  { name: 'walk', arity: 1, rel: (a, ctx) => walkAll(arg(a, 0), ctx) },
  {
    name: 'graph.reachable',
    arity: 2,
    fn: (a) => {
      const name = 'graph.reachable';
      const g = obj(name, a, 0);
      const queue = [...members(name, arg(a, 1), 2)];
      const reached = new SetValue();
      for (let i = 0; i < queue.length; i++) {
        const node = queue[i]!;
        const edges = g.get(node);
        if (edges === undefined || reached.has(node)) continue;
        reached.add(node);
        for (const n of neighbours(edges)) if (!reached.has(n)) queue.push(n);
      }
      return reached;
    },
  },
  {
    name: 'graph.reachable_paths',
    arity: 2,
    fn: (a) => {
      const name = 'graph.reachable_paths';
      const g = obj(name, a, 0);
      const out = new SetValue();
      const visit = (node: Value, path: Value[]): void => {
        const edges = g.get(node);
        if (edges === undefined) {
          if (path.length > 0) out.add(path);
          return;
        }
        const next = [...path, node];
        const ns = neighbours(edges).filter((n) => !next.some((p) => p === n || (typeof p === 'object' && JSON.stringify(p) === JSON.stringify(n))));
        if (ns.length === 0) {
          out.add(next);
          return;
        }
        for (const n of ns) visit(n, next);
      };
      for (const start of members(name, arg(a, 1), 2)) visit(start, []);
      return out;
    },
  },
];

registerBuiltins(GRAPH_BUILTINS);
