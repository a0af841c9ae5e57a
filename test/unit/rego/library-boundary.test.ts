/**
 * The Rego engine is a library of its own: nothing under src/rego imports from the rest of toolgate,
 * and its one entry (src/rego/index.ts) only re-exports. The example in src/rego/README.md runs.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const regoDir = resolve(import.meta.dirname, '../../../src/rego');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The text without comments (string contents are kept: a specifier is a string). */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/**
 * Every module specifier a text names: `import ... from`, `export ... from`, side-effect `import '...'`,
 * dynamic `import('...')`, `require('...')` and `import('...')` types; a computed one shows as `<computed>`.
 */
export function specifiers(text: string): string[] {
  const t = stripComments(text);
  const out: string[] = [];
  for (const m of t.matchAll(/\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\sfrom\s*(['"])([^'"]+)\1/g)) out.push(m[2]!);
  for (const m of t.matchAll(/\bimport\s*(['"])([^'"]+)\1/g)) out.push(m[2]!);
  for (const m of t.matchAll(/\b(?:import|require)\s*\(\s*([^)]*?)\s*[,)]/g)) {
    const lit = /^(['"])([^'"]+)\1$/.exec(m[1]!);
    out.push(lit ? lit[2]! : '<computed>');
  }
  return out;
}

describe('the Rego engine as a library', () => {
  it('imports nothing from outside src/rego (relative paths stay inside; packages are npm or node: modules)', () => {
    const outside: string[] = [];
    const files = sourceFiles(regoDir);
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      for (const s of specifiers(readFileSync(f, 'utf8'))) {
        const inside = s.startsWith('.') ? !relative(regoDir, resolve(dirname(f), s)).startsWith('..') : s !== '<computed>' && !s.startsWith('/');
        if (!inside) outside.push(`${relative(regoDir, f)}: ${s}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('the scan finds every form of import', () => {
    const text = [
      "import { a } from '../x.ts';",
      "import type { B } from \"../y.ts\";",
      'export * from "./z.ts";',
      "export {\n  c,\n  d,\n} from '../w.ts';",
      "import '../side.ts';",
      "const m = await import('../lazy.ts');",
      'const n = await import(name);',
      "// import { no } from '../commented.ts';",
      "/* export * from '../also-commented.ts'; */",
      "const r = require('node:fs');",
    ].join('\n');
    expect(specifiers(text).sort()).toEqual(['../lazy.ts', '../side.ts', '../w.ts', '../x.ts', '../y.ts', './z.ts', '<computed>', 'node:fs'].sort());
  });

  it('index.ts only re-exports', () => {
    const statements = stripComments(readFileSync(join(regoDir, 'index.ts'), 'utf8'))
      .split(';')
      .map((x) => x.trim())
      .filter((x) => x !== '');
    expect(statements.length).toBeGreaterThan(5);
    for (const st of statements) expect(st).toMatch(/^export (type )?(\*|\{[^}]*\}) from '\.\/[\w/.-]+\.ts'$/);
  });

  it('runs the README example', async () => {
    const readme = readFileSync(join(regoDir, 'README.md'), 'utf8');
    const m = /<!-- example -->\n```ts\n([\s\S]*?)```/.exec(readme);
    expect(m, 'README.md has a ```ts block after <!-- example -->').not.toBeNull();
    const code = m![1]!;
    const expected = [...code.matchAll(/\/\/ => (.*)$/gm)].map((x) => JSON.parse(x[1]!) as unknown);
    expect(expected.length).toBeGreaterThan(3);
    // the example as a module of its own, its import pointed at the entry, with `log` collecting
    const logged: unknown[] = [];
    (globalThis as { __regoReadmeLog?: (x: unknown) => void }).__regoReadmeLog = (x) => logged.push(x);
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-rego-readme-'));
    const file = join(dir, 'example.ts');
    writeFileSync(file, `const log = (globalThis as any).__regoReadmeLog;\n${code.replace("from './index.ts'", `from ${JSON.stringify(join(regoDir, 'index.ts'))}`)}`);
    try {
      await import(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(logged).toEqual(expected);
  });
});
