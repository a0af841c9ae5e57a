/**
 * The parser's tried-then-abandoned readings (an `if {` body read first as one literal, an object
 * comprehension read first as such), refs built segment by segment, and the compiler's recursion
 * check through refs that stop at a rule prefix: each answer as OPA gives it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileModules, fromJSON, RegoError } from '../../../src/rego/index.ts';
import { regoError as err, run } from './helpers.ts';

const pkg = 'package t\n';

describe('parseModule', () => {
  describe('when an if-body is tried as a single literal first', () => {
    it('reads a braced body of several literals', () => {
      expect(run(`${pkg}p if {\n  x := 1\n  x == 1\n}`, 'x = data.t.p')).toEqual([{ x: true }]);
    });
    it('reads `if { true }` as a braced body, not a set', () => {
      expect(run(`${pkg}p if { true }`, 'x = data.t.p')).toEqual([{ x: true }]);
    });
    it('reads `if { 1 | 1 }` as one literal, a set comprehension', () => {
      expect(run(`${pkg}p if { 1 | 1 }`, 'x = data.t.p')).toEqual([{ x: true }]);
    });
    it('reports an error in the braced body as a located rego_parse_error', () => {
      const e = err(() => compileModules([{ name: 'm.rego', text: `${pkg}p if {\n  x := 1\n  y := \n}` }]));
      expect(e).toBeInstanceOf(RegoError);
      expect(e.regoCode).toBe('rego_parse_error');
      expect(e.at[0]?.line).toBeGreaterThan(1);
    });
  });

  describe('when an object comprehension does not parse', () => {
    it('falls back to an object', () => {
      expect(run(`${pkg}p := {"a": {1} | {2}, "b": 3}`, 'x = data.t.p')).toEqual([{ x: { a: [1, 2], b: 3 } }]);
    });
  });

  describe('when a ref is built from many suffixes', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    it('looks up the same value as a walk of the input', () => {
      fc.assert(
        fc.property(fc.array(key, { minLength: 1, maxLength: 6 }), fc.array(key, { minLength: 1, maxLength: 6 }), fc.boolean(), (path, path2, brackets) => {
          const input: Record<string, unknown> = {};
          let at = input;
          for (const k of path) at = (at[k] ??= {}) as Record<string, unknown>;
          at.leaf = 1;
          const ref = (ks: string[]) => `input${ks.map((k) => (brackets ? `["${k}"]` : `.${k}`)).join('')}`;
          // two refs in one rule: a path extended in place must not leak into the other ref
          const text = `${pkg}p := [${ref([...path, 'leaf'])}, object.get(${ref(path2)}, "leaf", 0)]`;
          let expected2: unknown = input;
          for (const k of path2) expected2 = (expected2 as Record<string, unknown> | undefined)?.[k];
          const leaf2 = (expected2 as Record<string, unknown> | undefined)?.leaf;
          const got = run(text, 'x = data.t.p', { input: fromJSON(input) });
          if (expected2 === undefined || typeof expected2 !== 'object') expect(got).toEqual([]);
          else expect(got).toEqual([{ x: [1, leaf2 ?? 0] }]);
        }),
        { numRuns: 200 },
      );
    });
  });
});

describe('compileModules recursion check', () => {
  it('finds a cycle through a ref that stops at a rule prefix', () => {
    const e = err(() => compileModules([{ name: 'm.rego', text: `${pkg}p if { data.t.x[_] }\nx.y if p` }]));
    expect(e.regoCode).toBe('rego_recursion_error');
  });
  it('finds a cycle through a ref to the whole package', () => {
    const e = err(() => compileModules([{ name: 'm.rego', text: `${pkg}p if { data.t.q }\nq if { count(data.t) > 0 }` }]));
    expect(e.regoCode).toBe('rego_recursion_error');
  });
  it('does not see a cycle through a sibling whose name shares a prefix', () => {
    expect(run(`${pkg}p if { data.t.xy }\nxy := true\nx.z if p`, 'x = data.t.x.z')).toEqual([{ x: true }]);
  });
});
