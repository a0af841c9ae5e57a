import { describe, expect, it } from 'vitest';
import { SetValue, valueEquals } from '../../../../src/rego/value.ts';
import { BuiltinError, lookupBuiltin } from '../../../../src/rego/builtins/registry.ts';
import { call, j, rel } from './call.ts';

const eq = (name: string, args: unknown[], want: unknown): void => {
  expect(valueEquals(call(name, ...args.map((x) => j(x)))!, j(want))).toBe(true);
};

describe('numbers, aggregates, bits', () => {
  it.each([
    ['round', [-2.5], -3],
    ['ceil', [1.2], 2],
    ['floor', [-1.2], -2],
    ['abs', [-9223372036854775808n], 9223372036854775808n],
    ['numbers.range', [3, 1], [3, 2, 1]],
    ['numbers.range_step', [0, 10, 4], [0, 4, 8]],
    ['sum', [[18446744073709551617n, 1]], 18446744073709551618n],
    ['product', [[1.5, 2]], 3],
    ['max', [[1, 'a', null]], 'a'],
    ['count', ['héllo'], 5],
    // runes: a pair of surrogates is one, a lone one is one too (as Array.from counts them)
    ['count', ['a\u{1f600}b\ud800c\udc00'], 6],
    ['strings.count', ['a\u{1f600}b', ''], 4],
    ['sort', [[3, 1, 2]], [1, 2, 3]],
    ['bits.and', [5, 3], 1],
    ['bits.negate', [5], -6],
    ['bits.lsh', [1, 70], 2n ** 70n],
  ] as const)('%s(%s)', (name, args, want) => eq(name, [...args], want));

  it('is undefined for max of an empty collection', () => {
    expect(call('max', [])).toBeUndefined();
  });
});

describe('units, semver, glob, regex', () => {
  it.each([
    ['units.parse', ['1.1Ki'], 1126.4],
    ['units.parse', ['100m'], 0.1],
    ['units.parse', ['10Ei'], 11529215046068469760n],
    ['units.parse', ['"100TI"'], 109951162777600],
    ['units.parse_bytes', ['1.1KiB'], 1126],
    ['units.parse_bytes', ['4.5e1GiB'], 48318382080],
    ['units.parse_bytes', ['1e-2KB'], 10],
    ['units.parse_bytes', ['5E'], 5000000000000000000n],
    ['semver.compare', ['1.2.3-0', '1.2.3-1'], -1],
    ['semver.compare', ['1.2.3+01', '1.2.3+2'], 0],
    ['semver.is_valid', ['1.1'], false],
    ['glob.match', ['*.github.com', [], 'api.cdn.github.com'], false],
    ['glob.match', ['api.**.com', [], 'api.cdn.github.com'], true],
    ['glob.match', ['{**/,}x', null, 'x'], true],
    ['glob.match', ['*?*', ['.', '/'], 'api.github.com'], false],
    ['glob.quote_meta', ['*.{a}'], '\\*.\\{a\\}'],
    ['regex.match', ['^[a-z]+\\[[0-9]+\\]$', 'foo[1]'], true],
    ['regex.find_n', ['a.', 'paranormal', -1], ['ar', 'an', 'al']],
    ['regex.split', ['^[a-z]+', 'foobar baz'], ['', ' baz']],
    ['regex.split', ['a', 'banana'], ['b', 'n', 'n', '']],
    ['regex.replace', ['-wy-wxxy-', 'w(x*)y', '0'], '-0-0-'],
    ['regex.replace', ['foo', '(foo)', '$1$1'], 'foofoo'],
    ['regex.find_all_string_submatch_n', ['a(x*)b', '-ab-axxb-', -1], [['ab', ''], ['axxb', 'xx']]],
  ] as const)('%s(%s)', (name, args, want) => eq(name, [...args], want));

  it('fails on malformed patterns and versions', () => {
    expect(() => call('regex.match', '[', 'x')).toThrow(BuiltinError);
    expect(call('regex.is_valid', '[')).toBe(false);
    expect(() => call('semver.compare', '1.02.3', '1.2.3')).toThrow('semver.compare: operand 1: string "1.02.3" is not a valid SemVer');
    expect(() => call('units.parse', '1 K')).toThrow('spaces not allowed');
  });
});

describe('objects and documents', () => {
  const doc = { a: { b: { c: 7, d: 8 } }, e: 9 };
  it.each([
    ['object.get', [{ a: { b: 'c' } }, ['a', 'b'], 'd'], 'c'],
    ['object.get', [{ a: [1, 2] }, ['a', 1], 'd'], 2],
    ['object.get', [{ a: 1 }, ['x'], 'd'], 'd'],
    ['object.remove', [{ a: 1, b: 2 }, ['a']], { b: 2 }],
    ['object.filter', [{ a: 1, b: 2 }, { a: 0 }], { a: 1 }],
    ['object.union', [{ a: { b: 1, c: 2 } }, { a: { b: 3 } }], { a: { b: 3, c: 2 } }],
    ['object.union_n', [[{ a: { b: 2 } }, { a: 4 }, { a: { c: 3 } }]], { a: { c: 3 } }],
    ['object.subset', [{ a: [1, 2, 3], b: 1 }, { a: [2, 3] }], true],
    ['json.filter', [doc, ['a/b/c', 'e']], { a: { b: { c: 7 } }, e: 9 }],
    ['json.remove', [doc, ['a/b/c', 'e']], { a: { b: { d: 8 } } }],
    ['json.patch', [{ a: [1, 2] }, [{ op: 'add', path: '/a/-', value: 3 }, { op: 'replace', path: '/a/0', value: 0 }]], { a: [0, 2, 3] }],
    ['json.patch', [{ a: 1 }, [{ op: 'move', from: '/a', path: '/b' }, { op: 'copy', from: '/b', path: '/c' }]], { b: 1, c: 1 }],
    ['array.slice', [[1, 2, 3, 4], 1, 3], [2, 3]],
    ['array.flatten', [[1, [2, [3]]]], [1, 2, [3]]],
    ['graph.reachable', [{ a: ['b'], b: ['c'], c: [] }, ['a']], ['a', 'b', 'c']],
    ['to_number', ['-1.5e2'], -150],
    ['type_name', [{}], 'object'],
    ['net.cidr_contains', ['10.0.0.0/8', '10.1.0.0/24'], true],
    ['net.cidr_contains', ['2001:4860:4860::8888/32', '2001:4860:4860:1234::8888/40'], true],
    ['net.cidr_intersects', ['192.168.0.0/16', '10.0.0.0/8'], false],
  ] as const)('%s(%s)', (name, args, want) => {
    const got = call(name, ...args.map((x) => j(x)))!;
    const w = name === 'graph.reachable' ? new SetValue([...(want as readonly string[])]) : j(want);
    expect(valueEquals(got, w)).toBe(true);
  });

  it('makes a failing patch undefined', () => {
    expect(call('json.patch', j({ a: 1 }), j([{ op: 'test', path: '/a', value: 2 }]))).toBeUndefined();
    expect(call('json.patch', j({ a: 1 }), j([{ op: 'remove', path: '/x' }]))).toBeUndefined();
  });

  it('walks every node with its path', () => {
    const got = rel('walk', j({ a: [1] }));
    expect(got.map((x) => JSON.stringify(j(x)))).toHaveLength(3);
    expect(valueEquals(got[2]!, j([['a', 0], 1]))).toBe(true);
  });

  it('merges CIDRs and refuses invalid ones', () => {
    expect(valueEquals(call('net.cidr_merge', j(['192.0.128.0/24', '192.0.129.0/24']))!, new SetValue(['192.0.128.0/23']))).toBe(true);
    expect(() => call('net.cidr_contains', 'x', '1.2.3.4')).toThrow('invalid CIDR address');
  });
});

describe('uuid, crypto, refused builtins', () => {
  it('parses version 1 and 2 UUIDs as Go does', () => {
    eq('uuid.parse', ['000003e8-48b9-21ee-b200-325096b39f47'], {
      clocksequence: 12800, domain: 'Person', id: 1000, macvariables: 'local:unicast',
      nodeid: '32-50-96-b3-9f-47', time: 1693566990121469600n, variant: 'RFC4122', version: 2,
    });
    eq('uuid.parse', ['00000000-0000-4000-8000-000000000000'], { variant: 'RFC4122', version: 4 });
    expect(call('uuid.parse', 'nope')).toBeUndefined();
  });

  it('hashes like node:crypto', () => {
    expect(call('crypto.sha256', '')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(call('crypto.hmac.sha256', 'msg', 'key')).toBe('2d93cbc1be167bcb1637a4a23cbff01a7878f0c50ee833954ea5221bb1b8c628');
  });

  it('knows refused builtins by name and refuses them with a halting error', () => {
    for (const name of ['http.send', 'net.lookup_ip_addr']) {
      const def = lookupBuiltin(name);
      expect(def).toBeDefined();
      try {
        // a request OPA would send, a name it would look up (http.send checks its keys first, as OPA does)
        call(name, j(name === 'http.send' ? { method: 'get', url: 'http://x' } : 'example.com'), j({}));
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(BuiltinError);
        expect((e as BuiltinError).halt).toBe(true);
        expect((e as Error).message).toContain(name);
      }
    }
  });
});

describe('regressions from the conformance corpus', () => {
  it('restores a removed root with a later root add', () => {
    const ops = j([{ op: 'remove', path: '' }, { op: 'add', path: '', value: { b: 2 } }]);
    expect(valueEquals(call('json.patch', j({ a: 1 }), ops)!, j({ b: 2 }))).toBe(true);
    expect(call('json.patch', j({ a: 1 }), j([{ op: 'remove', path: '' }]))).toBeUndefined();
  });

  it('decodes version 6 and 7 UUID times', () => {
    eq('uuid.parse', ['1EC9414C-232A-6B00-B3C8-9E6BDECED846'], { variant: 'RFC4122', version: 6, time: 1645557742000000000n });
    eq('uuid.parse', ['017F22E2-79B0-7CC3-98C4-DC0C0C07398F'], { variant: 'RFC4122', version: 7, time: 1645557742000000000n });
  });

  it('replaces an empty key at every position, as Go strings.Replacer', () => {
    eq('strings.replace_n', [{ '': 'X', a: 'Y' }, 'ab'], 'XYXbX');
    eq('strings.replace_n', [{ '': 'X' }, ''], 'X');
  });
});

describe('opa.runtime', () => {
  it('answers an empty object, as OPA does without runtime information', () => {
    expect(valueEquals(call('opa.runtime')!, j({}))).toBe(true);
  });
});
