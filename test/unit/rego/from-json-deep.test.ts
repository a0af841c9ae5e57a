import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ObjectValue, valueEquals, type Value } from '../../../src/rego/value.ts';
import { fromJSON, toJSON } from '../../../src/rego/value-json.ts';

/** Undoes `nest`: level i of `depth` is an array at even i, an object {k} at odd i. */
function unnest(v: Value, depth: number): Value {
  for (let i = depth - 1; i >= 0; i--) {
    if (i % 2 === 0) {
      if (!Array.isArray(v)) throw new Error(`level ${i}: not an array`);
      v = v[0]!;
    } else {
      if (!(v instanceof ObjectValue)) throw new Error(`level ${i}: not an object`);
      v = v.get('k')!;
    }
  }
  return v;
}

/** `inner` wrapped `depth` times, alternating arrays and one-key objects. */
function nest(inner: unknown, depth: number): unknown {
  let v = inner;
  for (let i = 0; i < depth; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

describe('fromJSON on deeply nested values', () => {
  it('converts 20,000 levels without exhausting the stack', () => {
    expect(unnest(fromJSON(nest('leaf', 20_000)), 20_000)).toBe('leaf');
  });

  it('gives past the recursive depth what it gives above it (any JSON at the bottom of 600 levels)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (j) => {
        const a = unnest(fromJSON(nest(j, 600)), 600);
        const b = unnest(fromJSON(nest(j, 3)), 3);
        expect(valueEquals(a, b)).toBe(true);
        expect(toJSON(a)).toEqual(toJSON(fromJSON(j)));
      }),
      { numRuns: 200 },
    );
  });
});
