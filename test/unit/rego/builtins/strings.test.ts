import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BuiltinError } from '../../../../src/rego/builtins/registry.ts';
import { SetValue, valueEquals } from '../../../../src/rego/value.ts';
import { call, j } from './call.ts';

describe('string builtins', () => {
  it.each([
    ['concat', ['/', ['a', 'b']], 'a/b'],
    ['indexof', ['héllo', 'l'], 2],
    ['indexof_n', ['aaa', 'aa'], [0, 1]],
    ['substring', ['abcdefghåäö', 2, 10000], 'cdefghåäö'],
    ['substring', ['abc', 1, -1], 'bc'],
    ['trim', ['...foo.bar...', '.'], 'foo.bar'],
    ['trim_space', ['\t x \n'], 'x'],
    ['split', ['a.b.c', '.'], ['a', 'b', 'c']],
    ['strings.split_n', ['a.b.c.d', '.', 2], ['a', 'b.c.d']],
    ['strings.split_n', ['a;b;c;d', ';', -2], ['c', 'd']],
    ['strings.split_n', ['abc', '', 2], ['a', 'bc']],
    ['strings.replace_n', [{ a: 'b', b: 'a' }, 'ab'], 'ba'],
    ['replace', ['aXbX', 'X', '-'], 'a-b-'],
    ['format_int', [255, 16], 'ff'],
    ['format_int', [-3.9, 10], '-3'],
    ['strings.reverse', ['abc'], 'cba'],
    ['strings.count', ['cheese', 'e'], 3],
    ['strings.any_prefix_match', [['a/b', 'c'], 'c'], true],
  ] as const)('%s(%j) = %j', (name, args, want) => {
    expect(valueEquals(call(name, ...args.map(j))!, j(want))).toBe(true);
  });

  it('reports operand types with OPA wording', () => {
    expect(() => call('strings.any_prefix_match', 1, 'a')).toThrow(
      'strings.any_prefix_match: operand 1 must be one of {string, set, array} but got number',
    );
    expect(() => call('strings.any_prefix_match', j(['a', 1]), 'a')).toThrow(
      'strings.any_prefix_match: operand 1 must be array of strings but got array containing number',
    );
    try {
      call('concat', '', 1);
    } catch (e) {
      expect(e).toBeInstanceOf(BuiltinError);
      expect((e as BuiltinError).code).toBe('eval_type_error');
    }
  });

  describe('sprintf (Go fmt)', () => {
    it.each([
      ['%5d|%05d|%-4d|', [42, 42, 7], '   42|00042|7   |'],
      ['%x %X %o %b', [255, 255, 64, 15], 'ff FF 100 1111'],
      ['%f %.2f %e', [3.14, 3.14159, 1234.5678], '3.140000 3.14 1.234568e+03'],
      ['%v %v %v', [2.5, 1.5e-7, 1234567.5], '2.5 1.5e-07 1.2345675e+06'],
      ['%s %d', ['x'], 'x %!d(MISSING)'],
      ['%d', ['x'], '%!d(string=x)'],
      ['%v', [1, 'a'], '1%!(EXTRA string=a)'],
      ['%v|%v|%v', [{ k: 'v' }, [1, 'a'], null], '{"k": "v"}|[1, "a"]|null'],
      ['%q %%', ['a"b'], '"a\\"b" %'],
    ] as const)('sprintf(%j, %j)', (f, args, want) => {
      expect(call('sprintf', f, j(args))).toBe(want);
    });

    it('prints sets and integers beyond 64 bits exactly', () => {
      expect(call('sprintf', '%v', [new SetValue([2, 1])])).toBe('{1, 2}');
      expect(call('sprintf', '%v', [new SetValue()])).toBe('set()');
      expect(call('sprintf', '%v|%d', [18446744073709551618n, -(2n ** 70n)])).toBe(`18446744073709551618|${-(2n ** 70n)}`);
    });

    it('formats any integer like decimal text (property)', () => {
      fc.assert(
        fc.property(fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }), (n) => {
          const v = j(n);
          expect(call('sprintf', '%d', [v])).toBe(n.toString());
          expect(call('sprintf', '%v', [v])).toBe(n.toString());
          expect(call('sprintf', '%x', [v])).toBe((n < 0n ? '-' : '') + (n < 0n ? -n : n).toString(16));
        }),
      );
    });
  });
});
