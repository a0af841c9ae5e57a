import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import { canonicalTextDigestHex } from '../../../src/canonical/json.ts';
import { parseText } from '../../../src/parse/document.ts';
import { manifestDigest } from '../../../src/compile/incremental/manifest-digest.ts';
import type { ManifestPiece } from '../../../src/compile/incremental/compile-state.ts';

const OPTIONS = { allowFloats: true } as const;

// Enough grants for the sequence to be cut into several runs (src/parse/yaml-pieces.ts cuts at 64 items or more).
const name = fc.stringMatching(/^[a-z][a-z0-9é-]{0,6}$/);
const grant = fc.record({ agent: name, tool: fc.tuple(name, name).map(([s, t]) => `${s}::${t}`), provenance: fc.option(fc.record({ source: name, confidence: fc.constantFrom('high', 'low') }), { nil: undefined }) }, { requiredKeys: ['agent', 'tool'] });
const manifest = fc.record({
  agents: fc.array(name, { minLength: 1, maxLength: 5 }),
  policies: fc.array(fc.record({ id: name, effect: fc.constantFrom('DENY', 'ALLOW'), weight: fc.double({ min: -10, max: 10, noNaN: true }) }), { maxLength: 3 }),
  grants: fc.array(grant, { minLength: 1, maxLength: 400 }),
  governed_by: fc.dictionary(name, fc.array(name, { minLength: 1, maxLength: 2 }), { maxKeys: 3 }),
});
const edit = fc.tuple(fc.nat(), grant);

function digestOfText(text: string, previous: readonly ManifestPiece[]): { whole: string; pieced: ReturnType<typeof manifestDigest> } {
  const cache = new Map(previous.map((p) => [p.digest, p.json]));
  const doc = parseText('governance.yaml', text, 'yaml', { pieces: cache });
  return { whole: canonicalTextDigestHex(doc.value, OPTIONS), pieced: manifestDigest({ raw: doc.value, ...(doc.pieces ? { pieces: doc.pieces } : {}) }, previous) };
}

describe('manifestDigest', () => {
  it('is the digest of the whole canonical text, from fresh pieces and from the pieces of the previous text', () => {
    fc.assert(
      fc.property(manifest, fc.array(edit, { maxLength: 3 }), (m, edits) => {
        const first = digestOfText(dump(m), []);
        expect(first.pieced.digest).toBe(first.whole);
        expect(first.pieced.pieces.length).toBeGreaterThan(0);
        let previous = first.pieced.pieces;
        for (const [at, g] of edits) {
          m.grants.splice(at % (m.grants.length + 1), at % 2, g);
          const next = digestOfText(dump(m), previous);
          expect(next.pieced.digest).toBe(next.whole);
          previous = next.pieced.pieces;
        }
      }),
      { numRuns: 60 },
    );
  });

  it('assembles a sequence cut into many runs, reusing the runs an edit did not touch', () => {
    // One flow mapping per line, as the bench's estate: every item's first line differs, so runs are cut.
    const line = (i: number, tool = `s${i % 7}::t${i}`) => `  - {agent: ${i % 2 ? 'a' : 'b'}, tool: "${tool}", provenance: {source: operator_asserted, evidence: "T-${i}"}}`;
    const text = (lines: string[]) => `agents:\n  - a\n  - b\ngrants:\n${lines.join('\n')}\n`;
    const lines = Array.from({ length: 6000 }, (_, i) => line(i));
    const first = digestOfText(text(lines), []);
    expect(first.pieced.digest).toBe(first.whole);
    expect(first.pieced.pieces.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(fc.nat(5999), fc.boolean(), (at, insert) => {
        const edited = [...lines];
        edited.splice(at, insert ? 0 : 1, line(at, 'x::changed'));
        const next = digestOfText(text(edited), first.pieced.pieces);
        expect(next.pieced.digest).toBe(next.whole);
      }),
      { numRuns: 8 },
    );
  });

  it('takes the previous digest when the pieces are the previous ones, in order, and only then', () => {
    const text = dump({ agents: ['a', 'b'], grants: [{ agent: 'a', tool: 's::t' }], policies: [{ id: 'p', effect: 'DENY' }] });
    const first = digestOfText(text, []);
    const kept = 'f'.repeat(64);
    const same = parseText('governance.yaml', text, 'yaml', { pieces: new Map(first.pieced.pieces.map((p) => [p.digest, p.json])) });
    expect(manifestDigest({ raw: same.value, pieces: same.pieces! }, first.pieced.pieces, kept).digest).toBe(kept);
    const edited = parseText('governance.yaml', text.replace('s::t', 's::u'), 'yaml', { pieces: new Map(first.pieced.pieces.map((p) => [p.digest, p.json])) });
    expect(manifestDigest({ raw: edited.value, pieces: edited.pieces! }, first.pieced.pieces, kept).digest).toBe(canonicalTextDigestHex(edited.value, OPTIONS));
    const reordered = dump({ grants: [{ agent: 'a', tool: 's::t' }], agents: ['a', 'b'], policies: [{ id: 'p', effect: 'DENY' }] });
    const moved = parseText('governance.yaml', reordered, 'yaml', { pieces: new Map(first.pieced.pieces.map((p) => [p.digest, p.json])) });
    expect(manifestDigest({ raw: moved.value, pieces: moved.pieces! }, first.pieced.pieces, kept).digest).not.toBe(kept);
  });

  it('hashes the whole value when the manifest was not read in pieces', () => {
    const raw = { agents: ['a'], grants: [{ agent: 'a', tool: 's::t' }] };
    expect(manifestDigest({ raw })).toEqual({ digest: canonicalTextDigestHex(raw, OPTIONS), pieces: [] });
  });
});
