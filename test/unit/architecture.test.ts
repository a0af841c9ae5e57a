/**
 * The dependency picture of ARCHITECTURE.md, checked against every import specifier in src/:
 * imports between top-level parts of src/ form no cycle, and each one is an arrow the table
 * below allows (an arrow to the same stage or a lower one), with no exceptions. STAGE and ALLOWED
 * are held equal to the table in ARCHITECTURE.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAst } from 'vite';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/** Each top-level part of src/ (a folder, or a root file without `.ts`) and its stage: lower is earlier. */
const STAGE: Record<string, number> = {
  errors: 0,
  canonical: 0,
  rego: 1,
  bundle: 1,
  engines: 1,
  parse: 2,
  manifest: 2,
  catalog: 2,
  crawl: 2,
  governance: 3,
  connectome: 3,
  selector: 4,
  audit: 4,
  preflight: 4,
  control: 4,
  review: 4,
  signs: 4,
  compile: 5,
  emit: 6,
  queries: 7,
  serve: 7,
  'bundle-service': 7,
  publish: 7,
  cli: 8,
  index: 8,
};

/** The arrows allowed between parts: what each part may import. */
const ALLOWED: Record<string, readonly string[]> = {
  errors: [],
  canonical: ['errors'],
  rego: [],
  bundle: ['canonical', 'errors', 'rego'],
  engines: ['bundle', 'errors', 'rego'],
  parse: ['canonical', 'errors'],
  manifest: ['errors', 'parse'],
  catalog: ['errors', 'parse'],
  crawl: ['canonical', 'catalog', 'errors', 'parse'],
  governance: ['canonical', 'catalog', 'errors', 'manifest'],
  connectome: ['canonical', 'catalog', 'errors', 'parse'],
  selector: ['governance', 'manifest'],
  audit: ['connectome', 'errors', 'governance'],
  preflight: ['governance', 'selector'],
  control: ['errors', 'governance', 'parse', 'selector'],
  review: ['canonical', 'errors', 'governance', 'parse', 'selector'],
  signs: ['connectome', 'engines', 'errors', 'rego'],
  compile: ['bundle', 'canonical', 'catalog', 'connectome', 'errors', 'governance'],
  emit: ['canonical', 'compile', 'errors', 'governance'],
  queries: ['audit', 'bundle', 'canonical', 'compile', 'connectome', 'control', 'emit', 'errors', 'governance', 'parse', 'preflight', 'rego', 'review', 'selector'],
  serve: ['audit', 'canonical', 'compile', 'connectome', 'errors', 'governance', 'parse', 'queries', 'selector'],
  'bundle-service': ['canonical', 'errors', 'parse'],
  publish: ['canonical', 'errors'],
  cli: Object.keys(STAGE).filter((p) => p !== 'cli' && p !== 'index'),
  index: ['audit', 'bundle', 'canonical', 'catalog', 'cli', 'compile', 'connectome', 'emit', 'engines', 'errors', 'governance', 'manifest', 'preflight', 'rego', 'selector'],
};

/** The top-level part of src/ a path lies in, or undefined outside src/. */
function partOf(path: string): string | undefined {
  const rel = relative(SRC, path);
  if (rel.startsWith('..')) return undefined;
  const [first, ...rest] = rel.split('/');
  return rest.length === 0 ? first!.replace(/\.ts$/, '') : first;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.[cm]?ts$/.test(name) ? [path] : [];
  });
}

interface Arrow {
  readonly from: string;
  readonly to: string;
  /** Where it is made: `file: specifier`. */
  readonly at: string;
}

/** The module specifiers a parsed file names: imports, `export from`, type-only and dynamic imports alike. */
function specifiers(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const n of node) specifiers(n, out);
  } else if (typeof node === 'object' && node !== null) {
    const n = node as { type?: string; source?: { type?: string; value?: unknown } };
    if (/^(Import|ExportAll|ExportNamed)Declaration$|^ImportExpression$/.test(n.type ?? '') && n.source?.type === 'Literal' && typeof n.source.value === 'string') {
      out.push(n.source.value);
    }
    for (const value of Object.values(node)) if (typeof value === 'object') specifiers(value, out);
  }
  return out;
}

/** Every import between two parts of src/. */
function arrows(): Arrow[] {
  const out: Arrow[] = [];
  for (const file of sourceFiles(SRC)) {
    // A parser, not a pattern: specifiers in comments and strings are not imports.
    const ast = parseAst(readFileSync(file, 'utf8'), { lang: 'ts' } as Parameters<typeof parseAst>[1]);
    for (const fileName of specifiers(ast)) {
      if (!fileName.startsWith('.')) continue;
      const from = partOf(file)!;
      const to = partOf(resolve(dirname(file), fileName));
      if (to !== undefined && to !== from) out.push({ from, to, at: `${relative(SRC, file)}: ${fileName}` });
    }
  }
  return out;
}

/** The parts on one cycle of the graph, or undefined when it has none. */
function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (state.get(next) === undefined) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...edges.keys()].sort()) {
    if (state.get(node) !== undefined) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

function graphOf(pairs: readonly { from: string; to: string }[]): Map<string, Set<string>> {
  const g = new Map<string, Set<string>>();
  for (const { from, to } of pairs) {
    if (!g.has(from)) g.set(from, new Set());
    g.get(from)!.add(to);
  }
  return g;
}

/** The dependency table of ARCHITECTURE.md: part -> [stage, what it may import]. */
function documentedTable(): Map<string, { stage: number; imports: string[] }> {
  const text = readFileSync(resolve(SRC, '../ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('<!-- dependency-table:start -->');
  const end = text.indexOf('<!-- dependency-table:end -->');
  expect(start >= 0 && end > start, 'ARCHITECTURE.md keeps its table between the dependency-table markers').toBe(true);
  const rows = new Map<string, { stage: number; imports: string[] }>();
  for (const line of text.slice(start, end).split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 5 || !/^\d+$/.test(cells[2]!)) continue;
    const imports = cells[3] === 'every part but index' ? ['*'] : cells[3]!.split(',').map((c) => c.trim()).filter((c) => c !== '');
    rows.set(cells[1]!, { stage: Number(cells[2]), imports });
  }
  return rows;
}

/** Modules whose import means touching the file system, processes or the process itself. */
const IO_MODULES = new Set(['node:fs', 'node:fs/promises', 'fs', 'fs/promises', 'node:child_process', 'child_process', 'node:process', 'process']);

/**
 * What a file touches that only cli/ should: `fs` (an I/O module imported), `process` (the global
 * read) and `clock` (Date.now() or a new Date() of now). Found in the parsed code, not comments.
 */
function touches(ast: unknown): Set<'fs' | 'process' | 'clock'> {
  const out = new Set<'fs' | 'process' | 'clock'>();
  for (const spec of specifiers(ast)) if (IO_MODULES.has(spec)) out.add('fs');
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (typeof node !== 'object' || node === null) return;
    const n = node as { type?: string; object?: { type?: string; name?: string }; property?: { name?: string }; callee?: { type?: string; name?: string }; arguments?: unknown[] };
    if (n.type === 'MemberExpression' && n.object?.type === 'Identifier') {
      if (n.object.name === 'process') out.add('process');
      if (n.object.name === 'Date' && n.property?.name === 'now') out.add('clock');
    }
    if (n.type === 'NewExpression' && n.callee?.type === 'Identifier' && n.callee.name === 'Date' && n.arguments?.length === 0) out.add('clock');
    for (const value of Object.values(node)) if (typeof value === 'object') walk(value);
  };
  walk(ast);
  return out;
}

/** Files outside cli/ that touch the file system, the process or the clock, and why they must. */
const IO_OUTSIDE_CLI: readonly { file: string; touches: string; reason: string }[] = [
  {
    file: 'rego/limits.ts',
    touches: 'clock',
    reason: 'the engine is a library of its own: its limits promise a wall-clock deadline, checked while it evaluates, and its engines default time.now_ns to the host clock, as OPA does',
  },
];

describe('architecture: imports between the parts of src/ go one way', () => {
  const found = arrows();

  it('finds the imports it checks (the scan is not empty)', () => {
    expect(found.length).toBeGreaterThan(100);
    expect(found.some((a) => a.from === 'cli' && a.to === 'compile')).toBe(true);
  });

  it('places every part of src/ in a stage, and the table names only parts that exist', () => {
    const parts = [...new Set(sourceFiles(SRC).map((f) => partOf(f)!))].sort();
    expect(parts).toEqual(Object.keys(STAGE).sort());
    expect(Object.keys(ALLOWED).sort()).toEqual(Object.keys(STAGE).sort());
  });

  it('allows only arrows to the same stage or a lower one, and the allowed arrows form no cycle', () => {
    const upward = Object.entries(ALLOWED).flatMap(([from, tos]) => tos.filter((to) => STAGE[to]! > STAGE[from]!).map((to) => `${from} -> ${to}`));
    expect(upward).toEqual([]);
    expect(findCycle(graphOf(Object.entries(ALLOWED).flatMap(([from, tos]) => tos.map((to) => ({ from, to })))))).toBeUndefined();
  });

  it('is the table ARCHITECTURE.md documents', () => {
    const documented = documentedTable();
    expect([...documented.keys()].sort()).toEqual(Object.keys(STAGE).sort());
    for (const [part, row] of documented) {
      expect(row.stage, `${part}'s stage`).toBe(STAGE[part]);
      const allowed = row.imports[0] === '*' ? Object.keys(STAGE).filter((p) => p !== part && p !== 'index') : row.imports;
      expect([...allowed].sort(), `what ${part} may import`).toEqual([...ALLOWED[part]!].sort());
    }
  });

  it('has no import cycle between parts of src/', () => {
    expect(findCycle(graphOf(found))).toBeUndefined();
  });

  it('has no arrow the table does not allow', () => {
    const against = found.filter((a) => !ALLOWED[a.from]?.includes(a.to)).map((a) => `${a.from} -> ${a.to} (${a.at})`);
    expect(against).toEqual([]);
  });

  it('touches the file system, the process and the clock only in cli/, but for the files named with their reason', () => {
    const found: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const rel = relative(SRC, file);
      if (rel.startsWith('cli/')) continue;
      for (const t of touches(parseAst(readFileSync(file, 'utf8'), { lang: 'ts' } as Parameters<typeof parseAst>[1]))) found.push(`${rel}: ${t}`);
    }
    const named = IO_OUTSIDE_CLI.map((a) => `${a.file}: ${a.touches}`);
    expect(found.filter((f) => !named.includes(f))).toEqual([]);
    expect(named.filter((a) => !found.includes(a)), 'touches that are gone: drop them from IO_OUTSIDE_CLI').toEqual([]);
    const doc = readFileSync(resolve(SRC, '../ARCHITECTURE.md'), 'utf8');
    for (const a of IO_OUTSIDE_CLI) expect(doc.includes(`\`${a.file}\``), `ARCHITECTURE.md names ${a.file} and why`).toBe(true);
  });

  it('touches() sees an fs import, a process read and the clock, and not the same words in a comment', () => {
    const parsed = (text: string) => [...touches(parseAst(text, { lang: 'ts' } as Parameters<typeof parseAst>[1]))].sort();
    expect(parsed("import { readFileSync } from 'node:fs';\nconst a = process.env.X;\nconst t = Date.now();")).toEqual(['clock', 'fs', 'process']);
    expect(parsed("// import { readFileSync } from 'node:fs'; process.env; Date.now()\nconst d = new Date(0);")).toEqual([]);
  });

  it('findCycle finds a cycle where there is one and names its parts in order', () => {
    expect(findCycle(graphOf([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }]))).toEqual(['a', 'b', 'c', 'a']);
    expect(findCycle(graphOf([{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'b', to: 'c' }]))).toBeUndefined();
  });
});
