import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { closestWord, didYouMean, editDistance } from '../../../src/cli/suggest.ts';

const word = fc.string({ unit: fc.constantFrom(...'abcdefgh-'), maxLength: 10 });

describe('editDistance', () => {
  it('matches known distances', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('compiel', 'compile')).toBe(1); // an adjacent swap is one edit
    expect(editDistance('abc', '')).toBe(3);
  });

  it('is zero exactly for equal words, symmetric, and bounded by the lengths', () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const d = editDistance(a, b);
        expect(d === 0).toBe(a === b);
        expect(editDistance(b, a)).toBe(d);
        expect(d).toBeGreaterThanOrEqual(Math.abs(a.length - b.length));
        expect(d).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it('counts one insertion, deletion, substitution or swap as one', () => {
    fc.assert(
      fc.property(word.filter((w) => w.length >= 2), fc.nat(), fc.constantFrom(...'xyz'), (w, at, c) => {
        const i = at % w.length;
        expect(editDistance(w, w.slice(0, i) + c + w.slice(i))).toBe(1);
        expect(editDistance(w, w.slice(0, i) + w.slice(i + 1))).toBe(1);
        expect(editDistance(w, w.slice(0, i) + c + w.slice(i + 1))).toBe(1);
        const j = Math.min(i, w.length - 2);
        if (w[j] !== w[j + 1]) expect(editDistance(w, w.slice(0, j) + w[j + 1] + w[j] + w.slice(j + 2))).toBe(1);
      }),
    );
  });
});

describe('closestWord', () => {
  const known = ['compile', 'check-access', 'crawl', 'diff', 'digest', 'decide'];

  it('finds the intended word for common typos', () => {
    expect(closestWord('compiel', known)).toBe('compile');
    expect(closestWord('chek-access', known)).toBe('check-access');
    expect(closestWord('dif', known)).toBe('diff');
    expect(closestWord('check', known)).toBe('check-access');
  });

  it('offers nothing for a word unlike any known one', () => {
    expect(closestWord('x', known)).toBeUndefined();
    expect(closestWord('frobnicate', known)).toBeUndefined();
    expect(didYouMean('frobnicate', known)).toBe('');
  });

  it('always returns a known word or nothing, and a known word itself', () => {
    fc.assert(
      fc.property(word, fc.array(word, { maxLength: 6 }), (typed, words) => {
        const got = closestWord(typed, words);
        if (got !== undefined) expect(words).toContain(got);
        if (words.includes(typed)) expect(got).toBe(typed);
      }),
    );
  });
});
