import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { mayHoldAlias, notPlain } from '../../../src/parse/yaml-scan.ts';

// The regexes each scan stands for (src/parse/yaml-scan.ts), over texts made of the characters they look at.
const ALIAS = /(?:^|[\s[{,:])\*[^\s,[\]{}"']/m;
const NOT_PLAIN = /^(?:%|---|\.\.\.|\t| *\t|\?)/m;
const text = fc.array(fc.constantFrom('*', '-', '.', '0', '%', '?', '\t', ' ', '\n', '\r', '\u2028', '[', '{', ',', ':', '"', 'a', '__proto__', '---', '...', '\u00a0'), { maxLength: 24 }).map((parts) => parts.join(''));

describe('the scans that decide whether a text is read in pieces', () => {
  it('answer what their regexes answer', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(mayHoldAlias(t)).toBe(ALIAS.test(t));
        expect(notPlain(t)).toBe(NOT_PLAIN.test(t));
      }),
      { numRuns: 5000 },
    );
  });
});
