/**
 * A parsed module through JSON and back (rego/ast-codec.ts) is the tree the parser gave: every
 * field in order, undefined fields, Rego values by kind, and objects shared between two places still
 * shared. Checked on toolgate's own Rego, on random programs and on random constant values.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AstCodecError, decodeModule, encodeModule } from '../../../src/rego/ast-codec.ts';
import type { Module } from '../../../src/rego/ast.ts';
import { parseNumber } from '../../../src/rego/number-value.ts';
import { parseModule } from '../../../src/rego/parser.ts';
import { ObjectValue, SetValue, valueEquals, type Value } from '../../../src/rego/value.ts';
import { writtenNumbersOf } from '../../../src/rego/written-numbers.ts';
import { programArb } from '../../helpers/rego-program-gen.ts';
import { roundTrip, treeDifference } from '../../helpers/rego-trees.ts';

const REGO = join(import.meta.dirname, '../../../rego');

function regoFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.rego')).map((f) => join(dir, f));
}

describe('a parsed module through JSON and back', () => {
  it("is the parser's tree for every module of toolgate's own Rego", () => {
    const files = regoFiles(REGO);
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const tree = () => parseModule(readFileSync(f, 'utf8'), f, 'v1');
      expect(treeDifference(roundTrip(tree()), tree()), f).toBeUndefined();
    }
  });

  it('is told apart from a plain JSON copy, which loses undefined fields and sharing', () => {
    const m = parseModule('package p\nf(x) := 1 if { x > 1 } else := 2\n', 'p.rego', 'v1');
    expect(treeDifference(JSON.parse(JSON.stringify(m)), m)).toBeDefined();
  });

  it('keeps objects the parser shares between two places shared', () => {
    // a function's else branches share its argument list
    const m = parseModule('package p\nf(x) := 1 if { x > 1 } else := 2\n', 'p.rego', 'v1');
    const rule = m.rules[0]!;
    expect(rule.elses[0]!.args).toBe(rule.args);
    const back = roundTrip(m).rules[0]!;
    expect(back.elses[0]!.args).toBe(back.args);
  });

  it("keeps the text of an array literal's float-written numbers (1.0, 1e2), which sprintf and json.marshal print", () => {
    const m = parseModule('package p\nx := sprintf("%v %v", [1.0, 1e2])\ny := json.marshal([2, 3.50])\n', 'p.rego', 'v1');
    const texts = (rule: Module['rules'][number]): unknown => {
      const call = rule.value as { args: { value: unknown[] }[] };
      const arr = call.args[call.args.length - 1]!.value;
      return writtenNumbersOf(arr);
    };
    expect(texts(m.rules[0]!)).toEqual(['1.0', '1e2']);
    const back = roundTrip(m);
    expect(texts(back.rules[0]!)).toEqual(['1.0', '1e2']);
    expect(texts(back.rules[1]!)).toEqual([undefined, '3.50']);
  });

  it('is the same tree for random programs', () => {
    fc.assert(
      fc.property(programArb('g'), (p) => {
        const tree = () => parseModule(p.text, 'g.rego', 'v1');
        expect(treeDifference(roundTrip(tree()), tree())).toBeUndefined();
      }),
      { numRuns: 200 },
    );
  });

  const scalar: fc.Arbitrary<Value> = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1000, max: 1000 }),
    fc.constantFrom(0.5, -2.25, 1e-7),
    fc.bigInt({ min: -(2n ** 90n), max: 2n ** 90n }).map((b) => parseNumber(b.toString()) as Value),
    fc.constantFrom('0.1234567890123456789', '1e-400', '-3.000000000000000000001').map((t) => parseNumber(t) as Value),
    fc.string({ unit: 'grapheme', maxLength: 4 }),
    fc.constantFrom('$u', '$r', '{"$s":[]}'),
  );
  const { value } = fc.letrec<{ value: Value }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.array(tie('value'), { maxLength: 3 }).map((xs) => new SetValue(xs)),
      fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 }).map((es) => new ObjectValue(es)),
    ),
  }));

  it('keeps every kind of Rego value a constant can hold, tag-like strings and keys too', () => {
    fc.assert(
      fc.property(value, (v) => {
        const m = parseModule('package p\nk := 1\n', 'p.rego', 'v1');
        const rule = m.rules[0]! as { value: { type: 'value'; value: Value } };
        rule.value.value = v;
        const back = roundTrip(m).rules[0]! as { value: { value: Value } };
        expect(valueEquals(back.value.value, v)).toBe(true);
        expect(treeDifference(back, m.rules[0])).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    const m = parseModule('package p\nk := 1\n', 'p.rego', 'v1');
    (m.rules[0]! as { value: { value: Value } }).value.value = -0 as unknown as Value;
    expect(Object.is((roundTrip(m).rules[0]! as { value: { value: unknown } }).value.value, -0)).toBe(true);
  });

  it('refuses a tree it could not give back exactly, and a value it did not write', () => {
    const m = parseModule('package p\nk := 1\n', 'p.rego', 'v1');
    expect(() => encodeModule({ ...m, extra: new Map() } as unknown as Module)).toThrow(AstCodecError);
    expect(() => encodeModule({ ...m, $x: 1 } as unknown as Module)).toThrow(AstCodecError);
    expect(() => decodeModule({ ...(encodeModule(m) as object), rules: [{ $q: 1 }] })).toThrow(AstCodecError);
    expect(() => decodeModule({ $r: 0 })).toThrow(AstCodecError);
    expect(() => decodeModule([1, 2])).toThrow(AstCodecError);
  });
});
