/**
 * data.toolgate.signs_by_tool: the per-tool index of `deny`/`hold` signs on invoke edges that
 * authz.rego looks a call's tool up in. Its derivation, and a property: for random signs on the
 * quickstart connectome, the enforcement Rego over the index decides exactly what a scan of every
 * edge (the rule the index replaces) decides, for every (agent, tool) pair.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { signsByTool, type DataEdge } from '../../../src/compile/data-document.ts';
import type { ExposedTool } from '../../../src/compile/policy-bundle.ts';
import { compileEstate } from '../../../src/emit/compile-run.ts';
import { connectomeArtifacts } from '../../../src/compile/connectome-artifacts.ts';
import { nodeId } from '../../../src/connectome/index.ts';
import { compileModules, fromJSON, toJSON, type RegoPolicy } from '../../../src/rego/index.ts';
import { enforcementRego } from '../../../src/cli/commands/compile.ts';
import { exampleEstate } from '../../helpers/estates.ts';

const tool = (server: string, name: string): ExposedTool => ({ tool_key: `${server}::${name}`, server, name, tool_contract_digest: '' });
const edge = (to: string, sign: string, kind = 'invoke', from = 'x/server'): DataEdge => ({ from, to, kind, provenance: 'declared', sign });

describe('signsByTool', () => {
  const tools = [tool('fs', 'read_file'), tool('fs', 'write_file'), tool('odd/srv', 'a%b')];

  it('is empty when no edge is signed deny or hold', () => {
    expect(signsByTool(tools, [edge('fs/tool/read_file', 'allow'), edge('fs/tool/write_file', 'ungoverned'), edge('fs/tool/read_file', 'unset')])).toEqual({});
  });

  it('flags deny and hold per tool, from every invoke edge into its node', () => {
    expect(
      signsByTool(tools, [
        edge('fs/tool/read_file', 'hold'),
        edge('fs/tool/read_file', 'deny', 'invoke', 'host/process/p'),
        edge('fs/tool/write_file', 'hold'),
        edge('fs/tool/write_file', 'allow'),
      ]),
    ).toEqual({ 'fs::read_file': { deny: true, hold: true }, 'fs::write_file': { deny: false, hold: true } });
  });

  it('matches escaped node ids (% and / inside a component)', () => {
    expect(signsByTool(tools, [edge('odd%2Fsrv/tool/a%25b', 'deny')])).toEqual({ 'odd/srv::a%b': { deny: true, hold: false } });
  });

  it('ignores non-invoke edges and edges to nodes that are no exposed tool', () => {
    expect(signsByTool(tools, [edge('fs/tool/read_file', 'deny', 'read'), edge('fs/resource/x', 'deny'), edge('gone/tool/t', 'hold')])).toEqual({});
  });
});

describe('authz.rego over signs_by_tool agrees with a scan of every edge', () => {
  const estate = exampleEstate('quickstart');
  let policy: RegoPolicy;
  let baseEdges: readonly DataEdge[];
  let toolNode: Map<string, string>;
  beforeAll(async () => {
    policy = compileModules(enforcementRego().map((m) => ({ name: m.path, text: m.text })));
    const c = await connectomeArtifacts(estate.catalog);
    baseEdges = c.edges;
    toolNode = new Map();
    for (const t of estate.tools.values()) if (t.server !== null) toolNode.set(t.key, nodeId({ tag: 'tool', server: t.server, name: t.name }));
  });

  it('for random signs, under each profile', async () => {
    const signs = fc.constantFrom('allow', 'deny', 'hold', 'ungoverned', 'unset');
    await fc.assert(
      fc.asyncProperty(fc.array(signs, { minLength: 40, maxLength: 40 }), fc.constantFrom('strict', 'review', 'explore' as const), async (drawn, profile) => {
        const edges = baseEdges.map((e, i) => ({ ...e, sign: drawn[i % drawn.length]! }));
        const r = await compileEstate(estate, { profile, createdAt: '2026-01-01T00:00:00Z', regoModules: [], connectome: { digest: 'd', edges } });
        const dataDoc = JSON.parse(new TextDecoder().decode(r.files.find((f) => f.name === 'data.json')!.bytes));
        const data = fromJSON(dataDoc);
        const agents = dataDoc.toolgate.agents as Record<string, { tools: Record<string, { allow: boolean; reason: string | null }> }>;
        for (const agent of Object.keys(agents)) {
          for (const key of toolNode.keys()) {
            const entry = agents[agent]!.tools[key];
            const into = edges.filter((e) => e.kind === 'invoke' && e.to === toolNode.get(key)).map((e) => e.sign);
            const scanned = !entry
              ? 'NOT_GRANTED'
              : !entry.allow
                ? entry.reason
                : into.includes('deny')
                  ? 'SIGN_DENY'
                  : into.includes('hold')
                    ? 'SIGN_HOLD'
                    : null;
            const got = toJSON(policy.evalRule('data.toolgate.authz.decision', { input: fromJSON({ agent, tool: key }), data })!) as { allow: boolean; reason: unknown };
            expect(got.reason, `${profile} ${agent} ${key}`).toBe(scanned);
            expect(got.allow).toBe(scanned === null);
          }
        }
      }),
      { numRuns: 25 },
    );
  });
});
