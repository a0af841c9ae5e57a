import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  buildGraph,
  checkGraph,
  decodeGraph,
  encodeGraph,
  encodeGraphText,
  graphFromJSON,
  nodeFromIdentity,
  type ConnectomeEdge,
  type ConnectomeNode,
  type GraphInput,
} from '../../../src/connectome/index.ts';
import { ToolgateError } from '../../../src/errors.ts';

const server = nodeFromIdentity({ tag: 'server', server: 'srv' });
const tool = (name: string, labels = {}): ConnectomeNode => nodeFromIdentity({ tag: 'tool', server: 'srv', name }, labels);
const edge = (to: string, over: Partial<ConnectomeEdge> = {}): ConnectomeEdge => ({ from: 'srv/server', to, kind: 'invoke', provenance: 'declared', sign: 'unset', ...over });

/** Expects a GRAPH_INVALID refusal whose message names `culprit`. */
function refused(input: GraphInput, culprit: string, code = 'GRAPH_INVALID'): void {
  try {
    buildGraph(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ToolgateError);
    expect((e as ToolgateError).code).toBe(code);
    expect((e as ToolgateError).message).toContain(culprit);
    return;
  }
  throw new Error('expected a refusal');
}

describe('buildGraph', () => {
  describe('when the input is outside the vocabulary', () => {
    it('refuses an unknown node kind, naming the node', () => refused({ nodes: [{ ...server, kind: 'agent' as never }], edges: [] }, 'srv/server'));
    it('refuses an unknown level', () => refused({ nodes: [{ ...server, level: 'cluster' as never }], edges: [] }, '"cluster"'));
    it('refuses an unknown sign, naming the edge', () => refused({ nodes: [server, tool('a')], edges: [edge('srv/tool/a', { sign: 'unknown' as never })] }, '"srv/server" -> "srv/tool/a"'));
    it('refuses an unknown provenance', () => refused({ nodes: [server, tool('a')], edges: [edge('srv/tool/a', { provenance: 'guessed' as never })] }, '"guessed"'));
    it('refuses an unknown edge kind', () => refused({ nodes: [server, tool('a')], edges: [edge('srv/tool/a', { kind: 'call' as never })] }, '"call"'));
    it('refuses a schema version other than 4', () => refused({ schemaVersion: 3, nodes: [], edges: [] }, 'schema_version 3'));
  });
  describe('when the structure is wrong', () => {
    it('refuses a dangling endpoint', () => refused({ nodes: [server], edges: [edge('srv/tool/ghost')] }, 'srv/tool/ghost'));
    it('refuses a duplicate edge identity', () => refused({ nodes: [server, tool('a')], edges: [edge('srv/tool/a'), edge('srv/tool/a', { sign: 'allow' })] }, 'appears twice'));
    it('refuses two ids that coincide after NFC', () => refused({ nodes: [tool('\u00e9'), tool('e\u0301')], edges: [] }, 'coincide after NFC'));
    it('refuses a node listed twice', () => refused({ nodes: [server, server], edges: [] }, 'appears twice'));
    it('refuses an id with a lone surrogate', () => refused({ nodes: [tool('\ud800')], edges: [] }, 'lone surrogate'));
    it('refuses a node whose id is not its identity\'s', () => refused({ nodes: [{ ...tool('a'), id: 'srv/tool/b' }], edges: [] }, 'srv/tool/b'));
    it('refuses an unknown node field', () => refused({ nodes: [{ ...server, weight: 1 } as never], edges: [] }, '"weight"'));
    it('refuses a negative weight', () => refused({ nodes: [server, tool('a')], edges: [edge('srv/tool/a', { weight: -1 })] }, 'weight'));
  });
  describe('when a label has no canonical bytes', () => {
    it('refuses a float, naming node, label and value', () => refused({ nodes: [tool('a', { score: { x: [1, 2.5] } })], edges: [] }, 'label "score"'));
    it('refuses a class instance', () => refused({ nodes: [tool('a', { when: new Date(0) as never })], edges: [] }, '"srv/tool/a"'));
    it('refuses label keys that coincide after NFC', () => refused({ nodes: [tool('a', { '\u00e9': 1, 'e\u0301': 2 })], edges: [] }, 'coincide after NFC'));
    it('refuses a lone surrogate in a value', () => refused({ nodes: [tool('a', { t: 'x\udc00' })], edges: [] }, 'label "t"'));
  });

  it('writes integers beyond 2^53 in full', () => {
    const g = buildGraph({ nodes: [tool('a', { big: 123456789012345678901234567890n, neg: -5 })], edges: [] });
    expect(encodeGraphText(g)).toContain('"labels":{"big":123456789012345678901234567890,"neg":-5}');
    expect(encodeGraphText(graphFromJSON(encodeGraph(g)))).toBe(encodeGraphText(g));
  });

  it('applies NFC to ids, endpoints and labels', () => {
    const g = buildGraph({ nodes: [server, tool('e\u0301', { 'A\u030a': 'e\u0301' })], edges: [edge('srv/tool/e\u0301')] });
    expect(encodeGraphText(g)).toContain('{"id":"srv/tool/\u00e9","kind":"tool","labels":{"\u00c5":"\u00e9"},"level":"server"}');
  });

  it('sorts by code point, not UTF-16 code unit', () => {
    const g = buildGraph({ nodes: [tool('\uff01'), tool('\u{1f600}')], edges: [] });
    expect(g.nodes.map((n) => n.id)).toEqual(['srv/tool/\uff01', 'srv/tool/\u{1f600}']);
  });

  it('checkGraph applies the same refusals to a graph assembled by hand', () => {
    expect(() => checkGraph({ nodes: [server], edges: [edge('srv/tool/x')] })).toThrowError(expect.objectContaining({ code: 'GRAPH_INVALID' }));
    expect(() => encodeGraph({ nodes: [server], edges: [edge('srv/tool/x')] })).toThrowError(expect.objectContaining({ code: 'GRAPH_INVALID' }));
  });

  it('has no sign setter: a built graph is frozen', () => {
    const g = buildGraph({ nodes: [server, tool('a')], edges: [edge('srv/tool/a')] });
    expect(() => {
      (g.edges[0] as { sign: string }).sign = 'deny';
    }).toThrow();
    const signed = buildGraph({ nodes: g.nodes, edges: g.edges.map((e) => ({ ...e, sign: 'deny' as const })) });
    expect(signed.edges[0]!.sign).toBe('deny');
  });

  it('refuses any other algorithm name before writing a byte', () => {
    expect(() => encodeGraph({ nodes: [], edges: [] }, { algorithm: 'md5' as never })).toThrowError(expect.objectContaining({ code: 'DIGEST_ALGORITHM_UNSUPPORTED' }));
  });

  it('gives bytes that do not depend on input order', () => {
    const names = fc.uniqueArray(fc.string({ unit: fc.constantFrom('a', 'b', '\u00e9', '\u{1f600}', '\uff01', '/', '%'), minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 });
    fc.assert(
      fc.property(names, fc.array(fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('invoke', 'read', 'message', 'supervise' as const)), { maxLength: 20 }), fc.integer(), (ns, es, seed) => {
        const nodes = [server, ...ns.map((n) => tool(n, { n, rank: n.length }))];
        const seen = new Set<string>();
        const edges: ConnectomeEdge[] = [];
        for (const [a, b, kind] of es) {
          const from = nodes[a % nodes.length]!.id;
          const to = nodes[b % nodes.length]!.id;
          if (seen.has(`${from}|${to}|${kind}`)) continue;
          seen.add(`${from}|${to}|${kind}`);
          edges.push({ from, to, kind: kind as ConnectomeEdge['kind'], provenance: 'declared', sign: 'unset' });
        }
        const shuffle = <T>(xs: T[]): T[] => xs.map((x, i) => [((i + 1) * (seed | 1)) % 7919, x] as const).sort((p, q) => p[0] - q[0]).map((p) => p[1]);
        const a = encodeGraphText({ nodes, edges });
        expect(encodeGraphText({ nodes: shuffle(nodes), edges: shuffle(edges) })).toBe(a);
        expect(encodeGraphText({ nodes: [...nodes].reverse(), edges: [...edges].reverse() })).toBe(a);
      }),
      { numRuns: 300 },
    );
  });

  // Many edges over few nodes take the linear (counting) sort rather than a comparison sort.
  it('orders a large graph by (from, to, kind, provenance) in code-point order, whatever the input order', () => {
    const ids = ['a', 'b', '\u00e9', 'e\u0301x', '\uff01', '\u{1f600}', '%2F', 'Z'];
    const nodes = [server, ...ids.map((n) => tool(n))];
    const kinds = ['invoke', 'read', 'message', 'supervise'] as const;
    const edges: ConnectomeEdge[] = [];
    for (const f of nodes) for (const t of nodes) for (const kind of kinds) for (const provenance of ['declared', 'observed'] as const) edges.push({ from: f.id, to: t.id, kind, provenance, sign: 'unset' });
    const cp = (s: string): number[] => [...s.normalize('NFC')].map((c) => c.codePointAt(0)!);
    const cmp = (a: number[], b: number[]): number => {
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
      return a.length - b.length;
    };
    const key = (e: ConnectomeEdge): number[][] => [cp(e.from), cp(e.to), cp(e.kind), cp(e.provenance)];
    const expected = [...edges].sort((x, y) => {
      const [p, q] = [key(x), key(y)];
      return cmp(p[0]!, q[0]!) || cmp(p[1]!, q[1]!) || cmp(p[2]!, q[2]!) || cmp(p[3]!, q[3]!);
    });
    let seed = 12345;
    const shuffled = [...edges];
    for (let i = shuffled.length - 1; i > 0; i--) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const j = seed % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    const g = buildGraph({ nodes: [...nodes].reverse(), edges: shuffled });
    expect(g.edges.length).toBe(edges.length);
    expect(g.edges.map((e) => `${e.from}|${e.to}|${e.kind}|${e.provenance}`)).toEqual(expected.map((e) => `${e.from.normalize('NFC')}|${e.to.normalize('NFC')}|${e.kind}|${e.provenance}`));
    expect(encodeGraphText({ nodes, edges: [...shuffled].reverse() })).toBe(encodeGraphText(g));
    // A repeated edge among many is still refused, by name.
    refused({ nodes, edges: [...shuffled, { ...shuffled[100]!, from: shuffled[100]!.from.normalize('NFD') }] }, `${JSON.stringify(shuffled[100]!.from.normalize('NFC'))} -> ${JSON.stringify(shuffled[100]!.to.normalize('NFC'))}`);
  });
});

describe('decodeGraph', () => {
  const good = '{"schema_version":4,"algorithm":"sha384","nodes":[{"id":"s/server","kind":"server","labels":{},"level":"server"}],"edges":[]}';
  it('reads any key order and spacing and reports the algorithm', () => {
    const d = decodeGraph(' {\n "nodes" : [ {"level":"server","labels":{},"kind":"server","id":"s/server"} ],\n "edges":[], "algorithm":"sha384", "schema_version":4 }');
    expect(d.algorithm).toBe('sha384');
    expect(encodeGraphText(d.graph, { algorithm: 'sha384' })).toBe(good);
  });
  const bad: [string, string, string][] = [
    ['version 2', good.replace(':4', ':2').replace('"algorithm":"sha384",', ''), 'GRAPH_INVALID'],
    ['version 3 without algorithm', good.replace(':4', ':3').replace('"algorithm":"sha384",', ''), 'GRAPH_INVALID'],
    ['an unknown algorithm', good.replace('sha384', 'sha1'), 'DIGEST_ALGORITHM_UNSUPPORTED'],
    ['an extra member', good.replace('"edges":[]', '"edges":[],"x":1'), 'GRAPH_INVALID'],
    ['an edge weight', '{"schema_version":4,"algorithm":"sha256","nodes":[{"id":"s","kind":"server","labels":{},"level":"server"}],"edges":[{"from":"s","to":"s","kind":"invoke","provenance":"declared","sign":"unset","weight":1}]}', 'GRAPH_INVALID'],
    ['a float label', good.replace('"labels":{}', '"labels":{"x":1.0}'), 'GRAPH_INVALID'],
    ['a duplicated key', good.replace('"labels":{}', '"labels":{"x":1,"x":2}'), 'PARSE_ERROR'],
    ['resource_template at version 3', good.replace(':4', ':3').replace('"kind":"server"', '"kind":"resource_template"'), 'GRAPH_INVALID'],
    ['invalid UTF-8', '', 'PARSE_ERROR'],
  ];
  for (const [what, text, code] of bad) {
    it(`refuses ${what}`, () => {
      const input = what === 'invalid UTF-8' ? new Uint8Array([0x7b, 0xc0, 0xaf, 0x7d]) : text;
      expect(() => decodeGraph(input)).toThrowError(expect.objectContaining({ code }));
    });
  }
  it('names the node or edge at fault, and where it is', () => {
    const at = (text: string) => {
      try {
        decodeGraph(text, { source: 'g.json' });
      } catch (e) {
        return { message: (e as ToolgateError).message, at: (e as ToolgateError).at };
      }
      throw new Error('not refused');
    };
    const weighted = '{"schema_version":4,"algorithm":"sha256","nodes":[{"id":"s","kind":"server","labels":{},"level":"server"}],"edges":[{"from":"s","to":"s","kind":"invoke","provenance":"declared","sign":"unset","weight":1}]}';
    expect(at(weighted)).toEqual({ message: expect.stringContaining('edge "s" -> "s": unknown member "weight"'), at: [{ file: 'g.json', path: 'edges[0].weight' }] });
    expect(at(good.replace(',"level":"server"', ''))).toEqual({ message: expect.stringContaining('node "s/server": missing member "level"'), at: [{ file: 'g.json', path: 'nodes[0].level' }] });
    // A fraction is kept exact as a JsonFloat instance: an object to JS, still not a JSON object.
    expect(at(good.replace(/"nodes":\[.*\]\]?,"edges"/, '"nodes":[1.5],"edges"'))).toEqual({ message: expect.stringContaining('node must be an object, got'), at: [{ file: 'g.json', path: 'nodes[0]' }] });
    expect(at(good.replace(':4', ':3').replace('"kind":"server"', '"kind":"resource_template"'))).toEqual({
      message: expect.stringContaining('node "s/server": kind "resource_template" is not in the version-3 vocabulary'),
      at: [{ file: 'g.json', path: 'nodes[0].kind' }],
    });
  });
});
