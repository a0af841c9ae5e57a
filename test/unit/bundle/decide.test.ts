/** `toolgate decide`: the bundle's own Rego against its own data agrees with the policy bundle on both examples. */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { bundleDecider } from '../../../src/bundle/index.ts';

describe.each(['quickstart', 'fleet'])('decide on the %s bundle', (example) => {
  it.each(['strict', 'explore'])('agrees with the policy bundle for every (agent, tool) pair under %s', async (profile) => {
    const out = mkdtempSync(join(tmpdir(), 'toolgate-decide-'));
    const r = await runCli(['compile', '--example', example, '--profile', profile, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    const bundle = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8'));
    const decider = await bundleDecider(readFileSync(join(out, 'bundle.tar.gz')), 'bundle.tar.gz');
    const tools: string[] = bundle.tools.map((t: { tool_key: string }) => t.tool_key);
    let pairs = 0;
    for (const agent of Object.keys(bundle.agents)) {
      for (const tool of tools) {
        const want = bundle.agents[agent].tools[tool];
        expect(decider.decide(agent, tool), `${agent} ${tool}`).toEqual({
          allow: want?.decision === 'eligible',
          reason: want ? (want.reason ?? null) : 'NOT_GRANTED',
          profile,
          graph_state: bundle.graph_state,
        });
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThan(0);
    const cli = await runCli(['decide', Object.keys(bundle.agents)[0]!, 'nowhere::nothing', '--bundle', join(out, 'bundle.tar.gz')]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json().decision).toMatchObject({ allow: false, reason: 'NOT_GRANTED' });
  });
});

describe('decide with signs', () => {
  it('reflects a deny sign on an otherwise eligible tool as SIGN_DENY', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-decide-signs-'));
    const { writeFileSync } = await import('node:fs');
    const policy = join(dir, 'signs.rego');
    writeFileSync(policy, 'package toolgate.signs\nimport rego.v1\nsign := "deny" if input.edge.to == "git/tool/git_log"\nsign := "hold" if input.edge.to == "filesystem/tool/list_directory"\n');
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', policy, '--out', join(dir, 'out')], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    const d = await bundleDecider(readFileSync(join(dir, 'out', 'bundle.tar.gz')));
    expect(d.decide('ci-bot', 'git::git_log')).toMatchObject({ allow: false, reason: 'SIGN_DENY' });
    expect(d.decide('ci-bot', 'filesystem::list_directory')).toMatchObject({ allow: false, reason: 'SIGN_HOLD' });
    expect(d.decide('ci-bot', 'git::git_show')).toMatchObject({ allow: false, reason: 'DENY_VIOLATION' });
  });
  it('refuses an unsafe tarball', async () => {
    await expect(bundleDecider(new Uint8Array([1, 2, 3]))).rejects.toMatchObject({ code: 'BUNDLE_INVALID' });
  });
});
