/**
 * The strict JSON reader reads what JSON.parse reads (for JSON without fractions, exponents or
 * integers past 2^53), keeps big integers exactly, keeps floats by their text, and refuses a key
 * repeated in one object wherever it is, including keys it has cached and keys Object.prototype has.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { JsonFloat, parseJsonInput, parseStrictJson } from '../../../src/canonical/strict-json.ts';

const key = fc.oneof(fc.constantFrom('from', 'to', 'kind', 'fr', 'f', 'toString', 'constructor', 'x"', 'a\\b', 'é', ''), fc.string({ maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 3 }));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.maxSafeInteger(), fc.string({ maxLength: 8 }), tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('value'), { maxKeys: 5 }),
}));

describe('parseStrictJson', () => {
  it('reads what JSON.parse reads, spaced or not', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, spaced) => {
        const text = JSON.stringify(v, null, spaced ? 2 : undefined);
        expect(parseStrictJson(text)).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a key repeated in one object, wherever it is and whatever came before it', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(key, fc.maxSafeInteger(), { minKeys: 1, maxKeys: 4 }), { minLength: 1, maxLength: 4 }), fc.nat(), (objects, pick) => {
        const last = objects[objects.length - 1]!;
        const names = Object.keys(last);
        const repeated = names[pick % names.length]!;
        const body = JSON.stringify(last).slice(0, -1);
        const text = `[${objects.slice(0, -1).map((o) => JSON.stringify(o)).join(',')}${objects.length > 1 ? ',' : ''}${body},${JSON.stringify(repeated)}:0}]`;
        expect(() => parseStrictJson(text)).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR', message: expect.stringContaining(`key ${JSON.stringify(repeated)} appears twice`) }));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps big integers and float texts, and a __proto__ key as an own member', () => {
    const v = parseStrictJson('{"big":12345678901234567890,"f":1.50,"e":1e3,"__proto__":{"x":1}}') as Record<string, unknown>;
    expect(v.big).toBe(12345678901234567890n);
    expect(v.f).toEqual(new JsonFloat('1.50'));
    expect(v.e).toEqual(new JsonFloat('1e3'));
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(Object.keys(v)).toEqual(['big', 'f', 'e', '__proto__']);
  });

  it('does not take raw text for a cached key written with escapes', () => {
    // `ab\"` is the key ab"; the raw text `"ab""` after it is not that key but bad JSON.
    expect(() => parseStrictJson('[{"ab\\"":1},{"ab"":2}]')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    expect(parseStrictJson('[{"\\u0066rom":1},{"from":2},{"fr\\u006fm":3}]')).toEqual([{ from: 1 }, { from: 2 }, { from: 3 }]);
  });
});

describe('parseJsonInput on texts JSON.parse reads too', () => {
  it('refuses a repeated key even among strings holding colons, quotes and backslashes, and reads escaped pairs', () => {
    const dup = String.raw`{"a:\"":"x:","b\\":"\":","a:\"":1}`;
    expect(() => parseJsonInput(dup, 'd.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    const ok = String.raw`{"a:\"":"x:","b\\":"\":","c":[{"d:":"::"}]}`;
    expect(parseJsonInput(ok, 'o.json')).toStrictEqual(JSON.parse(ok));
    expect(parseJsonInput(String.raw`["\ud83d\ude00"]`, 'e.json')).toEqual(['\u{1f600}']);
    expect(() => parseJsonInput(String.raw`["\ud83d"]`, 'l.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    expect(parseJsonInput('[18014398509481984, 0.5, -0]', 'n.json')).toStrictEqual([18014398509481984, 0.5, -0]);
    expect(() => parseJsonInput('[9007199254740993]', 'b.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    expect(() => parseJsonInput('[1e400]', 'r.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
    const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(() => parseJsonInput(nested(130), 'deep.json')).toThrowError(expect.objectContaining({ code: 'INPUT_TOO_LARGE' }));
    expect(parseJsonInput(nested(128), 'deep.json')).toStrictEqual(JSON.parse(nested(128)));
  });

  it('reads every object JSON.parse reads without losing a member, and refuses one with a key written twice', () => {
    const member = fc.oneof(fc.constantFrom('a', 'a:', ':', '"', '\\', 'b"c:', '__proto__'), fc.string({ maxLength: 3 }));
    fc.assert(
      fc.property(fc.array(fc.tuple(member, fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null))), { maxLength: 6 }), (pairs) => {
        const text = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(',')}}`;
        if (new Set(pairs.map(([k]) => k)).size < pairs.length) expect(() => parseJsonInput(text, 'p.json')).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
        else expect(parseJsonInput(text, 'p.json')).toStrictEqual(JSON.parse(text));
      }),
      { numRuns: 400 },
    );
  });
});
