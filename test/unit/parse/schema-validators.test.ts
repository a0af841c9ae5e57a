/**
 * The validators the build generates with ajv's standalone code must judge every document exactly as
 * the validators ajv compiles at run time: same verdict, same error objects (which become the located
 * messages users see).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { parseText } from '../../../src/parse/document.ts';
import { runtimeValidatorFor, standaloneValidatorsSource } from '../../../src/parse/schema-validators.ts';

const REPO = join(import.meta.dirname, '../../..');
const SCHEMAS = readdirSync(join(REPO, 'schemas')).filter((n) => n.endsWith('.schema.json')).sort();
const EXAMPLES: { schema: string; value: unknown }[] = [];
for (const ex of ['quickstart', 'fleet']) {
  const dir = join(REPO, 'examples', ex);
  EXAMPLES.push({ schema: 'governance.schema.json', value: parseText('governance.yaml', readFileSync(join(dir, 'governance.yaml'), 'utf8')).value });
  EXAMPLES.push({ schema: 'catalog.schema.json', value: parseText('catalog.json', readFileSync(join(dir, 'catalog.json'), 'utf8')).value });
}

function verdict(v: ValidateFunction, doc: unknown) {
  const valid = v(doc);
  return { valid, errors: v.errors ?? null };
}

/** The document with the value at one path (picked by `pick`) replaced, or a key added where it is an object. */
function mutate(doc: unknown, pick: number, replacement: unknown, key: string): unknown {
  const copy = structuredClone(doc);
  const nodes: { parent: Record<string, unknown> | unknown[]; key: string | number }[] = [];
  const walk = (x: unknown) => {
    if (Array.isArray(x)) x.forEach((v, i) => (nodes.push({ parent: x, key: i }), walk(v)));
    else if (x && typeof x === 'object') for (const [k, v] of Object.entries(x)) nodes.push({ parent: x as Record<string, unknown>, key: k }), walk(v);
  };
  walk(copy);
  if (nodes.length === 0) return replacement;
  const at = nodes[pick % nodes.length]!;
  const target = (at.parent as Record<string | number, unknown>)[at.key];
  if (target && typeof target === 'object' && !Array.isArray(target) && pick % 3 === 0) (target as Record<string, unknown>)[key] = replacement;
  else (at.parent as Record<string | number, unknown>)[at.key] = replacement;
  return copy;
}

describe('standalone schema validators', () => {
  let dir: string;
  let generated: Record<string, ValidateFunction>;
  const runtime = new Map<string, ValidateFunction>();

  beforeAll(() => {
    // Inside the repo, so the generated file's require("ajv/...") resolves as it does from dist/parse/.
    mkdirSync(join(REPO, '.tmp'), { recursive: true });
    dir = mkdtempSync(join(REPO, '.tmp', 'validators-'));
    const file = join(dir, 'schema-validators.cjs');
    writeFileSync(file, standaloneValidatorsSource());
    generated = createRequire(import.meta.url)(file) as Record<string, ValidateFunction>;
    for (const s of SCHEMAS) runtime.set(s, runtimeValidatorFor(s));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('exports one validator per schema file', () => {
    expect(Object.keys(generated).sort()).toEqual(SCHEMAS);
  });

  it('accepts the bundled examples, as the run-time validators do', () => {
    for (const { schema, value } of EXAMPLES) {
      expect(verdict(generated[schema]!, value)).toEqual(verdict(runtime.get(schema)!, value));
      expect(generated[schema]!(value)).toBe(true);
    }
  });

  it('gives the same verdict and errors on mutated examples', () => {
    fc.assert(
      fc.property(fc.nat(EXAMPLES.length - 1), fc.nat(), fc.jsonValue(), fc.string({ maxLength: 12 }), (which, pick, replacement, key) => {
        const { schema, value } = EXAMPLES[which]!;
        const doc = mutate(value, pick, replacement, key);
        expect(verdict(generated[schema]!, doc)).toEqual(verdict(runtime.get(schema)!, doc));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the same verdict and errors on arbitrary JSON, for every schema', () => {
    fc.assert(
      fc.property(fc.constantFrom(...SCHEMAS), fc.jsonValue(), (schema, doc) => {
        expect(verdict(generated[schema]!, doc)).toEqual(verdict(runtime.get(schema)!, doc));
      }),
      { numRuns: 300 },
    );
  });
});
