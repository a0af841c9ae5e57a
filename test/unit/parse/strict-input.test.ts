/**
 * parseJsonInput, the reader every JSON input goes through: it reads what JSON.parse reads, and
 * refuses at line:col what JSON.parse would silently lose (a repeated key, an integer a double
 * cannot hold), and every syntax fault it meets.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseJsonInput } from '../../../src/canonical/strict-json.ts';
import { parseText } from '../../../src/parse/document.ts';
import { isToolgateError } from '../../../src/errors.ts';

/** 1-based line and column of a string offset. */
function lineColOf(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

describe('parseJsonInput', () => {
  it('reads what JSON.parse reads, __proto__ included as an own key', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, spaced) => {
        const text = JSON.stringify(v, null, spaced ? 2 : undefined);
        expect(parseJsonInput(text, 'x.json')).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
    const v = parseJsonInput('{"__proto__": {"polluted": true}}', 'p.json') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(v)).toEqual(['__proto__']);
  });

  it('refuses a repeated key naming both places, line:col each', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z_]{0,5}$/), fc.integer(), { minKeys: 1, maxKeys: 5 }), fc.nat(), fc.boolean(), (obj, pick, spaced) => {
        const keys = Object.keys(obj);
        const repeated = keys[pick % keys.length]!;
        const body = JSON.stringify(obj, null, spaced ? 2 : undefined);
        const text = `${body.slice(0, body.lastIndexOf('}'))},\n ${JSON.stringify(repeated)}: 0}`;
        const firstAt = lineColOf(text, text.indexOf(`${JSON.stringify(repeated)}:`));
        const secondAt = lineColOf(text, text.lastIndexOf(`${JSON.stringify(repeated)}:`));
        try {
          parseJsonInput(text, 'dup.json');
          expect.unreachable('a repeated key was read');
        } catch (e) {
          if (!isToolgateError(e)) throw e;
          expect(e.code).toBe('PARSE_ERROR');
          expect(e.at).toEqual([
            { file: 'dup.json', ...secondAt },
            { file: 'dup.json', ...firstAt },
          ]);
          expect(e.message).toContain(`(first at ${firstAt.line}:${firstAt.col})`);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps an integer beyond 2^53 only when a double holds it as written', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n }), fc.boolean(), (n, negative) => {
        const digits = `${negative ? '-' : ''}${n}`;
        const text = `{"schema": {\n  "maximum": ${digits}}}`;
        const exact = String(Number(digits)) === digits;
        if (exact) {
          expect((parseJsonInput(text, 'big.json') as { schema: { maximum: number } }).schema.maximum).toBe(Number(digits));
        } else {
          expect(() => parseJsonInput(text, 'big.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR', at: [{ file: 'big.json', line: 2, col: 14 }] }));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('refuses numbers out of double range and nesting past the limit', () => {
    expect(() => parseJsonInput('[1e400]', 'n.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR', at: [{ file: 'n.json', line: 1, col: 2 }] }));
    expect(() => parseJsonInput('['.repeat(200) + ']'.repeat(200), 'd.json')).toThrowError(expect.objectContaining({ code: 'INPUT_TOO_LARGE' }));
  });

  it('gives every fault in damaged JSON a line and column, never another kind of error', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', ':', 'x', '\u0000', '\ufeff', '{', '0'), (v, cut, insert) => {
        const good = JSON.stringify(v, null, 1);
        const at = cut % (good.length + 1);
        const text = good.slice(0, at) + insert + good.slice(at + (insert === '' ? 1 : 0));
        let parsed: unknown;
        try {
          parsed = parseJsonInput(text, 'bad.json');
        } catch (e) {
          if (!isToolgateError(e)) throw e;
          expect(['PARSE_ERROR', 'INPUT_TOO_LARGE']).toContain(e.code);
          expect(e.at[0]).toMatchObject({ file: 'bad.json', line: expect.any(Number), col: expect.any(Number) });
          expect(e.message.split('\n')).toHaveLength(1);
          return;
        }
        // Still JSON after the change: then it must read as JSON.parse reads it.
        expect(parsed).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('is what parseText uses for a .json file', () => {
    expect(() => parseText('c.json', '{"servers": [], "servers": []}')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR', at: [expect.objectContaining({ line: 1, col: 17 }), expect.objectContaining({ line: 1, col: 2 })] }));
    expect(() => parseText('c.json', '{"n": 9007199254740993}')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    expect(() => parseText('g.yaml', 'n: 9007199254740993\n')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR', at: [expect.objectContaining({ file: 'g.yaml', line: 1, col: 4 })] }));
    expect(parseText('g.yaml', 'n: 9007199254740992\n').value).toEqual({ n: 2 ** 53 });
  });
});
