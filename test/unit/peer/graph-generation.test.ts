/**
 * graph_generation (the peer's ADR-0004) and graph_state (ADR-0010): a monotonic counter that
 * rises with each successful change of the inputs and never on a refused one, with an instance id
 * that stays with the graph; both stamped on the artifacts the selector's consumers cache by.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { peerExample, validates } from './peer-helpers.ts';

const bundleOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'out', 'policy-bundle.json'), 'utf8'));
const compile = (dir: string) => runCli(['compile', '--format', 'toolgraph-v1', '--agent', 'vibe-coder', '--profile', 'review', '--out', 'out'], { cwd: dir, env: { SOURCE_DATE_EPOCH: '1783987200' } });

describe('graph_generation across compiles of the peer quickstart (governance-policy-gateway.yaml)', () => {
  it('starts at 1, stays while the inputs are unchanged (same bytes), rises by one on a change, and not on a refused one', async () => {
    const dir = peerExample('governance-policy-gateway');
    expect((await compile(dir)).code).toBe(0);
    const first = readFileSync(join(dir, 'out', 'policy-bundle.json'));
    const b1 = bundleOf(dir);
    expect(validates('toolgraph-policy-bundle.schema.json', b1)).toBe(true);
    expect(b1.graph_state.generation).toBe(1);

    expect((await compile(dir)).code).toBe(0);
    expect(readFileSync(join(dir, 'out', 'policy-bundle.json')).equals(first)).toBe(true);

    const manifest = join(dir, 'governance.yaml');
    const text = readFileSync(manifest, 'utf8');
    writeFileSync(manifest, text.replace('scope: demo-drafts', 'scope: demo-drafts-v2'));
    expect((await compile(dir)).code).toBe(0);
    const b2 = bundleOf(dir);
    expect(b2.graph_state).toEqual({ instance_id: b1.graph_state.instance_id, generation: 2 });
    expect(b2.governance_digest).not.toBe(b1.governance_digest);

    // A refused manifest changes nothing: exit 1, the last good bundle stays.
    writeFileSync(manifest, `${text}\ngrants: [}\n`);
    const refused = await compile(dir);
    expect(refused.code).toBe(1);
    expect(bundleOf(dir).graph_state.generation).toBe(2);

    writeFileSync(manifest, text.replace('scope: demo-drafts', 'scope: demo-drafts-v3'));
    expect((await compile(dir)).code).toBe(0);
    expect(bundleOf(dir).graph_state.generation).toBe(3);
  });

  it('the selector answers carry the same graph_state as the bundle (preflight: graph_generation and graph_instance_id)', async () => {
    const dir = peerExample('governance-policy-gateway');
    await compile(dir);
    const b = bundleOf(dir);
    const r = await runCli(['preflight', 'vibe-coder', 'policy-gateway::read_note', '--run-id', 'g', '--profile', 'review', '--state', 'out/policy-bundle.json'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const p = r.json();
    expect(validates('toolgraph-preflight/preflight.schema.json', p)).toBe(true);
    expect(p.graph_state).toEqual(b.graph_state);
    expect([p.graph_generation, p.graph_instance_id]).toEqual([b.graph_state.generation, b.graph_state.instance_id]);
  });
});
