/**
 * The engine's Go JSON reader on its own: what it builds, Go's nesting limit (10,000 containers, read
 * without the call stack), escapes, first-value reading, and the faults it reports. The agreement
 * with OPA's messages is checked in builtins/go-json-opa.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { GoJsonSyntaxError, readGoJson, type GoJsonBuilder } from '../../../src/rego/go-json.ts';
import { parseJsonValue } from '../../../src/rego/builtins/lib/json.ts';

/** Builds plain JS, keeping number literals as text. */
const PLAIN: GoJsonBuilder<unknown, Record<string, unknown>> = {
  string: (s) => s,
  number: (lit) => ({ num: lit }),
  literal: (v) => v,
  array: (items) => items,
  openObject: () => ({}),
  member: (o, k, v) => {
    o[k] = v;
  },
  closeObject: (o) => o,
};

const fault = (text: string, first = false): { phrase: string; offset: number; atEnd: boolean } => {
  try {
    readGoJson(text, PLAIN, { first });
  } catch (e) {
    if (e instanceof GoJsonSyntaxError) return { phrase: e.phrase, offset: e.offset, atEnd: e.atEnd };
    throw e;
  }
  throw new Error(`read: ${text}`);
};

describe('readGoJson', () => {
  it('builds values with number literals as written and members in document order', () => {
    expect(readGoJson(' {"a": [1, -2.5e3, true, null], "b": "x\\u00e9\\n", "a": {}} ', PLAIN)).toEqual({ a: {}, b: 'xé\n' });
    const members: string[] = [];
    readGoJson('{"b":1,"a":2,"b":3}', { ...PLAIN, member: (_o, k) => void members.push(k) });
    expect(members).toEqual(['b', 'a', 'b']);
    expect(readGoJson('[123456789012345678901234567890, 0.1]', PLAIN)).toEqual([{ num: '123456789012345678901234567890' }, { num: '0.1' }]);
  });

  it('decodes escapes as Go does: surrogate pairs joined, a lone surrogate escape is U+FFFD', () => {
    expect(readGoJson('"\\ud83d\\ude00"', PLAIN)).toBe('😀');
    expect(readGoJson('"\\ud800"', PLAIN)).toBe('\ufffd');
    expect(readGoJson('"\\ud800\\u0041"', PLAIN)).toBe('\ufffdA');
    expect(readGoJson('"\\udc00x"', PLAIN)).toBe('\ufffdx');
  });

  it('reads 10,000 nested containers and refuses the 10,001st at its bracket, without using the call stack', () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    let v = readGoJson(deep(10_000), PLAIN);
    let depth = 0;
    while (Array.isArray(v)) {
      depth++;
      v = v[0];
    }
    expect(depth).toBe(10_000);
    expect(fault(deep(10_001))).toEqual({ phrase: 'exceeded max depth', offset: 10_000, atEnd: false });
    expect(fault(`${'{"a":'.repeat(10_001)}1${'}'.repeat(10_001)}`).phrase).toBe('exceeded max depth');
  });

  it("names each fault with Go's scanner phrase and where it is", () => {
    expect(fault('')).toEqual({ phrase: 'looking for beginning of value', offset: 0, atEnd: true });
    expect(fault('[1,]')).toEqual({ phrase: 'looking for beginning of value', offset: 3, atEnd: false });
    expect(fault('{"a" 1}')).toEqual({ phrase: 'after object key', offset: 5, atEnd: false });
    expect(fault('{"a":1 "b":2}')).toEqual({ phrase: 'after object key:value pair', offset: 7, atEnd: false });
    expect(fault('[1 2]')).toEqual({ phrase: 'after array element', offset: 3, atEnd: false });
    expect(fault('{1:2}')).toEqual({ phrase: 'looking for beginning of object key string', offset: 1, atEnd: false });
    expect(fault('trux')).toEqual({ phrase: "in literal true (expecting 'e')", offset: 3, atEnd: false });
    expect(fault('nul')).toEqual({ phrase: "in literal null (expecting 'l')", offset: 3, atEnd: true });
    expect(fault('-x')).toEqual({ phrase: 'in numeric literal', offset: 1, atEnd: false });
    expect(fault('[1.]')).toEqual({ phrase: 'after decimal point in numeric literal', offset: 3, atEnd: false });
    expect(fault('1e+')).toEqual({ phrase: 'in exponent of numeric literal', offset: 3, atEnd: true });
    expect(fault('"\\q"')).toEqual({ phrase: 'in string escape code', offset: 2, atEnd: false });
    expect(fault('"\\u12x4"')).toEqual({ phrase: 'in \\u hexadecimal character escape', offset: 5, atEnd: false });
    expect(fault('"a\u0001"')).toEqual({ phrase: 'in string literal', offset: 2, atEnd: false });
    expect(fault('"abc')).toEqual({ phrase: 'in string literal', offset: 4, atEnd: true });
    expect(fault('1 2')).toEqual({ phrase: 'after top-level value', offset: 2, atEnd: false });
  });

  it('with first, stops after the first value, which must end at a delimiter when it is a bare number or literal', () => {
    expect(readGoJson('{"a":1} trailing', PLAIN, { first: true })).toEqual({ a: { num: '1' } });
    expect(readGoJson('"s"x', PLAIN, { first: true })).toBe('s');
    expect(readGoJson('1 x', PLAIN, { first: true })).toEqual({ num: '1' });
    expect(fault('1x', true)).toEqual({ phrase: 'after top-level value', offset: 1, atEnd: false });
    expect(fault('truex', true).phrase).toBe('after top-level value');
  });
});

describe("json.unmarshal's wording of the reader's faults (Go's, as OPA reports them)", () => {
  const message = (text: string): string => {
    try {
      parseJsonValue(text);
    } catch (e) {
      return (e as Error).message;
    }
    return 'read';
  };

  it('says EOF for empty text, unexpected EOF for text cut short, and quotes the byte Go saw', () => {
    expect(message('')).toBe('EOF');
    expect(message(' \n')).toBe('EOF');
    expect(message('[1,')).toBe('unexpected EOF');
    expect(message('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(message('{"é" é}')).toBe("invalid character 'Ã' after object key");
    expect(message('"\\x"')).toBe("invalid character 'x' in string escape code");
    expect(message('1 2')).toBe("error: invalid character '2' after top-level value");
    // opa eval json.unmarshal on 10,001 nested arrays (OPA cannot answer 10,000: its own result is too deep to write)
    expect(message('['.repeat(10_001) + ']'.repeat(10_001))).toBe("invalid character '[' exceeded max depth");
  });
});
