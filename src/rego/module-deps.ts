/**
 * Which modules a query at one data path can reach, read from the parsed modules alone: so a
 * caller that knows every module compiles (a cached compile of the same bytes) may compile only
 * those. Conservative by construction: a module is reached when its package and a path the query
 * may read are one a prefix of the other, and a module reached adds every data path it may read:
 * its `data` imports, the constant prefix of every `data` ref and `data.` call, the whole of
 * `data` for a bare `data` or a ref dynamic from its first key, and for every other name it uses
 * (a rule of its package, a sub-package, or only a local variable) that name under its package.
 */
import type { Module, Rule, Term } from './ast.ts';
import { walkLiteral, walkTerms } from './term-walk.ts';

/** A module as reachability sees it: its package below `data`, and the data paths it may read. */
export interface ModuleReach {
  readonly pkg: readonly string[];
  readonly deps: readonly (readonly string[])[];
}

/** The data paths (below `data`) a module may read; `[]` is all of `data`. */
export function moduleDataDeps(m: Module): string[][] {
  const pkg = m.pkg.slice(1);
  const deps: string[][] = [];
  const heads = new Set<Term>();
  const constPrefix = (path: readonly Term[]): string[] => {
    const out: string[] = [];
    for (const p of path) {
      if (p.type !== 'value' || typeof p.value !== 'string') break;
      out.push(p.value);
    }
    return out;
  };
  const visit = (t: Term): void => {
    if (t.type === 'ref' && t.head.type === 'var') {
      heads.add(t.head);
      if (t.head.name === 'data') deps.push(constPrefix(t.path));
      else if (t.head.name !== 'input') deps.push([...pkg, t.head.name, ...constPrefix(t.path)]);
    } else if (t.type === 'var' && !heads.has(t)) {
      if (t.name === 'data') deps.push([]);
      else if (t.name !== 'input') deps.push([...pkg, t.name]);
    } else if (t.type === 'call') deps.push(t.name.startsWith('data.') ? t.name.split('.').slice(1) : [...pkg, ...t.name.split('.')]);
  };
  for (const i of m.imports) if (i.path.type === 'ref' && i.path.head.type === 'var' && i.path.head.name === 'data') deps.push(constPrefix(i.path.path));
  const rule = (r: Rule): void => {
    for (const t of r.ref) walkTerms(t, visit);
    if (r.key) walkTerms(r.key, visit);
    walkTerms(r.value, visit);
    for (const a of r.args) walkTerms(a, visit);
    for (const l of r.body) walkLiteral(l, visit);
    for (const e of r.elses) rule(e);
  };
  for (const r of m.rules) rule(r);
  const seen = new Set<string>();
  return deps.filter((d) => {
    const k = JSON.stringify(d);
    return !seen.has(k) && (seen.add(k), true);
  });
}

const related = (a: readonly string[], b: readonly string[]): boolean => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** For each module, whether a query of `entry` (a data path below `data`) can reach it. */
export function reachableModules(modules: readonly ModuleReach[], entry: readonly string[]): boolean[] {
  const reached = modules.map(() => false);
  const queue: (readonly string[])[] = [entry];
  for (let q = queue.shift(); q !== undefined; q = queue.shift()) {
    for (let i = 0; i < modules.length; i++) {
      if (reached[i] || !related(modules[i]!.pkg, q)) continue;
      reached[i] = true;
      queue.push(...modules[i]!.deps);
    }
  }
  return reached;
}

/**
 * Each module's deps cut to what reachability among these same modules reads: for each distinct
 * set of other modules its paths are related to, the first path with that set. Over the result,
 * reachableModules reaches from any entry what it reaches over the full deps (a reached module
 * adds the modules its paths are related to, itself already reached), in a fraction of the paths.
 */
export function depsAmong(modules: readonly ModuleReach[]): string[][][] {
  return modules.map((m, i) => {
    const seen = new Set<string>();
    const kept: string[][] = [];
    for (const d of m.deps) {
      const others = modules.flatMap((o, j) => (j !== i && related(o.pkg, d) ? [j] : [])).join(',');
      if (others === '' || seen.has(others)) continue;
      seen.add(others);
      kept.push([...d]);
    }
    return kept;
  });
}
