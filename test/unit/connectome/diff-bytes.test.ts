/**
 * encodeDiff has a fast path (ids encoded once, labels copied as byte ranges) and the plain path
 * over the record's strings (taken for any record that is not the diff's own). Both must write the
 * same bytes, whatever the ids hold.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { buildGraph, diffConnectomes, encodeDiff, nodeFromIdentity, type ConnectomeEdge } from '../../../src/connectome/index.ts';

const window = { ended_at: '2026-09-14T01:00:00Z', started_at: '2026-09-14T00:00:00Z' };
const signs = ['allow', 'deny', 'hold', 'ungoverned', 'unset'] as const;
const name = fc.oneof(fc.stringMatching(/^[a-z_]{1,6}$/), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.constantFrom('é', 'e\u0301', '"q"', 'a\\b', '\u{1F600}', '\uFF01', 'x\ny'));

const graphs = fc
  .uniqueArray(name, { minLength: 2, maxLength: 8, selector: (s) => s.normalize('NFC') })
  .chain((names) =>
    fc.record({
      names: fc.constant(names),
      declared: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 12 }),
      observed: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 12 }),
    }),
  );

function graph(names: string[], edges: [number, number, (typeof signs)[number]][], provenance: 'declared' | 'observed') {
  const nodes = names.map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }));
  const seen = new Set<string>();
  const out: ConnectomeEdge[] = [];
  for (const [a, b, sign] of edges) {
    const key = `${a}/${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: nodes[a]!.id, to: nodes[b]!.id, kind: 'invoke', provenance, sign });
  }
  return buildGraph({ nodes, edges: out });
}

describe('encodeDiff', () => {
  it('writes the same bytes on its fast path as from the record strings', () => {
    fc.assert(
      fc.property(graphs, ({ names, declared, observed }) => {
        const record = diffConnectomes(graph(names, declared, 'declared'), graph(names, observed, 'observed'), { window });
        const fast = encodeDiff(record);
        const plain = encodeDiff({ ...record, classes: { ...record.classes } });
        expect(Buffer.from(fast).equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});
