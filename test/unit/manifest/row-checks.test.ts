/** A manifest read in pieces from its previous read refuses, and accepts, exactly what a fresh read does. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseManifest } from '../../../src/manifest/parse.ts';
import type { Manifest } from '../../../src/manifest/types.ts';
import type { PieceCache } from '../../../src/parse/yaml-pieces.ts';

// Long enough to be read in many runs; an edit's row repeats a row of these one time in seven (a grant) or two (a data access row).
const AGENTS = 6;
const grantLine = (a: number, t: number) => `  - {agent: agent-${a}, tool: "srv::tool_${t}"}\n`;
const accessLine = (t: number, mode: string) => `  - {tool: "srv::tool_${t}", resource: "db://r/${t % 7}", mode: ${mode}}\n`;
const GRANTS = Array.from({ length: 1200 }, (_, i) => grantLine(i % AGENTS, i));
const ROWS = Array.from({ length: 400 }, (_, i) => accessLine(i, 'READS'));
const grant = fc.tuple(fc.nat(AGENTS), fc.nat(1199)).map(([a, t]) => grantLine(a, t));
const access = fc.tuple(fc.nat(399), fc.constantFrom('READS', 'WRITES')).map(([t, m]) => accessLine(t, m));

function text(agents: number, grants: readonly string[], rows: readonly string[]): string {
  return `agents:\n${Array.from({ length: agents }, (_, i) => `  - agent-${i}\n`).join('')}grants:\n${grants.join('') || '  []\n'}data_access:\n${rows.join('') || '  []\n'}`;
}

type Outcome = { manifest: Manifest } | { error: string };

function read(t: string, cache: PieceCache, previous?: Manifest): Outcome {
  try {
    return { manifest: parseManifest('m.yaml', t, { pieces: cache, ...(previous?.piecePlan ? { previousPlan: previous.piecePlan } : {}) }) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code} ${(e as Error).message} ${JSON.stringify((e as { details?: unknown }).details)}` };
  }
}

const view = (o: Outcome) => ('error' in o ? o.error : { grants: o.manifest.grants, data_access: o.manifest.data_access });
const cacheOf = (o: Outcome): PieceCache => ('manifest' in o ? new Map((o.manifest.pieces ?? []).flatMap((p) => (p.json !== undefined ? [[p.digest, p.json] as const] : []))) : new Map());

describe('row checks from the previous read', () => {
  it('give the faults and values of a fresh read after any edits (rows added, removed, repeated; an agent removed)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), fc.nat(10_000), fc.option(fc.oneof(grant, access), { nil: undefined }), fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 8 }),
        (edits) => {
          const g = [...GRANTS];
          const d = [...ROWS];
          let agents = AGENTS + 1;
          let cache: PieceCache = new Map();
          let previous: Manifest | undefined;
          for (const [inGrants, at, line, replace, dropAgent] of [[true, 0, undefined, false, false] as const, ...edits]) {
            if (dropAgent) agents = agents === AGENTS + 1 ? AGENTS : AGENTS + 1;
            const list = inGrants ? g : d;
            // A grant line into the data access rows or back reads as a schema fault, which is a fault to compare too.
            if (line !== undefined || replace) list.splice(at % (list.length + 1), replace ? 1 : 0, ...(line === undefined ? [] : [line]));
            const t = text(agents, g, d);
            const again = read(t, cache, previous);
            expect(view(again)).toEqual(view(read(t, new Map())));
            if ('manifest' in again) {
              previous = again.manifest;
              cache = new Map([...cache, ...cacheOf(again)]);
            }
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it('refuse a grant repeated across runs, and one naming an agent no longer declared, at the place a fresh read gives', () => {
    const grants = GRANTS;
    const first = read(text(6, grants, []), new Map());
    if (!('manifest' in first)) throw new Error(first.error);
    const repeated = text(6, [...grants.slice(0, 1000), grants[10]!, ...grants.slice(1000)], []);
    const again = read(repeated, cacheOf(first), first.manifest);
    expect(again).toHaveProperty('error');
    expect(view(again)).toEqual(view(read(repeated, new Map())));
    const unknown = text(6, [...grants, `  - {agent: agent-9, tool: "srv::tool_1"}\n`], []);
    expect(view(read(unknown, cacheOf(first), first.manifest))).toEqual(view(read(unknown, new Map())));
    expect(read(unknown, new Map())).toHaveProperty('error');
  });
});
