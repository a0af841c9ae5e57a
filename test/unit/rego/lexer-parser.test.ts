import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tokenize } from '../../../src/rego/lexer.ts';
import { parseModule, parseQuery } from '../../../src/rego/parser.ts';
import { RegoError } from '../../../src/rego/errors.ts';
import { valueEquals } from '../../../src/rego/value.ts';
import { parseNumber } from '../../../src/rego/number-value.ts';
import { regoError } from './helpers.ts';

describe('lexer', () => {
  it('reads back any string written with JSON escapes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const toks = tokenize(JSON.stringify(s), 'f');
        expect(toks[0]?.type).toBe('string');
        expect(toks[0]?.text).toBe(s);
        expect(toks[1]?.type).toBe('eof');
      }),
    );
  });

  it('reads raw strings verbatim, including backslashes and newlines', () => {
    fc.assert(
      fc.property(fc.string().filter((s) => !s.includes('`')), (s) => {
        const toks = tokenize('`' + s + '`', 'f');
        expect(toks[0]?.text).toBe(s);
        expect(toks[0]?.raw).toBe(true);
      }),
    );
  });

  it('tokenizes numbers with their exact text', () => {
    const num = fc
      .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.option(fc.nat(), { nil: undefined }), fc.option(fc.integer({ min: -50, max: 50 }), { nil: undefined }))
      .map(([i, f, e]) => `${i}${f === undefined ? '' : `.${f}`}${e === undefined ? '' : `e${e}`}`);
    fc.assert(
      fc.property(num, (text) => {
        const toks = tokenize(`x := ${text}`, 'f');
        expect(toks[2]).toMatchObject({ type: 'number', text });
        expect(parseNumber(text)).not.toBeUndefined();
      }),
    );
  });

  it('reports line and column of a bad token', () => {
    const e = regoError(() => tokenize('package p\n\nx := "abc', 'm.rego'));
    expect(e.regoCode).toBe('rego_parse_error');
    expect(e.at[0]).toMatchObject({ file: 'm.rego', line: 3, col: 6 });
  });

  it('skips comments and tracks newlines', () => {
    const toks = tokenize('a # comment\nb', 'f');
    expect(toks.map((t) => [t.text, t.nl])).toEqual([
      ['a', false],
      ['b', true],
      ['', true],
    ]);
  });
});

describe('parser', () => {
  it('parses v1 rule forms', () => {
    const m = parseModule(
      `package a.b
import rego.v1
default allow := false
allow if input.x == 1
s contains x if some x in [1, 2]
o[k] := v if { some k, v in {"a": 1} }
f(x) := x + 1
p.q.r := 3
g(x) := 1 if x > 0 else := 2
`,
      'm.rego',
    );
    expect(m.pkg).toEqual(['data', 'a', 'b']);
    expect(m.rules.map((r) => r.kind)).toEqual(['value', 'value', 'multi', 'value', 'func', 'value', 'func']);
    expect(m.rules[6]?.elses.length).toBe(1);
  });

  it('requires `if` before a rule body in v1 and accepts v0 bodies on request', () => {
    const e = regoError(() => parseModule('package p\nallow { true }', 'm.rego'));
    expect(e.regoCode).toBe('rego_parse_error');
    expect(e.at[0]?.line).toBe(2);
    const m = parseModule('package p\nallow { true }\ns[x] { x := 1 }', 'm.rego', 'v0');
    expect(m.rules.map((r) => r.kind)).toEqual(['value', 'multi']);
    // import rego.v1 turns v1 rules on in a v0 module
    expect(() => parseModule('package p\nimport rego.v1\nallow { true }', 'm.rego', 'v0')).toThrow(RegoError);
  });

  it('parses operators with OPA precedence', () => {
    const [lit] = parseQuery('x := 1 + 2 * 3 == 7');
    const e = lit?.expr;
    expect(e?.kind).toBe('assign');
    if (e?.kind !== 'assign') return;
    expect(e.right).toMatchObject({ type: 'call', name: 'equal' });
  });

  it('folds constant composites and tells comprehensions from set unions', () => {
    const [a] = parseQuery('x := [1, {"a": {2}}]');
    if (a?.expr.kind !== 'assign') throw new Error('expected assign');
    expect(a.expr.right.type).toBe('value');
    const [b] = parseQuery('x := [y | y := 1]');
    if (b?.expr.kind !== 'assign') throw new Error('expected assign');
    expect(b.expr.right.type).toBe('arraycompr');
    const [c] = parseQuery('x := [a | b, 5]');
    if (c?.expr.kind !== 'assign') throw new Error('expected assign');
    expect(c.expr.right.type).toBe('array');
  });

  it('reads negative literals and big numbers exactly', () => {
    const [a] = parseQuery('x := -12345678901234567890123');
    if (a?.expr.kind !== 'assign' || a.expr.right.type !== 'value') throw new Error('expected value');
    expect(valueEquals(a.expr.right.value, -12345678901234567890123n)).toBe(true);
  });

  it('reports unexpected tokens with file, line and column', () => {
    const e = regoError(() => parseModule('package p\n\np := 1 +', 'x.rego'));
    expect(e.message).toMatch(/^x\.rego:3: rego_parse_error:/);
  });
});
