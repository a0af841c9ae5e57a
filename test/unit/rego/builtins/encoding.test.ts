import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { valueEquals } from '../../../../src/rego/value.ts';
import { fromJSON } from '../../../../src/rego/value-json.ts';
import { call, ctx, j } from './call.ts';
import { lookupBuiltin } from '../../../../src/rego/builtins/registry.ts';
import type { Value } from '../../../../src/rego/value.ts';

describe('encoding builtins', () => {
  it('base64 / base64url / hex / urlquery round-trip any string (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        expect(call('base64.decode', call('base64.encode', s)!)).toBe(s);
        expect(call('base64url.decode', call('base64url.encode', s)!)).toBe(s);
        expect(call('base64url.decode', call('base64url.encode_no_pad', s)!)).toBe(s);
        expect(call('hex.decode', call('hex.encode', s)!)).toBe(s);
        expect(call('urlquery.decode', call('urlquery.encode', s)!)).toBe(s);
        expect(call('base64.is_valid', call('base64.encode', s)!)).toBe(true);
      }),
    );
  });

  it('base64url.decode of unpadded text that decodes to ASCII is the text of the bytes Node decodes, left-over bits dropped (property)', () => {
    const digits = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');
    const rawUrl = fc.oneof(
      fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)), maxLength: 40 }).map((s) => Buffer.from(s).toString('base64url')),
      fc.array(digits, { maxLength: 40 }).map((cs) => cs.join('')),
    );
    fc.assert(
      fc.property(rawUrl, (s) => {
        const bytes = Buffer.from(s, 'base64url');
        if (s.length % 4 === 1 || bytes.some((b) => b >= 0x80)) return;
        expect(call('base64url.decode', s)).toBe(bytes.toString('latin1'));
      }),
      { numRuns: 500 },
    );
  });

  it('json.marshal agrees with JSON.parse and unmarshal restores the value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (x) => {
        const v = fromJSON(JSON.parse(JSON.stringify(x)));
        const text = call('json.marshal', v) as string;
        expect(valueEquals(fromJSON(JSON.parse(text)), v)).toBe(true);
        expect(valueEquals(call('json.unmarshal', text)!, v)).toBe(true);
        expect(call('json.is_valid', text)).toBe(true);
      }),
    );
  });

  it.each([
    ['json.marshal', [{ b: [1, 2], a: '<&>' }], '{"a":"\\u003c\\u0026\\u003e","b":[1,2]}'],
    ['json.marshal_with_options', [{ a: [1] }, { pretty: true, indent: '  ' }], '{\n  "a": [\n    1\n  ]\n}'],
    // what Go escapes and what it leaves (DEL as it is, U+2028 as \u2028), next to plain ASCII quoted as it is
    ['json.marshal', [['a"b\\c\n\u007f\u2028', 'plain ascii ~!']], '["a\\"b\\\\c\\n\u007f\\u2028","plain ascii ~!"]'],
    // keys in Go's order, by code point (UTF-16 order would put the astral character first), as opa eval gives
    ['json.marshal', [{ '\ue000': 1, '\u{1f600}': 2, a: 3 }], '{"a":3,"\ue000":1,"\u{1f600}":2}'],
    ['json.marshal_with_options', [{ '\ue000': 1, '\u{1f600}': 2 }, { pretty: true, indent: ' ' }], '{\n "\ue000": 1,\n "\u{1f600}": 2\n}'],
    ['hex.encode', ['hi'], '6869'],
    ['urlquery.encode', ['a b&c'], 'a+b%26c'],
    ['urlquery.encode_object', [{ b: ['2', '1'], a: 'x y' }], 'a=x+y&b=2&b=1'],
    ['yaml.is_valid', ['a: [1'], false],
    ['json.is_valid', ['{"a":'], false],
    ['yaml.marshal', [{ b: [1], a: 'x' }], 'a: x\nb:\n- 1\n'],
  ] as const)('%s(%j) = %j', (name, args, want) => {
    expect(valueEquals(call(name, ...args.map(j))!, j(want))).toBe(true);
  });

  it('keeps big integers exact through json.unmarshal and yaml.unmarshal', () => {
    expect(call('json.unmarshal', '[18446744073709551617, 0.1]')).toEqual([18446744073709551617n, 0.1]);
    expect(valueEquals(call('yaml.unmarshal', 'a: 18446744073709551617')!, j({ a: 18446744073709551617n }))).toBe(true);
  });

  it('json.unmarshal after json.is_valid in one evaluation reads the text it was given, checked or not', () => {
    const c = ctx();
    const fn = (name: string, ...args: Value[]): Value | undefined => lookupBuiltin(name)!.fn!(args, c);
    expect(fn('json.is_valid', '{"a":1}')).toBe(true);
    expect(valueEquals(fn('json.unmarshal', '{"a":1}')!, j({ a: 1 }))).toBe(true);
    expect(valueEquals(fn('json.unmarshal', '[2]')!, j([2]))).toBe(true);
    expect(fn('json.is_valid', '{"a":')).toBe(false);
    expect(() => fn('json.unmarshal', '{"a":')).toThrow('json.unmarshal: unexpected EOF');
  });

  it('reports Go-worded decode errors', () => {
    expect(() => call('hex.decode', 'gg')).toThrow("hex.decode: encoding/hex: invalid byte: U+0067 'g'");
    expect(() => call('base64.decode', '!!')).toThrow('base64.decode: illegal base64 data');
    expect(() => call('urlquery.decode', '%zz')).toThrow('invalid URL escape "%zz"');
  });
});
