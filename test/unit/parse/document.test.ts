import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dump } from 'js-yaml';
import { parseText } from '../../../src/parse/document.ts';
import { scrubUri } from '../../../src/governance/provenance.ts';

// JSON values with plain-object keys. Values are compared after a JSON round trip, which writes
// -0 as 0 (so does JSON text itself): the sign of zero is not what these tests are about.
const jsonValue = fc.jsonValue().filter((v) => !JSON.stringify(v).includes('__proto__'));
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('parseText', () => {
  it('reads back any JSON value written as JSON', () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        expect(plain(parseText('x.json', JSON.stringify(v)).value)).toEqual(plain(v));
      }),
      { examples: [[{ '': -0 }]] }, // once found by fast-check in CI
    );
  });

  it('reads back any JSON value written as YAML', () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        expect(plain(parseText('x.yaml', dump(v)).value)).toEqual(plain(v));
      }),
    );
  });

  it('locates a path at its line and column in YAML and JSON', () => {
    const y = parseText('g.yaml', 'a:\n  b:\n    - x\n    - {c: 1}\n');
    expect(y.locate(['a', 'b', 1, 'c'])).toEqual({ file: 'g.yaml', line: 4, col: 11, path: '/a/b/1/c' });
    expect(y.locate(['a', 'b', 1, 'c'], 'key')).toEqual({ file: 'g.yaml', line: 4, col: 8, path: '/a/b/1/c' });
    const j = parseText('c.json', '{\n  "servers": [\n    {"name": "s"}\n  ]\n}');
    expect(j.locate(['servers', 0, 'name'])).toMatchObject({ line: 3, col: 14 });
    // a path that does not exist is located at its deepest existing ancestor
    expect(j.locate(['servers', 0, 'tools', 3])).toMatchObject({ line: 3, col: 5 });
  });

  it('keeps YAML 1.2 core scalars: yes/no and dates stay strings', () => {
    expect(parseText('a.yaml', 'a: yes\nb: 2026-01-01\nc: 0x1F\n').value).toEqual({ a: 'yes', b: '2026-01-01', c: 31 });
  });

  it('accepts legitimate anchors but refuses exponential alias expansion', () => {
    const ok = 'p: &p {source: inferred, confidence: high}\ngrants:\n' + Array.from({ length: 50 }, (_, i) => `  - {agent: a, tool: "s::t${i}", provenance: *p}`).join('\n');
    expect(() => parseText('ok.yaml', ok)).not.toThrow();
    let bomb = 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
    for (let i = 1; i < 8; i++) bomb += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(', ')}]\n`;
    expect(() => parseText('bomb.yaml', bomb)).toThrowError(expect.objectContaining({ code: 'PARSE_ERROR' }));
  });
});

describe('scrubUri', () => {
  it('drops userinfo, query and fragment and keeps the rest', () => {
    expect(scrubUri('https://user:pw@example.com:8443/a/b?token=x#f')).toBe('https://example.com:8443/a/b');
    expect(scrubUri('file:///srv/app/.env')).toBe('file:///srv/app/.env');
    expect(scrubUri('memory:operator:project')).toBe('memory:operator:project');
    expect(scrubUri('not a uri')).toBe('not a uri');
  });

  it('never leaves a secret from userinfo or the query in the result', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), fc.stringMatching(/^[A-Za-z0-9]{12,20}$/), (url, secret) => {
        const withUser = url.replace('://', `://alice:${secret}@`);
        const withQuery = `${url.split('?')[0]!.split('#')[0]}?key=${secret}`;
        expect(scrubUri(withUser)).not.toContain(secret);
        expect(scrubUri(withQuery)).not.toContain(secret);
      }),
      { numRuns: 40 }, // webUrl generation is slow; 40 runs keep this under a second
    );
  });
});
