/** The data paths a module may read, and which modules a query reaches through them. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseModule } from '../../../src/rego/parser.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { depsAmong, moduleDataDeps, reachableModules, reachableRules } from '../../../src/rego/module-deps.ts';

const deps = (text: string) => moduleDataDeps(parseModule(text, 'm.rego', 'v1'));

describe('moduleDataDeps', () => {
  it('reads data imports, the constant prefix of data refs, data calls and with targets', () => {
    const d = deps(`package a.b
import data.x.y as z
p := data.q.r[input.k].s if { z.f(1); data.lib.g(2) }
w if { p with data.t.u as 1 }`);
    for (const want of [['x', 'y'], ['q', 'r'], ['lib', 'g'], ['t', 'u']]) expect(d).toContainEqual(want);
    expect(d).not.toContainEqual([]);
  });

  it('every other name it uses, under its own package: rules, sub-packages, calls (and harmlessly, locals)', () => {
    const d = deps('package a.b\np if { h(3); sub.q; v := 1; v }');
    for (const want of [['a', 'b', 'p'], ['a', 'b', 'h'], ['a', 'b', 'sub', 'q'], ['a', 'b', 'v']]) expect(d).toContainEqual(want);
    expect(d.filter((x) => x[0] !== 'a')).toEqual([]);
  });

  it('a bare data, or a ref dynamic from its first key, reads the whole of data', () => {
    expect(deps('package a\np if { some k in data }')).toContainEqual([]);
    expect(deps('package a\np if { d := data; d.x }')).toContainEqual([]);
    expect(deps('package a\np if { data[input.k] }')).toContainEqual([]);
    expect(deps('package a\np if { data.m[input.k] }')).not.toContainEqual([]);
  });

  it('inside else branches and comprehensions too', () => {
    expect(deps('package a\np := 1 if { false } else := x if { x := [v | v := data.m[_]] }')).toContainEqual(['m']);
  });
});

describe('reachableModules', () => {
  const mods = [
    { pkg: ['toolgate', 'authz'], deps: [['toolgate', 'agents'], ['toolgate', 'lib', 'f'], ['toolgate', 'authz', 'x']] },
    { pkg: ['toolgate', 'lib'], deps: [['toolgate', 'helpers'], ['toolgate', 'lib', 'f']] },
    { pkg: ['toolgate', 'helpers', 'deep'], deps: [] },
    { pkg: ['toolgate', 'gateways', 'core'], deps: [['toolgate', 'authz']] },
    { pkg: ['toolgate'], deps: [['toolgate', 'y']] },
    { pkg: ['toolgate', 'authz', 'x', 'sub'], deps: [] },
  ];

  it('follows the paths each reached module reads, prefixes both ways, and not the modules that read it', () => {
    expect(reachableModules(mods, ['toolgate', 'authz', 'decision'])).toEqual([true, true, true, false, true, true]);
  });

  it('a module reading the whole of data reaches every module', () => {
    expect(reachableModules([{ pkg: ['a'], deps: [[]] }, { pkg: ['b'], deps: [] }], ['a', 'p'])).toEqual([true, true]);
  });
});

describe('depsAmong', () => {
  const seg = fc.constantFrom('a', 'b', 'c');
  const path = fc.array(seg, { maxLength: 3 });
  const modules = fc.array(fc.record({ pkg: path, deps: fc.array(path, { maxLength: 6 }) }), { minLength: 1, maxLength: 6 });

  it('reaches from every entry what the full deps reach (property)', () => {
    fc.assert(
      fc.property(modules, path, (mods, entry) => {
        const cut = depsAmong(mods).map((deps, i) => ({ pkg: mods[i]!.pkg, deps }));
        expect(reachableModules(cut, entry)).toEqual(reachableModules(mods, entry));
      }),
      { numRuns: 500 },
    );
  });

  it('keeps one path per set of other modules it leads to, none that lead only to the module itself', () => {
    const cut = depsAmong([
      { pkg: ['t', 'authz'], deps: [['t', 'authz', 'x'], ['t', 'lib', 'f'], ['t', 'lib', 'g'], ['t', 'agents']] },
      { pkg: ['t', 'lib'], deps: [['t', 'lib', 'h']] },
    ]);
    expect(cut).toEqual([[['t', 'lib', 'f']], []]);
  });
});

describe('reachableRules', () => {
  const kept = (texts: string[], entry: string[]) => {
    const mods = texts.map((t, i) => parseModule(t, `m${i}.rego`, 'v1'));
    const keep = reachableRules(mods, entry);
    return mods.map((m, i) => m.rules.filter((_, j) => keep[i]![j]).map((r) => (r.ref[0] as { name: string }).name));
  };

  it("keeps of toolgate's authz.rego only what the decision reads", () => {
    const text = readFileSync(join(import.meta.dirname, '../../../rego/toolgate/authz.rego'), 'utf8');
    const [names] = kept([text], ['toolgate', 'authz', 'decision']);
    expect(new Set(names)).toEqual(new Set(['decision', 'allow', 'entry', 'reason', 'sign_reason', 'tool_signs']));
  });

  it('follows names, calls and data refs across modules, with every definition and default of a name', () => {
    const got = kept(
      [
        'package a\nimport data.lib\np if { q; lib.f(1) }\nq if { data.b.r }\ndefault q := false\nunused := 1',
        'package b\nr := data.lib.g(2)\ns := 3',
        'package lib\nf(x) := x\ng(x) := x if { x > 1 } else := 0\nh := 1',
      ],
      ['a', 'p'],
    );
    expect(got).toEqual([['p', 'q', 'q'], ['r'], ['f', 'g', 'h']]);
  });

  it('keeps everything a dynamic or whole read may reach', () => {
    expect(kept(['package a\np if { data.a[input.k] }\nq := 1', 'package b\nr := 1'], ['a', 'p'])).toEqual([['p', 'q'], []]);
    expect(kept(['package a\np if { data[input.k] }\nq := 1', 'package b\nr := 1'], ['a', 'p'])).toEqual([['p', 'q'], ['r']]);
    expect(kept(['package a\np := count(data)\nq := 1', 'package b\nr := 1'], ['a', 'p'])).toEqual([['p', 'q'], ['r']]);
    expect(kept(['package a\np[k] := 1 if { some k in ["x"] }\nq := 1'], ['a'])).toEqual([['p', 'q']]);
  });
});
