import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { canonicalString, canonicalBytes, canonicalTextDigestHex } from '../../../src/canonical/json.ts';
import { digestHex, textDigestHex } from '../../../src/canonical/digest.ts';
import { createHash } from 'node:crypto';
import { ToolgateError } from '../../../src/errors.ts';

describe('canonicalString', () => {
  it('sorts keys by UTF-16 code unit (RFC 8785)', () => {
    // U+1F600 (surrogate pair D83D DE00) sorts before U+FF01.
    expect(canonicalString({ '\uff01': 1, '\u{1f600}': 2, b: 3, a: 4 })).toBe('{"a":4,"b":3,"\u{1f600}":2,"\uff01":1}');
  });
  it('escapes only quote, backslash and C0 controls', () => {
    expect(canonicalString('a"\\\b\t\n\f\r\u0001/\u007f\u2028')).toBe('"a\\"\\\\\\b\\t\\n\\f\\r\\u0001/\u007f\u2028"');
  });
  it('normalises strings and keys to NFC', () => {
    expect(canonicalString({ 'e\u0301': 'A\u030a' })).toBe('{"\u00e9":"\u00c5"}');
  });
  it('refuses keys that coincide after NFC', () => {
    expect(() => canonicalString({ 'e\u0301': 1, '\u00e9': 2 })).toThrow(ToolgateError);
  });
  it('refuses lone surrogates, floats, undefined, NaN and class instances', () => {
    for (const bad of ['\ud800', 1.5, { a: undefined }, Number.NaN, new Date(0), 2 ** 60]) {
      expect(() => canonicalString(bad), String(bad)).toThrowError(expect.objectContaining({ code: 'CANONICAL_UNREPRESENTABLE' }));
    }
  });
  it('writes big integers in full and floats when allowed', () => {
    expect(canonicalString(123456789012345678901234567890n)).toBe('123456789012345678901234567890');
    expect(canonicalString([0.5, 1e21, -0], { allowFloats: true })).toBe('[0.5,1e+21,0]');
  });
  it('does not depend on key insertion order', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string(), fc.boolean())), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        const a = canonicalString(obj);
        expect(canonicalString(reversed)).toBe(a);
        expect(JSON.parse(a)).toEqual(JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(obj).map(([k, v]) => [k.normalize('NFC'), typeof v === 'string' ? v.normalize('NFC') : v])))));
      }),
    );
  });
  it('writes objects that repeat a shape, or share a first key with another shape, as each one alone', () => {
    // Shapes are remembered by first key: same keys in another order, a key more or less, a key needing escape.
    const objects = [
      { agent: 'a', tool: 't', provenance: { source: 's', confidence: 'high' } },
      { agent: 'b', tool: 'u', provenance: { source: 's', confidence: 'low', evidence: 'e' } },
      { agent: 'c', provenance: { confidence: 'x', source: 'y' }, tool: 'v' },
      { agent: 'd', 'to"ol': 'w' },
      { agent: 'e' },
      { agent: 'f', tool: 'z', provenance: { source: 's', confidence: 'high' } },
    ];
    expect(canonicalString(objects)).toBe(`[${objects.map((o) => canonicalString(o)).join(',')}]`);
    expect(objects.map((o) => canonicalString(o))).toEqual([
      '{"agent":"a","provenance":{"confidence":"high","source":"s"},"tool":"t"}',
      '{"agent":"b","provenance":{"confidence":"low","evidence":"e","source":"s"},"tool":"u"}',
      '{"agent":"c","provenance":{"confidence":"x","source":"y"},"tool":"v"}',
      '{"agent":"d","to\\"ol":"w"}',
      '{"agent":"e"}',
      '{"agent":"f","provenance":{"confidence":"high","source":"s"},"tool":"z"}',
    ]);
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', 'é', 'q"'), fc.integer(), { maxKeys: 4 }), { maxLength: 20 }), (list) => {
        expect(canonicalString(list)).toBe(`[${list.map((o) => canonicalString(Object.fromEntries(Object.entries(o).reverse()))).join(',')}]`);
      }),
    );
  });
});

describe('digestHex', () => {
  it('matches node:crypto for every algorithm', () => {
    const bytes = canonicalBytes({ x: 'y' });
    for (const alg of ['sha256', 'sha384', 'sha512'] as const) {
      expect(digestHex(bytes, alg)).toBe(createHash(alg).update(bytes).digest('hex'));
    }
  });
  it('refuses other algorithm names', () => {
    expect(() => digestHex(new Uint8Array(), 'md5' as never)).toThrowError(expect.objectContaining({ code: 'DIGEST_ALGORITHM_UNSUPPORTED' }));
  });
});

describe('canonicalTextDigestHex', () => {
  it('is the digest of the canonical text, for values small and large enough to be hashed in many chunks', () => {
    const large = { rows: Array.from({ length: 30_000 }, (_, i) => ({ id: `r-${i}`, n: i, note: i % 7 === 0 ? 'caf\u00e9 \u2028' : null })) };
    expect(canonicalTextDigestHex(large)).toBe(textDigestHex(canonicalString(large)));
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalTextDigestHex(v, { allowFloats: true })).toBe(textDigestHex(canonicalString(v, { allowFloats: true })));
      }),
    );
  });
  it('refuses what canonicalString refuses', () => {
    expect(() => canonicalTextDigestHex({ a: Number.NaN })).toThrowError(expect.objectContaining({ code: 'CANONICAL_UNREPRESENTABLE' }));
  });
});
