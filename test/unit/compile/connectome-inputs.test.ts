import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import { connectomeInputsDigest } from '../../../src/compile/incremental/connectome-inputs.ts';
import type { Catalog } from '../../../src/catalog/types.ts';

const word = fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/);
const schema = fc.option(fc.record({ type: fc.constant('object'), properties: fc.dictionary(word, fc.record({ type: fc.constantFrom('string', 'integer') }), { maxKeys: 2 }) }), { nil: undefined });
const tool = fc.record(
  {
    name: word,
    title: fc.option(word, { nil: undefined }),
    description: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
    inputSchema: schema,
    outputSchema: schema,
    annotations: fc.option(fc.record({ title: fc.option(word, { nil: undefined }), readOnlyHint: fc.boolean(), destructiveHint: fc.option(fc.boolean(), { nil: undefined }) }, { requiredKeys: ['readOnlyHint'] }), { nil: undefined }),
  },
  { requiredKeys: ['name'] },
);
const catalog = fc
  .uniqueArray(fc.record({ name: word, tools: fc.uniqueArray(tool, { selector: (t) => t.name, maxLength: 4 }), resources: fc.uniqueArray(fc.record({ uri: word.map((w) => `file:///${w}`), name: fc.option(word, { nil: undefined }) }, { requiredKeys: ['uri'] }), { selector: (r) => r.uri, maxLength: 2 }) }), { selector: (s) => s.name, minLength: 1, maxLength: 3 })
  .map((servers): Catalog => JSON.parse(JSON.stringify({ kind: 'toolgate.catalog', schema_version: 1, servers })) as Catalog);

const files = async (c: Catalog) => (await connectomeArtifacts(c)).files.map((f) => [f.name, Buffer.from(f.bytes).toString('base64')]);

describe('connectomeInputsDigest', () => {
  it('stays the same across edits of what the connectome does not read (descriptions, schemas), and so does the connectome', async () => {
    await fc.assert(
      fc.asyncProperty(catalog, fc.string({ maxLength: 12 }), schema, async (c, description, inputSchema) => {
        const edited = JSON.parse(JSON.stringify(c)) as { servers: { tools: Record<string, unknown>[] }[] };
        for (const s of edited.servers) for (const t of s.tools) Object.assign(t, { description, inputSchema: inputSchema ?? {}, outputSchema: { type: 'object' } });
        const e = edited as unknown as Catalog;
        expect(connectomeInputsDigest(e)).toBe(connectomeInputsDigest(c));
        expect(await files(e)).toEqual(await files(c));
      }),
      { numRuns: 100 },
    );
  });

  it('changes with what the connectome reads: a tool title, an annotation, a resource', () => {
    const c = { kind: 'toolgate.catalog', schema_version: 1, servers: [{ name: 's', tools: [{ name: 't', annotations: { readOnlyHint: true } }], resources: [{ uri: 'file:///a' }] }] } as unknown as Catalog;
    const d = connectomeInputsDigest(c);
    const edit = (f: (x: { servers: { tools: Record<string, unknown>[]; resources: Record<string, unknown>[] }[] }) => void) => {
      const x = JSON.parse(JSON.stringify(c));
      f(x);
      return connectomeInputsDigest(x as Catalog);
    };
    expect(edit((x) => (x.servers[0]!.tools[0]!.title = 'T'))).not.toBe(d);
    expect(edit((x) => (x.servers[0]!.tools[0]!.annotations = { readOnlyHint: false }))).not.toBe(d);
    expect(edit((x) => (x.servers[0]!.resources[0]!.name = 'n'))).not.toBe(d);
  });
});
