/**
 * The id table holds each id exactly as canonical JSON writes it (quoted, escaped, UTF-8), so the
 * diff can copy an id's bytes instead of quoting its string; the union of two tables must be the
 * table of the union, whichever side an id comes from.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { quoteString } from '../../../src/canonical/json.ts';
import { mergeIdTables, quoteIdTable, SLACK, type IdTable } from '../../../src/connectome/id-table.ts';
import { isWellFormedString } from '../../../src/connectome/strings.ts';

const utf8 = new TextEncoder();
const id = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => (isWellFormedString(s) ? s : 'x')),
  fc.constantFrom('', '"', '\\', '\u0000', '\u001f', '\u007f', '\u2028', 'é', '\u{1F600}', 'srv/tool/t1'),
);

function entries(t: IdTable, count: number): string[] {
  const out: string[] = [];
  for (let k = 0; k < count; k++) out.push(Buffer.from(t.bytes.subarray(t.off[k], t.off[k + 1])).toString('hex'));
  return out;
}
const expected = (ids: readonly string[]): string[] => ids.map((s) => Buffer.from(utf8.encode(quoteString(s))).toString('hex'));

describe('quoteIdTable', () => {
  it('holds each id as its canonical JSON bytes, with the longest length and slack past the end', () => {
    fc.assert(
      fc.property(fc.array(id, { maxLength: 60 }), (ids) => {
        const t = quoteIdTable(ids);
        expect(entries(t, ids.length)).toEqual(expected(ids));
        expect(t.off[0]).toBe(0);
        expect(t.longest).toBe(Math.max(0, ...ids.map((s) => utf8.encode(quoteString(s)).length)));
        expect(t.bytes.length - t.off[ids.length]!).toBeGreaterThanOrEqual(SLACK);
      }),
    );
  });

  it('grows past its sampled size when the ids it did not sample are longer', () => {
    // One id in 256 is sampled: a short sample and long unsampled ids that escape to six bytes a unit.
    const ids = Array.from({ length: 2048 }, (_, k) => (k % 8 === 0 ? `a${k}` : `\u0001`.repeat(200) + k));
    const t = quoteIdTable(ids);
    expect(entries(t, ids.length)).toEqual(expected(ids));
  });
});

describe('mergeIdTables', () => {
  it('is the table of the union, for any split of the ids between two sides', () => {
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 40 }), fc.array(fc.constantFrom(0, 1, 2), { minLength: 40, maxLength: 40 }), (raw, sides) => {
        const union = [...raw].sort();
        const a: string[] = [];
        const b: string[] = [];
        const aAt: number[] = [];
        const bAt: number[] = [];
        union.forEach((s, u) => {
          const side = sides[u]!; // 0: a only, 1: b only, 2: both
          if (side !== 1) (a.push(s), aAt.push(u));
          if (side !== 0) (b.push(s), bAt.push(u));
        });
        const t = mergeIdTables(quoteIdTable(a), Int32Array.from(aAt), quoteIdTable(b), Int32Array.from(bAt), union.length);
        expect(entries(t, union.length)).toEqual(expected(union));
        expect(t.bytes.length - t.off[union.length]!).toBeGreaterThanOrEqual(SLACK);
      }),
    );
  });
});
