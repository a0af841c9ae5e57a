/**
 * The regex.* builtins, regex.globs_match and glob.match on their own: Go's edge cases (answers and
 * error texts taken from OPA 1.22.3), and properties of the Go-regexp layer on re2js
 * (lib/re2.ts) against plain string operations. regex-opa.test.ts checks generated calls against
 * the real OPA.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BuiltinError } from '../../../../src/rego/builtins/registry.ts';
import {
  compileRegexp,
  findAllString,
  matchString,
  quoteMeta,
  replaceAllString,
  splitString,
} from '../../../../src/rego/builtins/lib/re2.ts';
import { globsIntersect } from '../../../../src/rego/builtins/lib/glob-intersection.ts';
import { globMatch, globQuoteMeta } from '../../../../src/rego/builtins/lib/glob.ts';
import { toJSON } from '../../../../src/rego/value-json.ts';
import { call, j } from './call.ts';

const UNICODE = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '+', '(', ')', '[', ']', '{', '}', '$', '\\', '^', '|', '?', 'é', '😀', '中', '\n'), maxLength: 8 });

function message(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(BuiltinError);
    return (e as BuiltinError).message;
  }
  throw new Error('expected a builtin error');
}

describe('regex builtins', () => {
  describe('when Go and JavaScript conventions part', () => {
    const cases: [string, unknown[], unknown][] = [
      ['regex.split', ['', ''], []],
      ['regex.split', ['a', ''], ['']],
      ['regex.replace', ['ab', '(?P<x>a)|(?P<x>b)', '[$x]'], '[a][b]'],
      ['regex.replace', ['abc', '(b)', '$01|${1}x$1x|$$|${'], 'a|bx|$|${c'],
      ['regex.replace', ['héllo', '', '-'], '-h-é-l-l-o-'],
      ['regex.find_n', ['', 'h😀é', -1], ['', '', '', '']],
      ['regex.find_all_string_submatch_n', ['(a)|b', 'abc', -1], [['a', 'a'], ['b', '']]],
      ['regex.template_match', ['urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}'], true],
      ['regex.globs_match', ['a.*', '.*b'], true],
      ['regex.globs_match', ['[0-9]+', '[a-z]+'], false],
      ['regex.is_valid', [1], false],
      // Go canonicalises Unicode class names
      ['regex.find_n', ['\\p{greek}+', 'abc αβγ', -1], ['αβγ']],
      ['regex.match', ['^\\p{Letter}\\pl$', 'xé'], true],
      ['regex.find_n', ['[\\P{ascii}]+', 'aé😀b', -1], ['é😀']],
    ];
    for (const [fn, args, want] of cases) {
      it(`${fn}(${args.map((a) => JSON.stringify(a)).join(', ')}) is ${JSON.stringify(want)}`, () => {
        expect(toJSON(call(fn, ...args.map((a) => j(a)))!)).toEqual(want);
      });
    }
  });

  describe('when the pattern is malformed', () => {
    const cases: [string, unknown[], string][] = [
      ['regex.match', ['a\\', ''], 'regex.match: error parsing regexp: trailing backslash at end of expression: ``'],
      ['regex.match', ['(\\p{Old_Italic}', ''], 'regex.match: error parsing regexp: invalid character class range: `\\p{Old_Italic}`'],
      ['regex.template_match', ['a{b', 'ab', '{', '}'], 'regex.template_match: unbalanced braces in "a{b"'],
      ['regex.template_match', ['{(}', 'ab', '{', '}'], 'regex.template_match: error parsing regexp: missing closing ): `^($`'],
      ['regex.template_match', ['{a}', 'a', 'é', '}'], 'regex.template_match: start delimiter has to be exactly one character long but is 2 long'],
      ['glob.match', ['[a-cx]', j([]), 'a'], 'glob.match: glob: syntax error at 5: expected close range character'],
      ['glob.match', ['ab{c', j([]), 'a'], 'glob.match: glob: syntax error at 4: unclosed `{`'],
      ['glob.match', ['a\\', j([]), 'a'], 'glob.match: glob: syntax error at 2: trailing backslash'],
      // in a class the library's next read overwrites its trailing-backslash error
      ['glob.match', ['-[\\{\\', j(['.']), ''], 'glob.match: glob: syntax error at 5: unexpected end of input'],
      ['glob.match', ['a', j(['ab']), 'a'], 'glob.match: operand 2 must be array of runes but got array containing string'],
      ['regex.globs_match', ['a]', 'a'], "regex.globs_match: input:a], pos:2, set-close ']' with no preceding '[': the input provided is invalid"],
    ];
    for (const [fn, args, want] of cases) {
      it(`${fn} says ${want}`, () => {
        expect(message(() => call(fn, ...args.map((a) => j(a))))).toBe(want);
      });
    }
  });
});

describe('lib/re2.ts', () => {
  it('matches a quoted string exactly where it occurs', () => {
    fc.assert(fc.property(UNICODE, UNICODE, (needle, hay) => matchString(compileRegexp(quoteMeta(needle)), hay) === hay.includes(needle)));
  });

  it('splits and replaces a quoted string as String.split and split/join do', () => {
    fc.assert(
      fc.property(UNICODE.filter((s) => s !== ''), UNICODE, fc.stringMatching(/^[a-z-]{0,3}$/), (needle, hay, repl) => {
        const re = compileRegexp(quoteMeta(needle));
        expect(splitString(re, hay)).toEqual(hay.split(needle));
        expect(replaceAllString(re, hay, repl)).toBe(hay.split(needle).join(repl));
        expect(findAllString(re, hay, -1)).toHaveLength(hay.split(needle).length - 1);
      }),
    );
  });

  it('returns the cached program for a pattern seen before', () => {
    expect(compileRegexp('^a+(?P<n>b)$')).toBe(compileRegexp('^a+(?P<n>b)$'));
  });
});

describe('lib/glob.ts and lib/glob-intersection.ts', () => {
  const escapeIntersect = (s: string) => s.replace(/[.[\]+*\\]/g, '\\$&');

  it('a quoted glob matches exactly its own text', () => {
    fc.assert(fc.property(UNICODE, UNICODE, (a, b) => globMatch(globQuoteMeta(a), [], b) === (a === b)));
  });

  it('two escaped literals intersect exactly when they are equal', () => {
    fc.assert(fc.property(UNICODE, UNICODE, (a, b) => globsIntersect(escapeIntersect(a), escapeIntersect(b)) === (a === b)));
  });
});
