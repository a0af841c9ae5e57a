import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RE2JS } from 're2js';
import { parseTemplate } from 'url-template';
import { uriTemplatePattern } from '../../../src/compile/uri-template-pattern.ts';
import { ToolgateError } from '../../../src/errors.ts';

// RE2 (what regex.match runs in OPA and in the builtin engine), not JavaScript's RegExp.
const matches = (template: string, uri: string) => RE2JS.compile(uriTemplatePattern(template)).matches(uri);

const OPS = ['', '+', '#', '.', '/', ';', '?', '&'] as const;
const literal = fc.stringMatching(/^[a-z0-9:/._-]{0,6}$/);
const varName = fc.stringMatching(/^[a-z][a-z0-9_]{0,4}$/);
const expression = fc.record({
  op: fc.constantFrom(...OPS),
  vars: fc.uniqueArray(fc.record({ name: varName, explode: fc.boolean() }), { minLength: 1, maxLength: 3, selector: (v) => v.name }),
});
const value = fc.oneof(
  fc.constant(undefined),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }),
  fc.dictionary(fc.stringMatching(/^[a-z]{1,3}$/), fc.string({ maxLength: 4 }), { maxKeys: 3 }),
);

describe('uriTemplatePattern', () => {
  it('matches every expansion url-template produces (levels 1-4, any values, undefined included)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(literal, expression), { minLength: 1, maxLength: 3 }), literal, fc.dictionary(varName, value), (parts, tail, vars) => {
        const template = parts.map(([lit, e]) => `${lit}{${e.op}${e.vars.map((v) => v.name + (v.explode ? '*' : '')).join(',')}}`).join('') + tail;
        const defined = Object.fromEntries(Object.entries(vars).filter(([, v]) => v !== undefined)) as Record<string, string>;
        const uri = parseTemplate(template).expand(defined);
        expect(matches(template, uri), `${template} -> ${uri}`).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("matches a reserved expansion's stray % as url-template writes it", () => {
    for (const t of ['{#a}', 'file:///{+a}']) expect(matches(t, parseTemplate(t).expand({ a: ['x%0'] })), t).toBe(true);
    expect(matches('{a}', '%0')).toBe(false);
  });

  it('never matches a URI whose literal text differs from the template', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 8 }), (seg, v) => {
        const uri = parseTemplate(`file:///srv/app/{path}`).expand({ path: v });
        expect(matches(`file:///srv/${seg}x/{path}`, uri)).toBe(false);
      }),
    );
  });

  it('keeps a simple expression inside one path segment: a raw "/" is not a value character', () => {
    expect(matches('file:///srv/app/{path}', 'file:///srv/app/.env')).toBe(true);
    expect(matches('file:///srv/app/{path}', 'file:///srv/app/a%2Fb')).toBe(true);
    expect(matches('file:///srv/app/{path}', 'file:///srv/app/a/b')).toBe(false);
    expect(matches('file:///srv/app/{+path}', 'file:///srv/app/a/b')).toBe(true);
    expect(matches('file:///srv/app{/seg*}', 'file:///srv/app/a/b')).toBe(true);
    expect(matches('file:///srv/app{/seg}', 'file:///srv/app/a/b')).toBe(false);
    expect(matches('demo://r{?x,y}', 'demo://r?y=1')).toBe(true);
    expect(matches('demo://r{?x,y}', 'demo://r?z=1')).toBe(false);
  });

  it('treats regex metacharacters in literal text as literals', () => {
    expect(matches('a.b(c)/{x}', 'a.b(c)/1')).toBe(true);
    expect(matches('a.b(c)/{x}', 'aXb(c)/1')).toBe(false);
  });

  it.each(['file:///{path', 'file:///path}', 'x://{!y}', 'x://{a b}', 'x://{}'])('refuses the malformed template %s with CATALOG_INVALID', (t) => {
    try {
      uriTemplatePattern(t);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ToolgateError);
      expect((e as ToolgateError).code).toBe('CATALOG_INVALID');
    }
  });
});
