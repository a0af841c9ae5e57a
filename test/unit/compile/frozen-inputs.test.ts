/**
 * The compile never writes to its inputs: a watch hands the next compile the very manifest and
 * catalog objects it read before when their files did not change (src/cli/watch-memo.ts), so a
 * write would make that recompile differ from a full one. Here both are deep-frozen, in which
 * state any write throws (modules are strict), and the artifacts must be those of a compile of
 * the same inputs unfrozen, for a full compile and for a recompile from its state.
 */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { buildEstate } from '../../../src/governance/estate.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { recompileEstate } from '../../../src/emit/compile-run.ts';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import { enforcementRego } from '../../../src/cli/enforcement-rego.ts';
import { deepFreeze, frozenItemsText, isDeepFrozen, shareFrozen } from '../../../src/compile/incremental/frozen-inputs.ts';
import fc from 'fast-check';
import { manifestPieceCache } from '../../../src/compile/incremental/compile-state.ts';
import type { CompileResult } from '../../../src/compile/compile.ts';

const filesOf = (r: CompileResult) => Object.fromEntries(r.files.map((f) => [f.name, Buffer.from(f.bytes).toString('base64')]));

describe.each(['quickstart', 'fleet'])('the %s example', (name) => {
  const read = (file: string) => readFileSync(new URL(`../../../examples/${name}/${file}`, import.meta.url), 'utf8');
  const [manifestText, catalogText] = [read('governance.yaml'), read('catalog.json')];

  it('compiles from deep-frozen inputs, in full and again from its state, to the bytes of unfrozen ones', async () => {
    const estate = (freeze: boolean, pieces?: Parameters<typeof manifestPieceCache>[0]) => {
      const m = parseManifest('governance.yaml', manifestText, { pieces: manifestPieceCache(pieces) });
      const c = parseCatalog('catalog.json', catalogText);
      return buildEstate(freeze ? deepFreeze(m) : m, freeze ? deepFreeze(c) : c);
    };
    const plain = estate(false);
    const options = { profile: 'review' as const, createdAt: '2026-01-01T00:00:00Z', regoModules: enforcementRego(), connectome: await connectomeArtifacts(plain.catalog), keepState: true };
    const full = await recompileEstate(undefined, plain, options);
    const frozen = await recompileEstate(undefined, estate(true), options);
    expect(filesOf(frozen.result)).toEqual(filesOf(full.result));
    const previous = { graph_state: full.result.graph_state, digests: full.result.digests };
    const again = await recompileEstate(frozen.state, estate(true, frozen.state), { ...options, previous });
    expect(again.summary.mode).toBe('incremental');
    expect(filesOf(again.result)).toEqual(filesOf((await recompileEstate(undefined, plain, { ...options, previous })).result));
  });

  it('counts as deep-frozen only what deepFreeze froze, not a value frozen on top alone', () => {
    const c = Object.freeze(parseCatalog('catalog.json', catalogText));
    expect(isDeepFrozen(c)).toBe(false);
    const d = deepFreeze(parseCatalog('catalog.json', catalogText));
    expect(isDeepFrozen(d)).toBe(true);
    expect(Object.isFrozen(d.servers[0]!)).toBe(true);
  });

  it('is refused a write to a frozen input (the check above can fail)', () => {
    const c = deepFreeze(parseCatalog('catalog.json', catalogText));
    expect(() => {
      (c.servers[0] as { name: string }).name = 'changed';
    }).toThrow(TypeError);
  });
});

describe('frozenItemsText', () => {
  it('is the JSON of the items, frozen or not, and a frozen item shared into another root keeps its text', () => {
    const item = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    fc.assert(
      fc.property(fc.array(item, { maxLength: 6 }), fc.boolean(), (items, freeze) => {
        const root = { items: JSON.parse(JSON.stringify(items)) as Record<string, unknown>[] };
        if (freeze) deepFreeze(root);
        const memo = new WeakMap<object, string>();
        const text = frozenItemsText(root, root.items, memo, (i) => JSON.stringify(i));
        expect(text).toBe(JSON.stringify(root.items));
        // The same frozen items in a new root (a catalog read from its previous version): the kept texts.
        const next = shareFrozen({ items: [...JSON.parse(JSON.stringify(items)), { added: true }] as Record<string, unknown>[] }, root);
        deepFreeze(next);
        expect(frozenItemsText(next, next.items, memo, (i) => JSON.stringify(i))).toBe(JSON.stringify(next.items));
      }),
    );
  });
});
