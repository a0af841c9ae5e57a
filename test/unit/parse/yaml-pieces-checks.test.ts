import { describe, it, expect } from 'vitest';
import { parseText } from '../../../src/parse/document.ts';

// Enough one-line items for the sequence to be cut into runs, so an edit leaves most of the text kept.
const line = (i: number, extra = '') => `  - {agent: a, tool: "s::t${i}"${extra}}`;
const text = (edit?: { at: number; extra: string }) =>
  `agents:\n  - a\ngrants:\n${Array.from({ length: 6000 }, (_, i) => line(i, edit?.at === i ? edit.extra : '')).join('\n')}\n`;

function caught(f: () => unknown): { code?: string; message: string; at?: unknown } {
  try {
    f();
  } catch (e) {
    const err = e as { code?: string; message: string; at?: unknown };
    return { code: err.code, message: err.message, at: err.at };
  }
  throw new Error('expected a refusal');
}

describe('a YAML text read in pieces', () => {
  const kept = parseText('governance.yaml', text(), 'yaml', { pieces: new Map() }).pieces!;
  const cache = new Map(kept.map((p) => [p.digest, p.json!]));

  it('reads the kept pieces from the cache and parses the edited one', () => {
    const doc = parseText('governance.yaml', text({ at: 5000, extra: ', granted_by: x' }), 'yaml', { pieces: cache });
    expect((doc.value as { grants: { granted_by?: string }[] }).grants[5000]!.granted_by).toBe('x');
    expect(doc.value).toEqual(parseText('governance.yaml', text({ at: 5000, extra: ', granted_by: x' }), 'yaml').value);
  });

  // The checks a whole parse makes run on the text parsed now, and refuse as a whole parse does.
  for (const [what, extra] of [
    ['a number that is not finite', ', weight: .inf'],
    ['a lone surrogate', ', note: "\\ud800"'],
    ['two keys one after NFC', ', "\u00e9": 1, "e\u0301": 2'],
  ] as const) {
    it(`refuses ${what} in an edited piece, where and as a whole parse does`, () => {
      const edited = text({ at: 5000, extra });
      expect(caught(() => parseText('governance.yaml', edited, 'yaml', { pieces: cache }))).toEqual(caught(() => parseText('governance.yaml', edited, 'yaml')));
    });
  }
});
