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
  const deps = importDeps(m);
  for (const r of m.rules) addRuleDeps(pkg, r, deps);
  return distinct(deps);
}

/** The constant prefix of a ref's path: its keys up to the first that is not a string constant. */
function constPrefix(path: readonly Term[]): string[] {
  const out: string[] = [];
  for (const p of path) {
    if (p.type !== 'value' || typeof p.value !== 'string') break;
    out.push(p.value);
  }
  return out;
}

/** The paths of a module's `data` imports. */
function importDeps(m: Module): string[][] {
  const deps: string[][] = [];
  for (const i of m.imports) if (i.path.type === 'ref' && i.path.head.type === 'var' && i.path.head.name === 'data') deps.push(constPrefix(i.path.path));
  return deps;
}

/** Adds to `deps` the data paths one rule (its else branches with it) may read. */
function addRuleDeps(pkg: readonly string[], r: Rule, deps: string[][]): void {
  const heads = new Set<Term>();
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
  const rule = (x: Rule): void => {
    for (const t of x.ref) walkTerms(t, visit);
    if (x.key) walkTerms(x.key, visit);
    walkTerms(x.value, visit);
    for (const a of x.args) walkTerms(a, visit);
    for (const l of x.body) walkLiteral(l, visit);
    for (const e of x.elses) rule(e);
  };
  rule(r);
}

function distinct(paths: string[][]): string[][] {
  const seen = new Set<string>();
  return paths.filter((d) => {
    const k = JSON.stringify(d);
    return !seen.has(k) && (seen.add(k), true);
  });
}

/** A rule's path below `data`: its package, its name, and the constant keys of its head ref after the name. */
function rulePath(pkg: readonly string[], r: Rule): string[] {
  const [first, ...rest] = r.ref;
  const name = first?.type === 'var' ? first.name : first?.type === 'value' && typeof first.value === 'string' ? first.value : undefined;
  return name === undefined ? [...pkg] : [...pkg, name, ...constPrefix(rest)];
}

/**
 * For each module, which of its rules a query of `entry` (a data path below `data`) can reach, by
 * the same reading as reachableModules, one rule at a time: a rule is reached when its path and a
 * path a reached rule may read (or the entry) are one a prefix of the other; a reached rule adds
 * the paths it may read, and the first reached rule of a module adds its `data` imports (an
 * alias is read as a name of the package, which does not lead to the import).
 */
export function reachableRules(modules: readonly Module[], entry: readonly string[]): boolean[][] {
  const paths = modules.map((m) => m.rules.map((r) => rulePath(m.pkg.slice(1), r)));
  const reached = modules.map((m) => m.rules.map(() => false));
  const moduleReached = modules.map(() => false);
  const queue: (readonly string[])[] = [entry];
  for (let q = queue.shift(); q !== undefined; q = queue.shift()) {
    for (let i = 0; i < modules.length; i++) {
      const m = modules[i]!;
      for (let j = 0; j < m.rules.length; j++) {
        if (reached[i]![j] || !related(paths[i]![j]!, q)) continue;
        reached[i]![j] = true;
        const deps: string[][] = [];
        addRuleDeps(m.pkg.slice(1), m.rules[j]!, deps);
        if (!moduleReached[i]) {
          moduleReached[i] = true;
          deps.push(...importDeps(m));
        }
        queue.push(...distinct(deps));
      }
    }
  }
  return reached;
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
