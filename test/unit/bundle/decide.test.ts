/**
 * `toolgate decide`: the bundle's own Rego against its own data agrees with the policy bundle on both
 * examples under every profile when signs are unset, and with the example sign policies differs from
 * it by exactly the SIGN_DENY / SIGN_HOLD reasons of eligible pairs whose tool carries such a sign.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { bundleDecider } from '../../../src/bundle/index.ts';

type Want = { decision: string; reason?: string | null };

/** Compiles EXAMPLE under PROFILE (optionally with its signs.rego) and checks decide on every (agent, tool) pair. */
async function checkEveryPair(example: string, profile: string, signed: boolean): Promise<Record<string, number>> {
  const out = mkdtempSync(join(tmpdir(), 'toolgate-decide-'));
  const signArgs = signed ? ['--signs', `examples/${example}/signs.rego`] : [];
  const r = await runCli(['compile', '--example', example, '--profile', profile, ...signArgs, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
  expect(r.code, r.stderr).toBe(0);
  const bundle = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8'));
  // The signs as the signed connectome carries them (not the data document's index authz.rego reads).
  const graph = JSON.parse(readFileSync(join(out, 'connectome.json'), 'utf8')) as { edges: { to: string; kind: string; sign: string }[] };
  const signsInto = (tool: string) => {
    const [server, name] = tool.split('::') as [string, string];
    const esc = (s: string) => s.replace(/%/g, '%25').replace(/\//g, '%2F');
    const node = `${esc(server)}/tool/${esc(name)}`;
    return new Set(graph.edges.filter((e) => e.kind === 'invoke' && e.to === node).map((e) => e.sign));
  };
  const decider = await bundleDecider(readFileSync(join(out, 'bundle.tar.gz')), 'bundle.tar.gz');
  const tools: string[] = bundle.tools.map((t: { tool_key: string }) => t.tool_key);
  const reasons: Record<string, number> = {};
  for (const agent of Object.keys(bundle.agents)) {
    for (const tool of tools) {
      const want: Want | undefined = bundle.agents[agent].tools[tool];
      let allow = want?.decision === 'eligible';
      let reason = want ? (want.reason ?? null) : 'NOT_GRANTED';
      if (allow) {
        const s = signsInto(tool);
        reason = s.has('deny') ? 'SIGN_DENY' : s.has('hold') ? 'SIGN_HOLD' : null;
        allow = reason === null;
      }
      if (!signed) expect(reason === 'SIGN_DENY' || reason === 'SIGN_HOLD').toBe(false);
      expect(decider.decide(agent, tool), `${profile} ${agent} ${tool}`).toEqual({ allow, reason, profile, graph_state: bundle.graph_state });
      reasons[String(reason)] = (reasons[String(reason)] ?? 0) + 1;
    }
  }
  const cli = await runCli(['decide', Object.keys(bundle.agents)[0]!, 'nowhere::nothing', '--bundle', join(out, 'bundle.tar.gz')]);
  expect(cli.code, cli.stderr).toBe(0);
  expect(cli.json().decision).toMatchObject({ allow: false, reason: 'NOT_GRANTED' });
  return reasons;
}

describe.each(['quickstart', 'fleet'])('decide on the %s bundle', (example) => {
  it.each(['strict', 'review', 'explore'])('agrees with the policy bundle for every (agent, tool) pair under %s, signs unset', async (profile) => {
    const reasons = await checkEveryPair(example, profile, false);
    expect(Object.values(reasons).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });
  it.each(['strict', 'review', 'explore'])('with the example signs.rego under %s, differs from the policy bundle by exactly the SIGN_* reasons', async (profile) => {
    await checkEveryPair(example, profile, true);
  });
});

describe('the example sign policies change decisions', () => {
  it("fleet under explore: the publisher's three destructive writes are held (SIGN_HOLD), the rest still allowed", async () => {
    const reasons = await checkEveryPair('fleet', 'explore', true);
    expect(reasons.SIGN_HOLD).toBe(3);
    expect(reasons.null).toBeGreaterThan(0);
  });
  it("quickstart under review: ops-agent's write_file is held (SIGN_HOLD)", async () => {
    expect((await checkEveryPair('quickstart', 'review', true)).SIGN_HOLD).toBe(1);
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
