/**
 * The peer's "First policy bundle" quickstart (README and docs/beginner-guide.md) end to end, with a
 * local stand-in for its offline fixture server: crawl, ingest with --strict-drift, inspect the
 * decision, compile the gateway bundle; then the guide's "good first experiment" (drop a grant and
 * recompile: the generation rises, the bundle changes).
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../helpers/cli.ts';
import { scratch, validates, vectorPath } from './peer-helpers.ts';

const SERVER = fileURLToPath(new URL('../../fixtures/mcp/policy-gateway.mjs', import.meta.url));

describe('the peer quickstart, step by step', () => {
  it('crawl -> ingest (strict drift) -> eligible-tools / selection-explain -> policy compile', async () => {
    // The peer's servers-policy-gateway.yaml, its command pointed at the local stand-in.
    const dir = scratch({ 'servers.yaml': `servers:\n  - name: policy-gateway\n    transport: stdio\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(SERVER)}]\n` });
    copyFileSync(vectorPath('toolgraph-examples/governance-policy-gateway.yaml'), join(dir, 'governance.yaml'));
    const run = (...argv: string[]) => runCli(argv, { cwd: dir, env: { PATH: process.env.PATH } });

    const crawl = await run('crawl', '--servers', 'servers.yaml', '--out', 'catalog.json');
    expect(crawl.code, crawl.stderr).toBe(0);
    const catalog = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    expect(catalog.servers[0].tools.map((t: { name: string }) => t.name).sort()).toEqual(['publish_note', 'read_note']);
    expect((await run('init')).code).toBe(0);

    const ingest = await run('audit-report', '--strict', '--strict-drift');
    expect(ingest.code, ingest.stderr).toBe(0);
    expect((await run('unbacked-edges')).json().count).toBe(0);

    const eligible = await run('eligible-tools', 'vibe-coder', 'policy-gateway::read_note', 'policy-gateway::publish_note', '--profile', 'review');
    expect(eligible.json()).toMatchObject({ eligible: [{ tool_key: 'policy-gateway::read_note' }], rejected: [{ tool_key: 'policy-gateway::publish_note', reason: 'DENY_VIOLATION' }] });
    const explain = await run('selection-explain', 'vibe-coder', 'policy-gateway::publish_note');
    expect(explain.json().verdict).toBe('DENY');

    const compiled = await run('policy', 'compile', '--agent', 'vibe-coder', '--profile', 'review', '--output', '.toolgraph/policy-bundle.json');
    expect(compiled.code, compiled.stderr).toBe(0);
    expect(compiled.json()).toMatchObject({ eligible: 1, rejected: 1, graph_state: { generation: 1 } });
    const bundle = JSON.parse(readFileSync(join(dir, '.toolgraph', 'policy-bundle.json'), 'utf8'));
    expect(validates('toolgraph-policy-bundle.schema.json', bundle)).toBe(true);
    // read_note is read-only and fully evidenced: 0.0; publish_note a violation: 1.0.
    expect(bundle.tools.map((t: { tool_key: string; decision: string; risk_score: number }) => [t.tool_key, t.decision, t.risk_score])).toEqual([
      ['policy-gateway::publish_note', 'rejected', 1],
      ['policy-gateway::read_note', 'eligible', 0],
    ]);

    // The guide's first experiment: remove the read_note grant and recompile.
    const manifest = join(dir, 'governance.yaml');
    const text = readFileSync(manifest, 'utf8');
    const grant = '  - agent: vibe-coder\n    tool: "policy-gateway::read_note"\n    granted_by: quickstart\n    provenance:\n      source: operator_asserted\n      confidence: high\n      evidence: examples/governance-policy-gateway.yaml:read-grant\n';
    expect(text).toContain(grant);
    writeFileSync(manifest, text.replace(grant, ''));
    const again = await run('policy', 'compile', '--agent', 'vibe-coder', '--profile', 'review', '--output', '.toolgraph/policy-bundle.json');
    expect(again.json()).toMatchObject({ eligible: 0, rejected: 2, graph_state: { instance_id: bundle.graph_state.instance_id, generation: 2 } });
    const after = JSON.parse(readFileSync(join(dir, '.toolgraph', 'policy-bundle.json'), 'utf8'));
    expect(after.tools.find((t: { tool_key: string }) => t.tool_key === 'policy-gateway::read_note')).toMatchObject({ decision: 'rejected', reason: 'NOT_GRANTED' });
  }, 60_000);
});
