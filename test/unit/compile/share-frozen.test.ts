/**
 * A watch reads a changed catalog afresh and then shares every part that reads as before with the
 * value it kept (shareFrozen), so caches keyed by object hold across saves. What comes out must
 * serialise exactly as the fresh parse (same members, same order), be wholly frozen once
 * deep-frozen, and hold the previous objects for the parts an edit left alone.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { deepFreeze, isDeepFrozen, shareFrozen } from '../../../src/compile/incremental/frozen-inputs.ts';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const json = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom<Json>(null, true, false, 0, -0, 1, 'a', 'b', ''),
    fc.array(tie('v'), { maxLength: 5 }),
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd', '__proto__'), tie('v'), { maxKeys: 4 }),
  ),
}));

/** `value` with one edit somewhere: a leaf replaced, an item inserted or removed, a key added, removed or moved. */
function edited(value: Json, path: number[], kind: number, leaf: Json): Json {
  if (value === null || typeof value !== 'object') return leaf;
  const [step, ...rest] = path;
  if (Array.isArray(value)) {
    const i = value.length === 0 ? 0 : step! % value.length;
    const copy = [...value];
    if (value.length === 0 || rest.length === 0 || kind === 0) {
      if (kind === 1) copy.splice(i, 0, leaf);
      else if (kind === 2 && copy.length > 0) copy.splice(i, 1);
      else copy[i] = leaf;
      return copy;
    }
    copy[i] = edited(value[i]!, rest, kind, leaf);
    return copy;
  }
  const keys = Object.keys(value);
  const copy: { [k: string]: Json } = JSON.parse(JSON.stringify(value));
  if (keys.length === 0 || rest.length === 0) {
    if (kind === 2 && keys.length > 0) delete copy[keys[step! % keys.length]!];
    else if (kind === 3 && keys.length > 1) {
      // The same members, the first key moved last: reads differently, so it is not shared.
      const k = keys[0]!;
      const v = copy[k]!;
      delete copy[k];
      Object.defineProperty(copy, k, { value: v, writable: true, enumerable: true, configurable: true });
    } else Object.defineProperty(copy, `k${step! % 3}`, { value: leaf, writable: true, enumerable: true, configurable: true });
    return copy;
  }
  const k = keys[step! % keys.length]!;
  Object.defineProperty(copy, k, { value: edited(value[k]!, rest, kind, leaf), writable: true, enumerable: true, configurable: true });
  return copy;
}

function everyObject(v: unknown, visit: (o: object) => void): void {
  if (v === null || typeof v !== 'object') return;
  visit(v);
  for (const k of Object.keys(v)) everyObject((v as Record<string, unknown>)[k], visit);
}

describe('shareFrozen', () => {
  it('gives what the fresh parse reads as, wholly frozen, sharing only parts that read the same', () => {
    fc.assert(
      fc.property(json.v, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), fc.nat(3), json.v, (before, path, kind, leaf) => {
        const previous = deepFreeze(JSON.parse(JSON.stringify(before)) as Json);
        const after = edited(before, path, kind, leaf);
        const text = JSON.stringify(after);
        const next = deepFreeze(shareFrozen(JSON.parse(text) as Json, previous));
        expect(JSON.stringify(next)).toBe(text);
        everyObject(next, (o) => expect(Object.isFrozen(o)).toBe(true));
        if (next !== null && typeof next === 'object') expect(isDeepFrozen(next)).toBe(true);
        if (text === JSON.stringify(before)) expect(next).toBe(previous);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the untouched servers of a catalog as the very objects read before', () => {
    const catalog = (d: string) => ({ servers: [1, 2, 3].map((n) => ({ name: `s${n}`, tools: [{ name: 't', description: n === 2 ? d : 'x', inputSchema: { type: 'object' } }] })) });
    const previous = deepFreeze(catalog('before'));
    const next = shareFrozen(catalog('after'), previous);
    expect(next).not.toBe(previous);
    expect(next.servers[0]).toBe(previous.servers[0]);
    expect(next.servers[2]).toBe(previous.servers[2]);
    expect(next.servers[1]).not.toBe(previous.servers[1]);
    expect(next.servers[1]!.tools[0]!.inputSchema).toBe(previous.servers[1]!.tools[0]!.inputSchema);
    // A server inserted first shifts the rest, which are still found by the matching suffix.
    const inserted = { servers: [{ name: 's0', tools: [] }, ...catalog('before').servers] };
    const shifted = shareFrozen(inserted, previous);
    expect(shifted.servers.slice(1)).toEqual(previous.servers);
    shifted.servers.slice(1).forEach((s, i) => expect(s).toBe(previous.servers[i]));
  });

  it('shares nothing with a value it did not deep-freeze, nor into a frozen part of the new one', () => {
    const previous = Object.freeze({ a: { b: 1 } });
    const next = { a: { b: 1 } };
    expect(shareFrozen(next, previous)).toBe(next);
    expect(shareFrozen(next, previous).a).not.toBe(previous.a);
    const frozenPart = Object.freeze({ b: 1 });
    const kept = deepFreeze({ a: { b: 1 }, c: [1] });
    const withFrozen = shareFrozen({ a: frozenPart, c: [1] }, kept);
    expect(withFrozen.a).toBe(frozenPart);
    expect(withFrozen.c).toBe(kept.c);
  });
});
