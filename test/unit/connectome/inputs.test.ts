import { describe, it, expect } from 'vitest';
import {
  buildDeclaredConnectome,
  buildGraph,
  collapse,
  diffConnectomes,
  encodeGraphText,
  encodeSidecar,
  nodeFromIdentity,
  observeFromText,
  type ConnectomeEdge,
} from '../../../src/connectome/index.ts';
import { digestEnvelope, signedEnvelope } from '../../../src/canonical/envelope.ts';

const W = { startMs: Date.parse('2026-01-01T00:00:00Z'), endMs: Date.parse('2026-01-02T00:00:00Z') };

describe('buildDeclaredConnectome', () => {
  const catalog = {
    servers: [
      {
        name: 'srv',
        tools: [{ name: 'echo', title: 'Echo', annotations: { readOnlyHint: true, destructiveHint: false, extra: 1.5 } }],
        resources: [{ uri: 'r://a', name: 'a' }],
        resourceTemplates: [{ uriTemplate: 'r://{x}' }],
        prompts: [{ name: 'p' }],
      },
    ],
  };
  it('makes server, tool, resource, template and prompt nodes with invoke and read edges, all unset', () => {
    const g = buildDeclaredConnectome(catalog);
    expect(g.nodes.map((n) => `${n.kind}:${n.id}`)).toEqual([
      'prompt:srv/prompt/p',
      'resource:srv/resource/r:%2F%2Fa',
      'resource_template:srv/resource_template/r:%2F%2F{x}',
      'server:srv/server',
      'tool:srv/tool/echo',
    ]);
    expect(g.edges.map((e) => `${e.kind}>${e.to}:${e.sign}`)).toEqual([
      'read>srv/prompt/p:unset',
      'read>srv/resource/r:%2F%2Fa:unset',
      'read>srv/resource_template/r:%2F%2F{x}:unset',
      'invoke>srv/tool/echo:unset',
    ]);
    expect(g.node('srv/tool/echo')!.labels).toEqual({ name: 'echo', title: 'Echo', annotations: { readOnlyHint: true, destructiveHint: false } });
  });
  it('merges a host graph and refuses an observed host edge', () => {
    const host = {
      nodes: [nodeFromIdentity({ tag: 'module', server: 'srv', module: 'Elixir.Echo' }), nodeFromIdentity({ tag: 'tool', server: 'srv', name: 'echo' })],
      edges: [{ from: 'srv/tool/echo', to: 'srv/module/Echo', kind: 'invoke' as const, provenance: 'declared' as const, sign: 'unset' as const }],
    };
    const g = buildDeclaredConnectome(catalog, host);
    expect(g.finestLevel).toBe('module');
    expect(g.edges).toHaveLength(5);
    const observed = { ...host, edges: [{ ...host.edges[0]!, provenance: 'observed' as const }] };
    expect(() => buildDeclaredConnectome(catalog, observed)).toThrowError(expect.objectContaining({ code: 'GRAPH_INVALID' }));
  });
});

describe('observeFromText', () => {
  it('counts calls as sidecar weights, nodes unlabelled, signs unset', () => {
    const text = [
      '{"server":"srv","kind":"invoke","target":"echo","at":"2026-01-01T10:00:00Z","outcome":"ok"}',
      '{"server":"srv","kind":"invoke","target":"echo","outcome":"error"}',
      '{"server":"srv","kind":"read","target":"r://a","target_kind":"resource"}',
      '{"server":"srv","kind":"invoke","target":"late","at":"2026-01-03T00:00:00Z"}',
    ].join('\n');
    const r = observeFromText(text, 'e.jsonl', W);
    expect(r.counted).toBe(3);
    expect(r.outsideWindow).toBe(1);
    expect(new TextDecoder().decode(encodeSidecar(r.graph))).toBe(
      '{"schema_version":4,"weights":[{"from":"srv/server","kind":"read","provenance":"observed","to":"srv/resource/r:%2F%2Fa","weight":1},{"from":"srv/server","kind":"invoke","provenance":"observed","to":"srv/tool/echo","weight":2}]}',
    );
    expect(encodeGraphText(r.graph)).not.toContain('weight');
    expect(r.graph.nodes.every((n) => Object.keys(n.labels).length === 0)).toBe(true);
  });
  for (const key of ['arguments', 'result', 'headers']) {
    it(`refuses a line carrying ${key}, naming the line`, () => {
      const text = `{"server":"srv","kind":"invoke","target":"echo"}\n{"server":"srv","kind":"invoke","target":"echo","${key}":{"secret":"PAYLOAD"}}`;
      expect(() => observeFromText(text, 'e.jsonl', W)).toThrowError(expect.objectContaining({ code: 'OBSERVATION_INVALID', message: expect.stringContaining('e.jsonl:2') }));
    });
  }
  it('reads OTLP/JSON spans with MCP attributes and refuses payload attributes', () => {
    const span = (attrs: [string, string][]) =>
      JSON.stringify({
        resourceSpans: [
          {
            resource: { attributes: [{ key: 'service.name', value: { stringValue: 'srv' } }] },
            scopeSpans: [{ spans: [{ name: 'tools/call', startTimeUnixNano: String(BigInt(W.startMs + 5) * 1_000_000n), attributes: attrs.map(([key, v]) => ({ key, value: { stringValue: v } })) }] }],
          },
        ],
      });
    const ok = span([['mcp.method.name', 'tools/call'], ['gen_ai.tool.name', 'echo']]);
    const r = observeFromText(`${ok}\n${ok}\n`, 'spans.jsonl', W);
    expect(r.graph.edges.map((e) => [e.to, e.weight])).toEqual([['srv/tool/echo', 2]]);
    const bad = span([['mcp.method.name', 'tools/call'], ['gen_ai.tool.name', 'echo'], ['gen_ai.tool.call.arguments', '{"x":1}']]);
    expect(() => observeFromText(bad, 'spans.jsonl', W)).toThrowError(expect.objectContaining({ code: 'OBSERVATION_INVALID' }));
  });
});

describe('diffConnectomes refusals, in order', () => {
  const nodes = [nodeFromIdentity({ tag: 'server', server: 's' })];
  const d = buildGraph({ nodes, edges: [] });
  const obsEdge: ConnectomeEdge = { from: 's/server', to: 's/server', kind: 'invoke', provenance: 'observed', sign: 'unset' };
  const bad = { nodes, edges: [{ ...obsEdge, to: 'ghost' }] };
  it('refuses a missing window by name', () => expect(() => diffConnectomes(d, d, {})).toThrowError(/without a window/));
  it('refuses an unknown option before anything else', () => expect(() => diffConnectomes(bad, bad, { window: 1.5, algo: 'x' } as never)).toThrowError(/unknown option/));
  it('refuses the declared graph before the observed one', () => expect(() => diffConnectomes(bad, bad, { window: {} })).toThrowError(/^declared/));
  it('refuses an edge of the other side\'s provenance', () => expect(() => diffConnectomes(buildGraph({ nodes, edges: [obsEdge] }), d, { window: {} })).toThrowError(/declared: .*provenance observed/));
  it('refuses a window with no canonical bytes last', () => expect(() => diffConnectomes(d, d, { window: { x: 1.5 } })).toThrowError(expect.objectContaining({ code: 'DIFF_REFUSED', message: expect.stringContaining('window') })));
});

describe('collapse', () => {
  const mfa = nodeFromIdentity({ tag: 'mfa', server: 's', module: 'Elixir.A', function: 'run', arity: 1 });
  const mfa2 = nodeFromIdentity({ tag: 'mfa', server: 's', module: 'Elixir.B', function: 'go', arity: 0 });
  const modA = nodeFromIdentity({ tag: 'module', server: 's', module: 'Elixir.A' });
  const bnd = nodeFromIdentity({ tag: 'boundary', server: 's', source: 'application', name: 'app' });
  const e = (from: string, to: string, sign: ConnectomeEdge['sign'] = 'unset'): ConnectomeEdge => ({ from, to, kind: 'invoke', provenance: 'declared', sign });
  const g = buildGraph({ nodes: [mfa, mfa2, modA, bnd, nodeFromIdentity({ tag: 'server', server: 's' })], edges: [e(mfa.id, mfa2.id)] });
  it('maps mfa nodes to their modules by identity, keeping the built graph as it was', () => {
    const v = collapse(g, 'module');
    expect(v.edges.map((x) => `${x.from}>${x.to}`)).toEqual(['s/module/A>s/module/B']);
    expect(v.finestLevel).toBe('module');
    expect(g.finestLevel).toBe('mfa');
  });
  it('needs declared groups for module -> boundary, and refuses a node with none', () => {
    expect(() => collapse(g, 'boundary')).toThrowError(/no container/);
    const v = collapse(g, 'boundary', { groups: { 's/module/A': bnd.id, 's/module/B': bnd.id } });
    expect(v.edges.map((x) => `${x.from}>${x.to}`)).toEqual([`${bnd.id}>${bnd.id}`]);
  });
  it('refuses a merge that would choose between signs', () => {
    const two = buildGraph({ nodes: g.nodes, edges: [e(mfa.id, mfa2.id, 'allow'), e(mfa.id, modA.id, 'deny')] });
    expect(() => collapse(two, 'server')).toThrowError(/different signs/);
  });
});

describe('digest envelope and signer seam', () => {
  const bytes = new TextEncoder().encode('{"x":1}');
  it('copies scheme and key_id from the host, null otherwise, outside the hashed bytes', () => {
    const env = digestEnvelope(bytes, 'sha256');
    expect(env).toMatchObject({ scheme: null, key_id: null, signature: null, size: 7 });
    expect(digestEnvelope(bytes, 'sha256', { scheme: 'ed25519', keyId: 'k1' }).digest).toBe(env.digest);
  });
  it('hands exactly the bytes to the host signer', async () => {
    let seen: Uint8Array | undefined;
    const env = await signedEnvelope(bytes, 'sha512', (b) => {
      seen = b;
      return 'sig';
    }, { scheme: 's', keyId: 'k' });
    expect(seen).toEqual(bytes);
    expect(env).toMatchObject({ algorithm: 'sha512', signature: 'sig', scheme: 's', key_id: 'k' });
    await expect(signedEnvelope(bytes, 'sha256', () => { throw new Error('no key'); })).rejects.toMatchObject({ code: 'SIGNER_FAILED' });
  });
});
