import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromJSON, toJSON, valueEquals } from '../../../src/rego/value.ts';

/** `inner` wrapped `depth` times, alternating arrays and one-key objects. */
function nest(inner: unknown, depth: number): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

describe('fromJSON on deeply nested values', () => {
  it('converts 20,000 levels without exhausting the stack', () => {
    let v = fromJSON(nest('leaf', 20_000));
    for (let i = 19_999; i >= 0; i--) v = i % 2 === 0 ? (v as unknown[])[0] as never : (v as { get(k: string): never }).get('k');
    expect(v).toBe('leaf');
  });

  it('gives past the recursive depth what it gives above it (any JSON at the bottom of 600 levels)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (j) => {
        const deep = fromJSON(nest(j, 600));
        const shallow = fromJSON(nest(j, 3));
        let a = deep;
        for (let i = 599; i >= 0; i--) a = i % 2 === 0 ? (a as unknown[])[0] as never : (a as { get(k: string): never }).get('k');
        let b = shallow;
        for (let i = 2; i >= 0; i--) b = i % 2 === 0 ? (b as unknown[])[0] as never : (b as { get(k: string): never }).get('k');
        expect(valueEquals(a, b)).toBe(true);
        expect(toJSON(a)).toEqual(toJSON(fromJSON(j)));
      }),
      { numRuns: 200 },
    );
  });
});
