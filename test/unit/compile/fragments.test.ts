import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { canonicalString, CanonicalText } from '../../../src/canonical/json.ts';
import { resumablePartsSha256 } from '../../../src/canonical/resumable-sha256.ts';
import { ByteSegments, sameBytes } from '../../../src/canonical/byte-segments.ts';
import { FragmentSlots, objectText, spanBytes } from '../../../src/compile/incremental/fragments.ts';

const encoder = new TextEncoder();
const OPTIONS = { allowFloats: true } as const;

// Keys and strings with NUL, quotes, non-ASCII and NFC-sensitive text: the encoder escapes or normalises them all.
const text = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('\u0000', '\u00001\u0000', 'e\u0301', 'é', '"\\', '𝄞', '__proto__'));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), text, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
})).value;

/**
 * A value with some members replaced by fragments: `withText` holds their canonical text (what the
 * encoder splices), `withSlots` their placeholders; `texts` lists the fragments' texts by slot.
 */
function split(value: unknown, pick: () => boolean, slots: FragmentSlots, texts: string[]): { withText: unknown; withSlots: unknown } {
  if (pick()) {
    const t = canonicalString(value, OPTIONS);
    texts.push(t);
    const bytes = encoder.encode(t);
    // Some fragments are given in parts (a member with entries spliced in), cut anywhere.
    const cut = Math.floor(bytes.length / 2);
    const fragment = pick() ? new ByteSegments([bytes.subarray(0, cut), new Uint8Array(0), bytes.subarray(cut)]) : bytes;
    return { withText: new CanonicalText(t), withSlots: slots.add(fragment).placeholder };
  }
  if (Array.isArray(value)) {
    const parts = value.map((v) => split(v, pick, slots, texts));
    return { withText: parts.map((p) => p.withText), withSlots: parts.map((p) => p.withSlots) };
  }
  if (value !== null && typeof value === 'object') {
    const a: Record<string, unknown> = {};
    const b: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const p = split(v, pick, slots, texts);
      Object.defineProperty(a, k, { value: p.withText, enumerable: true, writable: true, configurable: true });
      Object.defineProperty(b, k, { value: p.withSlots, enumerable: true, writable: true, configurable: true });
    }
    return { withText: a, withSlots: b };
  }
  return { withText: value, withSlots: value };
}

describe('FragmentSlots', () => {
  it('assembles the bytes the encoder writes with each fragment (whole or in parts) spliced in as text, and finds every fragment in them', () => {
    fc.assert(
      fc.property(json, fc.array(fc.boolean(), { minLength: 1, maxLength: 16 }), (value, choices) => {
        // Values with no canonical form (keys that coincide after NFC) are not fragments' business.
        let representable = true;
        try {
          canonicalString(value, OPTIONS);
        } catch {
          representable = false;
        }
        fc.pre(representable);
        let i = 0;
        const pick = () => choices[i++ % choices.length]!;
        const slots = new FragmentSlots();
        const texts: string[] = [];
        const { withText, withSlots } = split({ root: value }, pick, slots, texts);
        const expected = encoder.encode(`${canonicalString(withText, OPTIONS)}\n`);
        const { bytes, at } = slots.assemble(withSlots, '\n');
        expect(sameBytes(bytes, expected)).toBe(true);
        // Its parts, hashed one after another, are the bytes assembled.
        expect(resumablePartsSha256(slots.parts(withSlots)).hex).toBe(createHash('sha256').update(canonicalString(withText, OPTIONS), 'utf8').digest('hex'));
        texts.forEach((t, slot) => {
          const fragment = encoder.encode(t);
          expect(sameBytes(spanBytes(bytes, { at: at[slot]!, length: fragment.length }), fragment)).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('copies a fragment as it is, and refuses text that is not canonical (a raw NUL) or a fragment placed twice', () => {
    const copied = new FragmentSlots();
    const { placeholder } = copied.add(encoder.encode('"a\u0000b"'));
    expect(new TextDecoder().decode(copied.assemble({ x: placeholder }).bytes)).toBe('{"x":"a\u0000b"}');
    const cut = new FragmentSlots();
    expect(() => cut.assemble({ x: cut.add(encoder.encode('1')).placeholder, y: new CanonicalText('"\u0000"') })).toThrow(/placeholders/);
    const twice = new FragmentSlots();
    const one = twice.add(encoder.encode('1')).placeholder;
    twice.add(encoder.encode('2'));
    expect(() => twice.assemble([one, one])).toThrow(/placed twice/);
  });

  it('writes an object of member texts as the encoder does, its keys sorted or not, ASCII or not', () => {
    const key = fc.oneof(fc.stringMatching(/^[a-z:_-]{0,6}$/), text);
    fc.assert(
      fc.property(fc.uniqueArray(key, { maxLength: 12 }), fc.boolean(), (keys, sort) => {
        const ordered = sort ? [...keys].sort() : keys;
        const entries = ordered.map((k, i) => [k, new CanonicalText(String(i))] as const);
        let expected: string;
        try {
          expected = canonicalString(Object.fromEntries(entries));
        } catch (e) {
          expect(() => objectText(entries)).toThrow((e as Error).message);
          return;
        }
        expect(objectText(entries).text).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});
