import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import { ConnectomeMemo, InputMemo } from '../../../src/cli/watch-memo.ts';
import type { Catalog } from '../../../src/catalog/types.ts';
import { isDeepFrozen } from '../../../src/compile/incremental/frozen-inputs.ts';

const catalogText = readFileSync(new URL('../../../examples/fleet/catalog.json', import.meta.url), 'utf8');
const parse = (text: string) => parseCatalog('catalog.json', text);
/** The catalog with its first tool's description rewritten (what the connectome does not read). */
const firstTool = parse(catalogText).servers.flatMap((s) => s.tools ?? []).find((t) => typeof t.description === 'string')!;
const described = () => catalogText.replace(JSON.stringify(firstTool.description), JSON.stringify('changed after review'));

describe('InputMemo', () => {
  it('gives the object read before while the text is the same, and parses a changed text', () => {
    const memo = new InputMemo();
    let parses = 0;
    const counted = (text: string) => (parses++, parse(text));
    const a = memo.parsed('c.json', catalogText, counted, { freeze: true });
    expect(memo.parsed('c.json', catalogText, counted, { freeze: true })).toBe(a);
    expect(parses).toBe(1);
    expect(Object.isFrozen(a.servers[0]!.tools![0])).toBe(true);
    const edited = described();
    expect(edited).not.toBe(catalogText);
    expect(memo.parsed('c.json', edited, counted)).not.toBe(a);
    expect(parses).toBe(2);
  });
});

describe('InputMemo with a catalog read from its previous version', () => {
  it('keeps the servers a save left alone as the objects read before, and the whole value deep-frozen', () => {
    const memo = new InputMemo();
    const read = (text: string, previous?: { readonly text: string; readonly value: Catalog }) => parseCatalog('catalog.json', text, previous ? { previousJson: previous } : {});
    const a = memo.parsed('c.json', catalogText, read, { freeze: true });
    const b = memo.parsed('c.json', described(), read, { freeze: true });
    expect(b).toEqual(parse(described()));
    const changed = b.servers.filter((s, i) => s !== a.servers[i]);
    expect(changed.length).toBe(1);
    expect(isDeepFrozen(b)).toBe(true);
    expect(Object.isFrozen(changed[0]!.tools![0])).toBe(true);
  });
});

describe('ConnectomeMemo', () => {
  it('gives the connectome again for a catalog whose descriptions changed, and not for a renamed tool or another host graph', async () => {
    const memo = new ConnectomeMemo();
    const catalog = parse(catalogText);
    const built = await connectomeArtifacts(catalog);
    memo.set(catalog, '', built);
    expect(memo.get(catalog, '')).toBe(built);
    expect(memo.get(catalog, 'host graph')).toBeUndefined();
    const redescribed = parse(described());
    expect(memo.get(redescribed, '')).toBe(built);
    // What it gives again is what building would give.
    expect((await connectomeArtifacts(redescribed)).files.map((f) => Buffer.from(f.bytes).toString('hex'))).toEqual(built.files.map((f) => Buffer.from(f.bytes).toString('hex')));
    const renamed = parse(catalogText.replace(`"name": "${firstTool.name}"`, `"name": "${firstTool.name}_v2"`));
    expect(memo.get(renamed, '')).toBeUndefined();
  });
});
