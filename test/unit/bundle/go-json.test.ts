/** The bundle's reading of JSON files through the engine's Go JSON reader: the value tree and its fault messages. */
import { describe, expect, it } from 'vitest';
import { JsonError, parseGoJson } from '../../../src/bundle/go-json.ts';

const message = (text: string, first = false): string => {
  try {
    parseGoJson(text, first);
  } catch (e) {
    if (e instanceof JsonError) return e.message;
    throw e;
  }
  return 'read';
};

describe('parseGoJson', () => {
  it('builds the value tree, number literals as text, repeated keys kept in order', () => {
    expect(parseGoJson('{"a":[1.50,"x",true,null],"a":{}}', false)).toEqual({
      t: 'obj',
      entries: [
        ['a', { t: 'arr', items: [{ t: 'num', lit: '1.50' }, { t: 'str', v: 'x' }, { t: 'lit', v: true }, { t: 'lit', v: null }] }],
        ['a', { t: 'obj', entries: [] }],
      ],
    });
  });

  it('names the character and its offset, or the end of the input, with what was being read', () => {
    expect(message('{"a":1,}')).toBe('invalid character "}" looking for beginning of object key string at offset 7');
    expect(message('[1, 2')).toBe('unexpected end of JSON input (after array element)');
    expect(message('{"a": tru}')).toBe(`invalid character "}" in literal true (expecting 'e') at offset 9`);
    expect(message('{} {}')).toBe('invalid character "{" after top-level value at offset 3');
    expect(message('{} {}', true)).toBe('read');
  });
});
