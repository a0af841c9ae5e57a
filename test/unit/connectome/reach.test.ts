import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { allPaths, buildGraph, dominates, mandatoryPass, nodeFromIdentity, reachable, reachableWithout, type ConnectomeEdge } from '../../../src/connectome/index.ts';

const t = (n: string): string => `srv/tool/${n}`;
const gate = (bypass: boolean) => {
  const nodes = [nodeFromIdentity({ tag: 'server', server: 'srv' }), ...['a', 'b', 'g', 'x'].map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }))];
  const e = (f: string, to: string): ConnectomeEdge => ({ from: f, to, kind: 'invoke', provenance: 'declared', sign: 'unset' });
  const edges = [e('srv/server', t('a')), e('srv/server', t('b')), e(t('a'), t('g')), e(t('b'), t('g')), e(t('g'), t('x'))];
  if (bypass) edges.push(e(t('a'), t('x')));
  return buildGraph({ nodes, edges });
};

describe('reachability: the worked example', () => {
  it('answers the gate fixture', () => {
    const g = gate(false);
    expect(reachable(g, 'srv/server', t('x'))).toBe(true);
    expect(dominates(g, t('g'), t('x'))).toBe(true);
    expect(reachableWithout(g, 'srv/server', t('x'), [t('g')])).toBe(false);
    expect([...mandatoryPass(g, t('x'))].sort()).toEqual(['srv/server', t('g')]);
    expect(dominates(g, t('a'), t('x'))).toBe(false);
  });
  it('answers with the bypass', () => {
    const g = gate(true);
    const w = reachableWithout(g, 'srv/server', t('x'), [t('g')]);
    expect(w && w.nodes).toEqual(['srv/server', t('a'), t('x')]);
    expect(w && w.edges.map((e) => [e.from, e.to])).toEqual([['srv/server', t('a')], [t('a'), t('x')]]);
    expect(dominates(g, t('g'), t('x'))).toBe(false);
    expect([...mandatoryPass(g, t('x'))]).toEqual(['srv/server']);
  });
  it('honours maxHops and kinds', () => {
    const g = gate(false);
    expect(reachable(g, 'srv/server', t('x'), { maxHops: 2 })).toBe(false);
    expect(reachable(g, 'srv/server', t('x'), { maxHops: 3 })).toBe(true);
    expect(reachable(g, 'srv/server', t('x'), { kinds: ['read'] })).toBe(false);
    expect(reachable(g, t('x'), t('x'))).toBe(true);
  });
});

describe('reachability refusals', () => {
  const g = gate(false);
  const code = { code: 'REACH_REFUSED' };
  it('refuses all_paths, always', () => expect(() => allPaths()).toThrowError(expect.objectContaining(code)));
  it('refuses an option the question cannot use', () => expect(() => dominates(g, t('g'), t('x'), { maxHops: 2 } as never)).toThrowError(expect.objectContaining(code)));
  it('refuses a kind outside the vocabulary', () => expect(() => reachable(g, 'srv/server', t('x'), { kinds: ['call' as never] })).toThrowError(expect.objectContaining(code)));
  it('refuses an unknown node', () => expect(() => reachable(g, 'srv/server', t('nope'))).toThrowError(/srv\/tool\/nope/));
  it('refuses an unknown entry as an option fault', () => expect(() => mandatoryPass(g, t('x'), { entries: ['zzz'] })).toThrowError(/zzz/));
  it('refuses an unreachable target for dominance', () => expect(() => dominates(g, t('g'), 'srv/server', { entries: [t('x')] })).toThrowError(/unreachable/));
  it('refuses a graph over the edge cap before checking it', () => {
    expect(() => reachable({ nodes: [], edges: [{}, {}] as never }, 'a', 'b', { maxEdges: 1 })).toThrowError(/cap/);
  });
  it('refuses a graph the check refuses', () => {
    const bad = { nodes: [nodeFromIdentity({ tag: 'server', server: 's' })], edges: [{ from: 's/server', to: 'ghost', kind: 'invoke' as const, provenance: 'declared' as const, sign: 'unset' as const }] };
    expect(() => reachable(bad, 's/server', 's/server')).toThrowError(/invalid graph/);
  });
});

describe('reachability properties', () => {
  const graphs = fc
    .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.tuple(fc.nat(8), fc.nat(8)), { maxLength: 30 }))
    .map(([n, pairs]) => {
      const nodes = [nodeFromIdentity({ tag: 'server', server: 's' }), ...Array.from({ length: n }, (_, i) => nodeFromIdentity({ tag: 'tool', server: 's', name: String(i) }))];
      const ids = nodes.map((x) => x.id);
      const seen = new Set<string>();
      const edges: ConnectomeEdge[] = [];
      for (const [a, b] of pairs) {
        const from = ids[a % ids.length]!;
        const to = ids[b % ids.length]!;
        if (seen.has(`${from}>${to}`)) continue;
        seen.add(`${from}>${to}`);
        edges.push({ from, to, kind: 'invoke', provenance: 'declared', sign: 'unset' });
      }
      return buildGraph({ nodes, edges });
    });
  it('holds dominates (two searches) and mandatoryPass (Lengauer-Tarjan) to each other', () => {
    fc.assert(
      fc.property(graphs, (g) => {
        for (const target of g.nodes) {
          if (!reachable(g, 's/server', target.id)) continue;
          const doms = mandatoryPass(g, target.id);
          for (const gate of g.nodes) {
            if (gate.id === target.id) continue;
            expect(dominates(g, gate.id, target.id), `${gate.id} dom ${target.id}`).toBe(doms.has(gate.id));
          }
        }
      }),
      { numRuns: 200 },
    );
  });
  it('returns witnesses made of the graph\'s edges that avoid the gates', () => {
    fc.assert(
      fc.property(graphs, fc.nat(9), fc.nat(9), (g, ti, gi) => {
        const to = g.nodes[ti % g.nodes.length]!.id;
        const gateId = g.nodes[gi % g.nodes.length]!.id;
        const w = reachableWithout(g, 's/server', to, [gateId]);
        if (w === false) return;
        expect(w.edges.length).toBe(w.nodes.length - 1);
        expect(w.nodes).not.toContain(gateId);
        w.edges.forEach((e, i) => {
          expect(g.edges).toContain(e);
          expect([e.from, e.to]).toEqual([w.nodes[i], w.nodes[i + 1]]);
        });
      }),
      { numRuns: 300 },
    );
  });
});
