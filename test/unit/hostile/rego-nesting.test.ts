/**
 * Rego source nested past what the builtin engine's parser can hold on the JS stack (100,000
 * parentheses, brackets or braces) was `REGO_PARSE_ERROR: source nested too deeply` naming no file,
 * whichever module it was in. It now names the module's file and the line:col where the nesting
 * got too deep, as every other parse error does. Arrays nested a few dozen levels with an operator
 * or a failed comprehension at each level (`[[[1] + [1]] + [1]]`, `[1 | [1 | 1, 1], 1]`) took
 * 2^depth to parse: a 200-byte module never finished.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');
const DEPTH = 100_000;

const SHAPES: Record<string, { open: string; close: string; inner: string }> = {
  parentheses: { open: '(', close: ')', inner: '1' },
  brackets: { open: '[', close: ']', inner: '1' },
  braces: { open: '{', close: '}', inner: '1' },
  objects: { open: '{"a": ', close: '}', inner: '1' },
};

let dir: string;
let out: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-rego-nesting-'));
  out = join(dir, 'out');
  mkdirSync(out);
});

/** A folder holding a harmless module and then `deep.rego`, nested DEPTH levels on line 4. */
function deepFolder(name: string, shape: { open: string; close: string; inner: string }, pkg = 'toolgate.signs'): string {
  const d = join(dir, name);
  mkdirSync(d);
  writeFileSync(join(d, 'a-fine.rego'), 'package fine\n\nok := true\n');
  writeFileSync(join(d, 'deep.rego'), `package ${pkg}\n\n# nested\nsign := ${shape.open.repeat(DEPTH)}${shape.inner}${shape.close.repeat(DEPTH)}\n`);
  return d;
}

const COMMANDS: Record<string, (d: string) => string[]> = {
  'rego eval -d': (d) => ['rego', 'eval', '-d', d, 'data.toolgate.signs.sign'],
  'rego test': (d) => ['rego', 'test', d],
  'sign --policy': (d) => ['sign', '--graph', join(BASE, 'declared.json'), '--policy', join(d, 'deep.rego'), '--data', join(BASE, 'window.json'), '--out', join(out, 'signed.json')],
  'compile --signs': (d) => ['compile', '--example', 'quickstart', '--signs', join(d, 'deep.rego'), '--out', join(out, 'set')],
};

describe('Rego nested past the parser\'s stack', () => {
  for (const [command, argv] of Object.entries(COMMANDS)) {
    it.each(Object.entries(SHAPES))(`${command}, %s: REGO_PARSE_ERROR at the module's file and the line:col where it got too deep`, async (shape, s) => {
      const d = deepFolder(`${command.replace(/\W+/g, '-')}-${shape}`, s);
      const file = join(d, 'deep.rego');
      const r = await runCli(argv(d), { cwd: dir });
      const first = r.stderr.split('\n')[0]!;
      const m = new RegExp(`^toolgate: error REGO_PARSE_ERROR at ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:4:(\\d+): .*source nested too deeply$`).exec(first);
      expect(m, r.stderr.slice(0, 400)).not.toBeNull();
      // The column is inside the nesting: at one of its opening tokens.
      const col = Number(m![1]);
      const line = readFileSync(file, 'utf8').split('\n')[3]!;
      expect(col).toBeGreaterThan('sign := '.length);
      expect(col).toBeLessThan('sign := '.length + s.open.length * DEPTH);
      expect(s.open).toContain(line[col - 1]);
      expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(readdirSync(out)).toEqual([]);
    }, 60_000);
  }
});

describe('brackets re-read at every level', () => {
  const shapes: Record<string, (n: number) => string> = {
    'an operator after each array': (n) => `${'['.repeat(n)}1${'] + [1]'.repeat(n)}`,
    'a failed comprehension in each array': (n) => `${'[1 | '.repeat(n)}1${', 1]'.repeat(n)}`,
    'a failed comprehension in each set': (n) => `${'{1 | '.repeat(n)}1${', 1}'.repeat(n)}`,
    'an operator after each set': (n) => `${'{'.repeat(n)}1${'} | {1}'.repeat(n)}`,
  };
  it.each(Object.entries(shapes))('%s, 60 levels: parsed in well under a second, as OPA does', async (_name, shape) => {
    const d = mkdtempSync(join(dir, 'rebrackets-'));
    writeFileSync(join(d, 'p.rego'), `package p\n\nx := ${shape(60)}\n`);
    const started = Date.now();
    const r = await runCli(['rego', 'eval', '-d', d, 'data.p.x'], { cwd: dir });
    expect(Date.now() - started).toBeLessThan(5_000);
    // The engine's answer for these (a type error, or the value) is OPA's; that it answers is what is tested here.
    expect(r.stderr).not.toMatch(/internal error|nested too deeply/);
    expect([0, 1]).toContain(r.code);
  }, 30_000);
});
