import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { nodeId, type Identity } from '../../../src/connectome/index.ts';

describe('nodeId', () => {
  describe('the vocabulary page examples', () => {
    const cases: [Identity, string][] = [
      [{ tag: 'server', server: 'srv' }, 'srv/server'],
      [{ tag: 'tool', server: 'srv', name: '\u00e9cho' }, 'srv/tool/\u00e9cho'],
      [{ tag: 'resource', server: 'srv', name: 'r://a' }, 'srv/resource/r:%2F%2Fa'],
      [{ tag: 'prompt', server: 'a/b', name: 'p%' }, 'a%2Fb/prompt/p%25'],
      [{ tag: 'process', server: 'srv', name: 'worker' }, 'srv/process/worker'],
      [{ tag: 'module', server: 'srv', module: 'Elixir.Foo.Bar' }, 'srv/module/Foo.Bar'],
      [{ tag: 'module', server: 'srv', module: 'erl_mod' }, 'srv/module/:erl_mod'],
      [{ tag: 'module', server: 'srv', module: 'has space' }, 'srv/module/:"has space"'],
      [{ tag: 'mfa', server: 'srv', module: 'Elixir.Foo.Bar', function: 'run', arity: 2 }, 'srv/module/Foo.Bar/run/2'],
      [{ tag: 'boundary', server: 'srv', source: 'application', name: 'beam_mcp' }, 'srv/boundary/application/beam_mcp'],
      [{ tag: 'boundary', server: 'srv', source: 'boundary_module', name: 'Elixir.Foo' }, 'srv/boundary/boundary_module/Foo'],
    ];
    for (const [identity, id] of cases) it(`writes ${id}`, () => expect(nodeId(identity)).toBe(id));
  });

  it('covers resource_template and escapes % before /', () => {
    expect(nodeId({ tag: 'resource_template', server: 's', name: 'r://{x}/%2F' })).toBe('s/resource_template/r:%2F%2F{x}%2F%252F');
  });

  it('does not normalise (NFC is the canonical form\'s job)', () => {
    expect(nodeId({ tag: 'tool', server: 's', name: 'e\u0301' })).toBe('s/tool/e\u0301');
  });

  it('refuses a malformed identity', () => {
    expect(() => nodeId({ tag: 'mfa', server: 's', module: 'm', function: 'f', arity: -1 })).toThrowError(expect.objectContaining({ code: 'GRAPH_INVALID' }));
    expect(() => nodeId({ tag: 'nope', server: 's' } as unknown as Identity)).toThrowError(expect.objectContaining({ code: 'GRAPH_INVALID' }));
  });

  it('is injective over generated identities', () => {
    const s = fc.string({ unit: fc.constantFrom('a', 'B', '/', '%', '2', 'F', '.', ' ', '"', ':', 'Elixir.', '\u00e9') });
    const identity: fc.Arbitrary<Identity> = fc.oneof(
      fc.record({ tag: fc.constant('server' as const), server: s }),
      fc.record({ tag: fc.constantFrom('tool' as const, 'resource' as const, 'resource_template' as const, 'prompt' as const, 'process' as const), server: s, name: s }),
      fc.record({ tag: fc.constant('module' as const), server: s, module: s }),
      fc.record({ tag: fc.constant('mfa' as const), server: s, module: s, function: s, arity: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ tag: fc.constant('boundary' as const), server: s, source: fc.constantFrom('application' as const, 'boundary_module' as const), name: s }),
    );
    const key = (i: Identity): string => JSON.stringify(Object.entries(i).sort());
    fc.assert(
      fc.property(identity, identity, (a, b) => {
        if (key(a) !== key(b)) expect(nodeId(a)).not.toBe(nodeId(b));
        else expect(nodeId(a)).toBe(nodeId(b));
      }),
      { numRuns: 3000 },
    );
  });
});
