/** An estate indexed from the previous one (a watch's next save) has the grant indexes, notices and faults of one indexed afresh. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { buildEstate, type Estate } from '../../../src/governance/estate.ts';
import type { PieceCache } from '../../../src/parse/yaml-pieces.ts';

/** A catalog of 5 servers of 40 tools; `description` changes no name, `renamed` renames one tool. */
const catalogOf = (description = 'x', renamed = -1) =>
  parseCatalog(
    'catalog.json',
    JSON.stringify({ servers: Array.from({ length: 5 }, (_, s) => ({ name: `srv-${s}`, tools: Array.from({ length: 40 }, (_, t) => ({ name: s * 40 + t === renamed ? `tool_${t}_v2` : `tool_${t}`, description, inputSchema: { type: 'object' } })) })) }),
  );
const catalog = catalogOf();
/** The catalog a save reads: the same object, another with the same tool names, or one with a tool renamed. */
const catalogs = [catalog, catalogOf('described again'), catalogOf('x', 37)];

const AGENTS = 9;
/** A grant line: mostly a catalog tool, sometimes a bare name (which five servers expose: ambiguous) or a tool no server exposes. */
// (Who granted it and its provenance vary too, so an edit may change only those.)
const exposedRow = fc.tuple(fc.nat(AGENTS - 1), fc.nat(4), fc.nat(39), fc.constantFrom('', ', granted_by: ops', ', granted_by: sec'), fc.constantFrom('', ', provenance: {source: operator_asserted, confidence: high}', ', provenance: {source: operator_asserted, confidence: low}'));
const exposedLine = ([a, s, t, by, prov]: [number, number, number, string, string]) => `  - {agent: agent-${a}, tool: "srv-${s}::tool_${t}"${by}${prov}}\n`;
const exposed = exposedRow.map(exposedLine);
/** Grants of exposed tools, no agent granted a tool twice. */
const exposedLines = (minLength: number, maxLength: number) => fc.uniqueArray(exposedRow, { minLength, maxLength, selector: ([a, s, t]) => `${a} ${s} ${t}` }).map((rows) => rows.map(exposedLine));
const grant = fc.oneof(
  { weight: 12, arbitrary: exposed },
  fc.tuple(fc.nat(AGENTS - 1), fc.nat(39)).map(([a, t]) => `  - {agent: agent-${a}, tool: "tool_${t}", provenance: {source: declared}}\n`),
  fc.nat(AGENTS - 1).map((a) => `  - {agent: agent-${a}, tool: "gone::tool"}\n`),
);

function text(lines: readonly string[], agents = AGENTS): string {
  return `agents:\n${Array.from({ length: agents }, (_, i) => `  - agent-${i}\n`).join('')}grants:\n${lines.join('') || '  []\n'}`;
}

type Outcome = { estate: Estate } | { error: string };

function build(t: string, cache: PieceCache, previous?: Estate, c = catalog): Outcome {
  try {
    return { estate: buildEstate(parseManifest('m.yaml', t, { pieces: cache }), c, previous ? { previous } : {}) };
  } catch (e) {
    return { error: `${(e as { code?: string }).code} ${(e as Error).message}` };
  }
}

/** What the compile and the audits read of the grant indexes, in order (but for byTool's keys, whose order means nothing). */
function view(o: Outcome): unknown {
  if ('error' in o) return o.error;
  const e = o.estate;
  return {
    byAgent: [...e.grantsByAgent].map(([a, m]) => [a, [...m].map(([k, g]) => [k, { ...g, at: e.grantIndex(g) }])]),
    byTool: [...e.grantsByTool].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, list]) => [k, list.map((g) => ({ ...g, at: e.grantIndex(g) }))]),
    notices: e.notices,
    tools: [...e.tools.keys()],
  };
}

const cacheOf = (o: Outcome): PieceCache => ('estate' in o ? new Map((o.estate.manifest.pieces ?? []).flatMap((p) => (p.json !== undefined ? [[p.digest, p.json] as const] : []))) : new Map());

describe('grant indexes from the previous estate', () => {
  it('equal those indexed afresh after any edits (changed, added, removed, moved grants; drift; duplicates; a catalog re-read or with a tool renamed)', () => {
    fc.assert(
      fc.property(
        exposedLines(200, 900),
        fc.array(fc.tuple(fc.nat(10_000), fc.option(grant, { nil: undefined }), fc.boolean(), fc.nat(catalogs.length - 1), fc.constantFrom('', ', granted_by: ops', ', provenance: {source: operator_asserted, confidence: low}')), { minLength: 1, maxLength: 6 }),
        (lines, edits) => {
          let now = [...lines];
          let cache: PieceCache = new Map();
          let previous: Estate | undefined;
          for (const [at, line, replace, c, only] of [[0, undefined, false, 0, ''] as const, ...edits]) {
            // An edit that changes only who granted a grant, or its provenance, in place.
            if (only !== '' && now.length > 0) {
              const i = at % now.length;
              now[i] = `${now[i]!.replace(/, (granted_by|provenance).*\}\n$/, '}\n').slice(0, -2)}${only}}\n`;
            } else if (line !== undefined || replace) now.splice(at % (now.length + 1), replace ? 1 : 0, ...(line === undefined ? [] : [line]));
            const t = text(now);
            const afresh = build(t, cache, undefined, catalogs[c]);
            const again = build(t, cache, previous, catalogs[c]);
            expect(view(again)).toEqual(view(afresh));
            if ('estate' in again) {
              previous = again.estate;
              cache = new Map([...cache, ...cacheOf(again)]);
            }
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  // 30 agents, 150 grants each, listed agent by agent, no tool twice for one agent; long enough that one run is a small part of the text.
  const tool = (k: number) => `srv-${k % 5}::tool_${Math.floor(k / 5)}`;
  const unique = Array.from({ length: 4500 }, (_, i) => `  - {agent: agent-${Math.floor(i / 150)}, tool: "${tool((i * 7) % 200)}"}\n`);
  const changedAgents = (next: Estate, first: Estate) => [...next.grantsByAgent].filter(([a, m]) => m !== first.grantsByAgent.get(a)).map(([a]) => a);

  it('re-indexes only the agents a changed run names', () => {
    const first = build(text(unique, 30), new Map());
    if (!('estate' in first)) throw new Error(first.error);
    // Grant 2250 moved to a tool its agent does not hold yet.
    const agent = /agent-\d+/.exec(unique[2250]!)![0];
    const held = new Set(unique.filter((l) => l.includes(`${agent},`)).map((l) => /"([^"]+)"/.exec(l)![1]));
    const target = Array.from({ length: 200 }, (_, k) => tool(k)).find((k) => !held.has(k))!;
    const edited = unique.map((l, i) => (i === 2250 ? `  - {agent: ${agent}, tool: "${target}"}\n` : l));
    const next = build(text(edited, 30), cacheOf(first), first.estate);
    if (!('estate' in next)) throw new Error(next.error);
    expect(view(next)).toEqual(view(build(text(edited, 30), new Map())));
    const changed = changedAgents(next.estate, first.estate);
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThanOrEqual(2);
  });

  it('keeps the runs below a grant written at the top, with their places moved down by one', () => {
    const first = build(text(unique, 31), new Map());
    if (!('estate' in first)) throw new Error(first.error);
    const edited = [`  - {agent: agent-30, tool: "${tool(0)}"}\n`, ...unique];
    const next = build(text(edited, 31), cacheOf(first), first.estate);
    if (!('estate' in next)) throw new Error(next.error);
    expect(view(next)).toEqual(view(build(text(edited, 31), new Map())));
    expect(changedAgents(next.estate, first.estate).length).toBeLessThanOrEqual(2);
    const last = next.estate.grantsByAgent.get('agent-29')!.get(tool((4499 * 7) % 200))!;
    expect(next.estate.grantIndex(last)).toBe(4500);
  });

  it('names where each duplicated tool was first granted, and stays quick when thousands are duplicated', () => {
    // Each agent is granted tool_k twice: once by its bare name (unique to srv-0 here) and once qualified.
    const single = parseCatalog('catalog.json', JSON.stringify({ servers: [{ name: 'srv-0', tools: Array.from({ length: 4000 }, (_, t) => ({ name: `tool_${t}`, inputSchema: { type: 'object' } })) }] }));
    const lines = Array.from({ length: 4000 }, (_, t) => `  - {agent: agent-0, tool: "tool_${t}"}\n  - {agent: agent-0, tool: "srv-0::tool_${t}"}\n`);
    const manifest = parseManifest('m.yaml', text(lines, 1));
    const t0 = performance.now();
    const details = (() => {
      try {
        buildEstate(manifest, single);
      } catch (e) {
        return (e as { details: string[] }).details;
      }
      throw new Error('expected the duplicates to be refused');
    })();
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(details.length).toBe(4000);
    expect(details[0]).toContain('duplicates grants[0] (same tool srv-0::tool_0)');
    expect(details[3999]).toContain('duplicates grants[7998] (same tool srv-0::tool_3999)');
  });
});
