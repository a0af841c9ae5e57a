/**
 * A bundle's data.json is read with the native JSON.parse when that gives Go's value, else with the
 * Go JSON reader (bundle/data-file.ts readJsonFile). Whichever path a text takes, the loaded data is
 * the Go reader's: same values, same key order, same own `__proto__` key, same refusals.
 */
import { describe, it, expect } from 'vitest';
import { loadBundle } from '../../../src/bundle/load.ts';
import { readJsonFile } from '../../../src/bundle/data-file.ts';

const where = { source: 'b.tar.gz', entry: 'data.json' };

/** The data a bundle holding only `bytes` as its root data.json loads, or the refusal's message. */
function loaded(bytes: Uint8Array): { data: unknown } | { error: string } {
  try {
    return { data: loadBundle([{ name: 'data.json', bytes }], 'b.tar.gz').data };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** What the Go reader makes of the same file: its value, or its refusal's message. */
function goReading(bytes: Uint8Array): { value: unknown } | { error: string } {
  try {
    return { value: readJsonFile(bytes, where) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const TEXTS: readonly [string, Uint8Array][] = [
  ['plain object', Buffer.from('{"b":{"x":[1,2.5,-0,1e400,true,null]},"a":"s"}')],
  ['repeated keys (last wins, first position kept)', Buffer.from('{"a":1,"b":2,"a":3}')],
  ['integer-like keys', Buffer.from('{"b":1,"2":2,"1":3}')],
  ['__proto__ as data', Buffer.from('{"__proto__":{"polluted":true},"x":1}')],
  ['a surrogate pair escape', Buffer.from('{"s":"\\ud83d\\ude00"}')],
  ['a lone surrogate escape', Buffer.from('{"s":"\\ud800x"}')],
  ['an escaped backslash before u', Buffer.from('{"s":"\\\\ud800"}')],
  ['invalid UTF-8', Buffer.concat([Buffer.from('{"s":"'), Buffer.from([0xf0, 0x9f, 0x98, 0xff, 0xed, 0xa0, 0x80]), Buffer.from('"}')])],
  ['a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')])],
  ['trailing content', Buffer.from('{"a":1} {"b":2}')],
  ['not JSON', Buffer.from('{"a":01}')],
  ['an array at the root', Buffer.from('[1]')],
  ['nested, within the limit', Buffer.from(`{"d":${deep(1_500)}}`)],
  ['long enough to be walked for its depth, and shallow', Buffer.from(`{"d":[${Array.from({ length: 12_000 }, (_, i) => `[${i}]`).join(',')}]}`)],
  ['nesting over the limit', Buffer.from(`{"d":${deep(12_000)}}`)],
];

describe('data.json reading', () => {
  for (const [name, bytes] of TEXTS) {
    it(`${name}: loads what the Go reader reads`, () => {
      const got = loaded(bytes);
      const want = goReading(bytes);
      if ('error' in want) {
        expect(got).toEqual(want);
        return;
      }
      if (typeof want.value !== 'object' || want.value === null || Array.isArray(want.value)) {
        expect(got).toEqual({ error: 'b.tar.gz: data.json: a data file at the bundle root must hold a JSON object' });
        expect(loaded(bytes)).toEqual(got);
        return;
      }
      expect(got).toEqual({ data: want.value });
      const data = (got as { data: object }).data;
      expect(JSON.stringify(data)).toBe(JSON.stringify(want.value));
      expect(Object.getOwnPropertyNames(data)).toEqual(Object.getOwnPropertyNames(want.value));
    });
  }

  it('keeps __proto__ as an own key, never a prototype', () => {
    const got = loaded(Buffer.from('{"__proto__":{"polluted":true}}')) as { data: Record<string, unknown> };
    expect(Object.getPrototypeOf(got.data)).toBe(Object.prototype);
    expect(Object.getOwnPropertyNames(got.data)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
