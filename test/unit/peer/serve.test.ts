/**
 * The peer's MCP server surface (README "toolgraph as an MCP server"): its thirteen tools by name,
 * every one a pure read advertising readOnlyHint and idempotentHint, answers stamped with
 * graph_generation (ADR-0004), over stdio against `toolgate serve --compat toolgraph` (the peer's
 * names and shapes; toolgate's own names `drift` for `drifted_tools`) on a peer example.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { peerExample } from './peer-helpers.ts';

const PEER_TOOLS = [
  'check_access',
  'unsafe_callable_tools',
  'blast_radius',
  'unmapped_tools',
  'orphan_policies',
  'unbacked_edges',
  'drifted_tools',
  'destructive_unsafeguarded',
  'annotation_contradictions',
  'audit_report',
  'rank_features',
  'eligible_tools',
  'selection_explain',
];

const STM = 'memtomem-stm::langchain__search_docs_by_lang_chain';
let client: Client;
beforeAll(async () => {
  const dir = peerExample('governance-gate');
  client = await connectServe(['--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json'), '--compat', 'toolgraph'], 'peer-contract');
}, 60_000);
afterAll(async () => {
  await client?.close();
});

describe('toolgate serve as the peer MCP server', () => {
  it('lists the peer thirteen tools, each read-only and idempotent', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of PEER_TOOLS) {
      const t = byName.get(name);
      expect(t, name).toBeDefined();
      expect([name, t!.annotations?.readOnlyHint, t!.annotations?.idempotentHint]).toEqual([name, true, true]);
    }
  });

  it('eligible_tools answers as the CLI does, with graph_generation', async () => {
    const r = await client.callTool({ name: 'eligible_tools', arguments: { agent: 'stm-proxy', candidates: ['memtomem-stm::langchain__search_docs_by_lang_chain'], profile: 'strict' } });
    expect(r.isError ?? false).toBe(false);
    const v = r.structuredContent as Record<string, any>;
    expect(Number.isInteger(v.graph_generation)).toBe(true);
    expect(v.rejected).toEqual([expect.objectContaining({ reason: 'DENY_GOVERNED' })]);
  });

  it('unsafe_callable_tools defaults to violations; include_authorized adds the exceptions; an unknown agent is agent_found: false', async () => {
    const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'unsafe_callable_tools', arguments: args })).structuredContent as Record<string, any>;
    const planner = await call({ agent: 'planner' });
    const all = await call({ agent: 'planner', include_authorized: true });
    // planner's reaches are all operator exceptions: none by default, four with include_authorized.
    expect([planner.count, planner.tools]).toEqual([0, []]);
    expect(all.tools.length).toBe(4);
    expect(all.tools.every((x: { classification: string }) => x.classification === 'authorized_but_governed')).toBe(true);
    const helper = await call({ agent: 'helper' });
    expect(helper.tools.length).toBeGreaterThan(0);
    expect(helper.tools.every((x: { classification: string }) => x.classification === 'violation')).toBe(true);
    expect((await call({ agent: 'nobody' })).agent_found).toBe(false);
  });
});

describe('the typed outage envelope', () => {
  it('an estate that cannot be read answers isError with {error_kind: backend_unavailable, retryable: true, message}; a malformed one fails loud as an MCP error', async () => {
    const dir = peerExample('governance-gate');
    const c = await connectServe(['--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json'), '--compat', 'toolgraph'], 'peer-outage');
    try {
      const args = { agent: 'stm-proxy', candidates: [STM] };
      expect((await c.callTool({ name: 'eligible_tools', arguments: args })).isError ?? false).toBe(false);
      const saved = readFileSync(join(dir, 'catalog.json'));
      rmSync(join(dir, 'catalog.json'));
      const gone = await c.callTool({ name: 'eligible_tools', arguments: args });
      expect(gone.isError).toBe(true);
      expect(gone.structuredContent).toMatchObject({ error_kind: 'backend_unavailable', retryable: true, message: expect.any(String) });
      writeFileSync(join(dir, 'catalog.json'), '{bad');
      await expect(c.callTool({ name: 'eligible_tools', arguments: args })).rejects.toThrow(/invalid JSON/);
      writeFileSync(join(dir, 'catalog.json'), saved);
      expect((await c.callTool({ name: 'eligible_tools', arguments: args })).isError ?? false).toBe(false);
    } finally {
      await c.close();
    }
  }, 60_000);
});
