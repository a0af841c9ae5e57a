/** A manifest read in pieces is validated without the runs a valid document held before, to the same verdict and faults as a whole one. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseText, type ParsedDocument } from '../../../src/parse/document.ts';
import { ITEMS_ONLY_SEQUENCES, validateAgainstSchema } from '../../../src/parse/schema.ts';
import type { PieceCache } from '../../../src/parse/yaml-pieces.ts';

const schemas = join(import.meta.dirname, '../../../schemas');

function verdict(doc: ParsedDocument): string {
  try {
    validateAgainstSchema(doc, 'governance.schema.json', 'MANIFEST_INVALID', 'governance manifest');
    return 'valid';
  } catch (e) {
    const err = e as Error & { details?: string[]; at?: unknown };
    return `${err.message} ${JSON.stringify(err.at)} ${JSON.stringify(err.details)}`;
  }
}

const cacheOf = (doc: ParsedDocument): PieceCache => new Map((doc.pieces ?? []).flatMap((p) => (p.json !== undefined ? [[p.digest, p.json] as const] : [])));

const good = (i: number) => `  - {agent: agent-${i % 7}, tool: "srv-${i % 5}::tool_${i}"}\n`;
/** Items of which some break the schema: an unknown key, a missing tool, a number for a name. */
const item = fc.oneof({ weight: 3, arbitrary: fc.nat(5000).map(good) }, fc.constantFrom('  - {agent: agent-1, tool: "s::t", colour: red}\n', '  - {agent: agent-1}\n', '  - {agent: 12, tool: "s::t"}\n'));

describe('validating a manifest read in pieces', () => {
  it('lists, for each schema, only sequences that constrain nothing but their items', () => {
    for (const [name, keys] of Object.entries(ITEMS_ONLY_SEQUENCES)) {
      const schema = JSON.parse(readFileSync(join(schemas, name), 'utf8')) as { properties: Record<string, Record<string, unknown>> } & Record<string, unknown>;
      expect(Object.keys(schema).filter((k) => !['$schema', '$id', 'title', 'description', 'type', 'properties', 'additionalProperties', 'required', '$defs'].includes(k))).toEqual([]);
      for (const k of keys) {
        expect(schema.properties[k]!.type, `${name} ${k}`).toBe('array');
        expect(Object.keys(schema.properties[k]!).filter((x) => !['type', 'items', 'description', 'title', '$comment'].includes(x)), `${name} ${k}`).toEqual([]);
      }
    }
  });

  it('gives the verdict and the faults of a whole document, after any edits, however the runs moved', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(5000).map(good), { minLength: 1, maxLength: 400 }), fc.array(fc.tuple(fc.nat(10_000), item, fc.boolean()), { maxLength: 4 }), (items, edits) => {
        let lines = [...items];
        let cache: PieceCache = new Map();
        for (const e of [undefined, ...edits]) {
          if (e !== undefined) lines.splice(e[0] % (lines.length + 1), e[2] ? 1 : 0, e[1]);
          const text = `agents:\n${Array.from({ length: 7 }, (_, i) => `  - agent-${i}\n`).join('')}grants:\n${lines.join('') || '  []\n'}data_access:\n${lines.slice(0, 50).join('').replace(/agent: [^,]+, /g, '').replace(/}/g, ', resource: "file:///x", mode: READS}')}`;
          const doc = parseText('m.yaml', text, 'yaml', { pieces: cache });
          expect(verdict(doc)).toBe(verdict(parseText('m.yaml', text, 'yaml')));
          cache = new Map([...cache, ...cacheOf(doc)]);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('reports a fault a save brings into one run at its own place, as a whole parse does', () => {
    const items = Array.from({ length: 3000 }, (_, i) => good(i));
    const text = (lines: string[]) => `agents:\n${Array.from({ length: 7 }, (_, i) => `  - agent-${i}\n`).join('')}grants:\n${lines.join('')}`;
    const first = parseText('m.yaml', text(items), 'yaml', { pieces: new Map() });
    expect(first.pieces!.filter((p) => p.key === 'grants').length).toBeGreaterThan(4);
    expect(verdict(first)).toBe('valid');
    const broken = [...items];
    broken[2500] = '  - {agent: agent-1, tool: "s::t", colour: red}\n';
    const next = parseText('m.yaml', text(broken), 'yaml', { pieces: cacheOf(first) });
    expect(next.plan!.pieces.filter((p) => p.json === undefined)).toHaveLength(1);
    expect(verdict(next)).toMatch(/unknown key "colour"/);
    expect(verdict(next)).toBe(verdict(parseText('m.yaml', text(broken), 'yaml')));
  });
});
