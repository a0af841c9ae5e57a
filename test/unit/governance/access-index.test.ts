/** An estate built from the previous one (a watch's next save) has the data access index, resources and notices of one built afresh. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { buildEstate, type Estate } from '../../../src/governance/estate.ts';
import type { PieceCache } from '../../../src/parse/yaml-pieces.ts';

/** 3 servers of 10 tools; `renamed` renames one tool (references to it drift). */
const catalogOf = (description = 'x', renamed = -1) =>
  parseCatalog(
    'catalog.json',
    JSON.stringify({ servers: Array.from({ length: 3 }, (_, s) => ({ name: `srv-${s}`, tools: Array.from({ length: 10 }, (_, t) => ({ name: s * 10 + t === renamed ? `tool_${t}_v2` : `tool_${t}`, description })), resources: [{ uri: `file:///srv-${s}/` }] })) }),
  );
const catalogs = [catalogOf(), catalogOf('described again'), catalogOf('x', 7)];

const exposedRow = fc.tuple(fc.nat(2), fc.nat(9), fc.nat(4), fc.constantFrom('READS', 'WRITES')).map(([s, t, r, mode]) => `  - {tool: "srv-${s}::tool_${t}", resource: "file:///data/${r}", mode: ${mode}}\n`);
const row = fc.oneof({ weight: 10, arbitrary: exposedRow }, fc.constant('  - {tool: "gone::tool", resource: "file:///data/0", mode: READS}\n'));
const grantLine = fc.tuple(fc.nat(2), fc.nat(2), fc.nat(9)).map(([a, s, t]) => `  - {agent: agent-${a}, tool: "srv-${s}::tool_${t}"}\n`);

const text = (grants: readonly string[], rows: readonly string[]) =>
  `agents:\n  - agent-0\n  - agent-1\n  - agent-2\ngrants:\n${[...new Set(grants)].join('') || '  []\n'}data_access:\n${rows.join('') || '  []\n'}`;

type Outcome = { estate: Estate } | { error: string };
function build(t: string, cache: PieceCache, previous: Estate | undefined, c: ReturnType<typeof catalogOf>): Outcome {
  try {
    return { estate: buildEstate(parseManifest('m.yaml', t, { pieces: cache }), c, previous ? { previous } : {}) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code} ${(e as Error).message}` };
  }
}
const view = (o: Outcome): unknown =>
  'error' in o
    ? o.error
    : {
        byTool: [...o.estate.accessByTool].map(([k, list]) => [k, list.map((a) => ({ ...a }))]),
        byResource: [...o.estate.accessByResource].map(([k, list]) => [k, list.map((a) => ({ ...a }))]),
        resources: [...o.estate.resources],
        notices: o.estate.notices,
        tools: [...o.estate.tools.values()].map((t) => [t.key, t.exposed, t.contract]),
      };
const cacheOf = (o: Outcome): PieceCache => ('estate' in o ? new Map((o.estate.manifest.pieces ?? []).flatMap((p) => (p.json !== undefined ? [[p.digest, p.json] as const] : []))) : new Map());

describe('the data access index from the previous estate', () => {
  it('equals the one built afresh after any edits (grants or rows added, removed or replaced; drift; a catalog re-read or with a tool renamed)', () => {
    fc.assert(
      fc.property(
        fc.array(grantLine, { minLength: 1, maxLength: 30 }),
        fc.uniqueArray(exposedRow, { minLength: 1, maxLength: 60 }),
        fc.array(fc.tuple(fc.boolean(), fc.nat(1000), fc.option(fc.oneof(row, grantLine), { nil: undefined }), fc.nat(catalogs.length - 1), fc.boolean()), { minLength: 1, maxLength: 6 }),
        (grants, rows, edits) => {
          let [g, r] = [[...grants], [...rows]];
          let cache: PieceCache = new Map();
          let previous: Estate | undefined;
          for (const [onRows, at, line, c, replace] of [[false, 0, undefined, 0, false] as const, ...edits]) {
            const list = onRows ? r : g;
            if (line !== undefined && line.includes('resource') === onRows) list.splice(at % (list.length + 1), replace ? 1 : 0, line);
            else if (line === undefined && list.length > 1) list.splice(at % list.length, 1);
            [g, r] = onRows ? [g, list] : [list, r];
            const t = text(g, r);
            const afresh = build(t, cache, undefined, catalogs[c]!);
            const previousView = previous && view({ estate: previous });
            const again = build(t, cache, previous, catalogs[c]!);
            expect(view(again)).toEqual(view(afresh));
            // What the next estate shares with the previous one is left as it was.
            if (previous) expect(view({ estate: previous })).toEqual(previousView);
            if ('estate' in again) {
              previous = again.estate;
              cache = new Map([...cache, ...cacheOf(again)]);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('is the previous one itself after a save that changed only a grant', () => {
    const rows = Array.from({ length: 30 }, (_, i) => `  - {tool: "srv-${i % 3}::tool_${i % 10}", resource: "file:///data/${i % 5}", mode: READS}\n`);
    const first = build(text(['  - {agent: agent-0, tool: "srv-0::tool_0"}\n'], rows), new Map(), undefined, catalogs[0]!);
    if (!('estate' in first)) throw new Error(first.error);
    const next = build(text(['  - {agent: agent-0, tool: "srv-0::tool_1"}\n'], rows), cacheOf(first), first.estate, catalogs[1]!);
    if (!('estate' in next)) throw new Error(next.error);
    expect(next.estate.manifest.data_access[0]).toBe(first.estate.manifest.data_access[0]);
    expect(next.estate.accessByTool).toBe(first.estate.accessByTool);
    // A renamed tool one row names: built afresh, the row's reference now drift.
    const renamed = build(text(['  - {agent: agent-0, tool: "srv-0::tool_1"}\n'], rows), cacheOf(first), first.estate, catalogs[2]!);
    if (!('estate' in renamed)) throw new Error(renamed.error);
    expect(renamed.estate.accessByTool).not.toBe(first.estate.accessByTool);
    expect(renamed.estate.notices.some((n) => n.message.includes('srv-0::tool_7'))).toBe(true);
  });

  it('shares the tool map of the same catalog until a reference drifts, which goes to a copy', () => {
    const first = build(text(['  - {agent: agent-0, tool: "srv-0::tool_0"}\n'], []), new Map(), undefined, catalogs[0]!);
    if (!('estate' in first)) throw new Error(first.error);
    const same = build(text(['  - {agent: agent-0, tool: "srv-0::tool_1"}\n'], []), cacheOf(first), first.estate, catalogs[0]!);
    if (!('estate' in same)) throw new Error(same.error);
    expect(same.estate.tools).toBe(first.estate.tools);
    expect(same.estate.exposedByName).toBe(first.estate.exposedByName);
    const drifted = build(text(['  - {agent: agent-0, tool: "gone::tool"}\n'], []), cacheOf(same), same.estate, catalogs[0]!);
    if (!('estate' in drifted)) throw new Error(drifted.error);
    expect(drifted.estate.tools.get('gone::tool')?.exposed).toBe(false);
    expect(first.estate.tools.has('gone::tool')).toBe(false);
    // The map holding a drift node is never shared on: the next estate without it has none.
    const back = build(text(['  - {agent: agent-0, tool: "srv-0::tool_1"}\n'], []), cacheOf(drifted), drifted.estate, catalogs[0]!);
    if (!('estate' in back)) throw new Error(back.error);
    expect(back.estate.tools.has('gone::tool')).toBe(false);
    // Another catalog object, even with equal text, is indexed anew.
    const reread = build(text(['  - {agent: agent-0, tool: "srv-0::tool_1"}\n'], []), cacheOf(first), first.estate, catalogOf());
    expect('estate' in reread && reread.estate.tools).not.toBe(first.estate.tools);
  });
});
