/**
 * check-access and unsafe-tools report what the compiled bundle answers: for every (agent, tool)
 * pair of both examples under every profile, the `gateway` field equals the bundle's own
 * data.toolgate.authz.decision (evaluated from bundle.tar.gz as `toolgate decide` does) and the
 * policy-bundle.json row, and `--fail-on-refusal` exits by it; the real OPA, evaluating the same
 * bundles, answers every pair as that in-process decision does.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleDecider, type BundleDecider } from '../../../src/bundle/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';
import { PROFILES } from '../../../src/governance/types.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';

const EXAMPLES = ['quickstart', 'fleet'] as const;
const examplesDir = new URL('../../../examples/', import.meta.url);

interface Compiled {
  bundlePath: string;
  decider: BundleDecider;
  policyBundle: { agents: Record<string, { tools: Record<string, { decision: string; reason?: string }> }> };
}

/** The example's agents (from its manifest) and every tool its catalog lists, qualified and bare. */
function estateNames(example: string): { agents: string[]; tools: { key: string; name: string }[] } {
  const catalog = JSON.parse(readFileSync(new URL(`${example}/catalog.json`, examplesDir), 'utf8')) as { servers: { name: string; tools?: { name: string }[] }[] };
  const tools = catalog.servers.flatMap((s) => (s.tools ?? []).map((t) => ({ key: `${s.name}::${t.name}`, name: t.name })));
  const manifest = parseManifest('governance.yaml', readFileSync(new URL(`${example}/governance.yaml`, examplesDir), 'utf8'));
  return { agents: manifest.agents.map((a) => a.id).sort(), tools };
}

const compiled = new Map<string, Compiled>();

beforeAll(async () => {
  for (const example of EXAMPLES) {
    for (const profile of PROFILES) {
      const out = join(mkdtempSync(join(tmpdir(), 'toolgate-gw-')), 'out');
      const r = await runCli(['compile', '--example', example, '--profile', profile, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
      expect(r.code, r.stderr).toBe(0);
      compiled.set(`${example}/${profile}`, {
        bundlePath: join(out, 'bundle.tar.gz'),
        decider: await bundleDecider(new Uint8Array(readFileSync(join(out, 'bundle.tar.gz')))),
        policyBundle: JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')),
      });
    }
  }
}, 120_000);

describe.each(EXAMPLES)('check-access on the %s example', (example) => {
  const { agents, tools } = estateNames(example);

  it('has agents and tools to check', () => {
    expect(agents.length).toBeGreaterThan(1);
    expect(tools.length).toBeGreaterThan(5);
  });

  it.each(PROFILES)('under --profile %s: the gateway decision equals the bundle on every pair, and --fail-on-refusal exits by it', async (profile) => {
    const { decider, policyBundle } = compiled.get(`${example}/${profile}`)!;
    let allowed = 0;
    let refused = 0;
    for (const agent of [...agents, 'no-such-agent']) {
      for (const { key } of tools) {
        const r = await runCli(['check-access', agent, key, '--example', example, '--profile', profile, '--fail-on-refusal']);
        const out = r.json();
        const bundle = decider.decide(agent, key) as { allow: boolean; reason: string | null; profile: string };
        expect({ agent, key, allow: out.gateway.allow, reason: out.gateway.reason }).toEqual({ agent, key, allow: bundle.allow, reason: bundle.reason });
        expect(out.gateway.profile).toBe(bundle.profile);
        expect(out.gateway.input).toEqual({ agent, tool: key });
        const row = policyBundle.agents[agent]?.tools[key];
        if (row) expect([row.decision === 'eligible', row.reason ?? null]).toEqual([bundle.allow, bundle.reason]);
        else expect(bundle.allow).toBe(false);
        const expected = out.verdict === 'AGENT_NOT_FOUND' ? 2 : bundle.allow ? 0 : 1;
        expect({ agent, key, code: r.code }).toEqual({ agent, key, code: expected });
        if (bundle.allow) allowed++;
        else refused++;
      }
    }
    // Both outcomes occur, so the comparison is not vacuous.
    expect(allowed).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  }, 120_000);

  it('asks the gateway for the key a bare name resolves to; the bare name itself is not what the decision takes', async () => {
    const { decider } = compiled.get(`${example}/strict`)!;
    const unique = tools.filter((t) => tools.filter((u) => u.name === t.name).length === 1);
    for (const agent of agents) {
      for (const { key, name } of unique) {
        const out = (await runCli(['check-access', agent, name, '--example', example])).json();
        expect(out.gateway.input.tool).toBe(key);
        expect(out.gateway.allow).toBe((decider.decide(agent, key) as { allow: boolean }).allow);
        expect(decider.decide(agent, name)).toMatchObject({ allow: false, reason: 'NOT_GRANTED' });
      }
    }
  }, 120_000);
});

describe.each(EXAMPLES)('unsafe-tools on the %s example', (example) => {
  const { agents } = estateNames(example);
  it.each(PROFILES)('under --profile %s: each row carries the bundle decision for its tool', async (profile) => {
    const { decider } = compiled.get(`${example}/${profile}`)!;
    let rows = 0;
    for (const agent of agents) {
      const r = await runCli(['unsafe-tools', agent, '--example', example, '--profile', profile, '--all']);
      expect(r.code).toBe(0);
      const out = r.json();
      expect(out.profile).toBe(profile);
      for (const row of out.rows) {
        const bundle = decider.decide(agent, row.tool_key) as { allow: boolean; reason: string | null };
        expect(row.gateway).toEqual({ allow: bundle.allow, reason: bundle.reason });
        rows++;
      }
    }
    expect(rows).toBeGreaterThan(0);
  }, 120_000);
});

describe('the profile default', () => {
  it('is the profile in toolgate.yaml, as compile takes it', async () => {
    const { cpSync, writeFileSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-gw-cfg-'));
    cpSync(new URL('quickstart/', examplesDir), dir, { recursive: true });
    writeFileSync(join(dir, 'toolgate.yaml'), 'manifest: governance.yaml\ncatalog: catalog.json\nprofile: review\n');
    const r = await runCli(['check-access', 'ops-agent', 'filesystem::write_file', '--fail-on-refusal'], { cwd: dir });
    expect(r.json().gateway).toMatchObject({ profile: 'review', allow: true });
    expect(r.code).toBe(0);
    const strict = await runCli(['check-access', 'ops-agent', 'filesystem::write_file', '--fail-on-refusal', '--profile', 'strict'], { cwd: dir });
    expect(strict.json().gateway).toMatchObject({ profile: 'strict', allow: false, reason: 'DENY_GOVERNED' });
    expect(strict.code).toBe(1);
    const bad = await runCli(['check-access', 'ops-agent', 'filesystem::write_file', '--profile', 'lenient'], { cwd: dir });
    expect(bad.code).toBe(2);
  });
});

describeWithOpa('the real OPA serving the same bundles', () => {
  it.each(EXAMPLES.flatMap((e) => PROFILES.map((p) => [e, p] as const)))('%s under %s answers every pair as the in-process decision does', (example, profile) => {
    const { agents, tools } = estateNames(example);
    const { bundlePath, decider } = compiled.get(`${example}/${profile}`)!;
    const pairs = [...agents, 'no-such-agent'].flatMap((agent) => tools.map(({ key }) => ({ agent, tool: key })));
    const query = '[d | some p in input.pairs; x := data.toolgate.authz.decision with input as p; d := {"agent": p.agent, "tool": p.tool, "decision": x}]';
    const r = runOpa(['eval', '--format', 'json', '--bundle', bundlePath, '--stdin-input', query], { input: JSON.stringify({ pairs }) });
    expect(r.code, r.stderr).toBe(0);
    const answers = JSON.parse(r.stdout).result[0].expressions[0].value as { agent: string; tool: string; decision: { allow: boolean; reason: string | null } }[];
    expect(answers).toHaveLength(pairs.length);
    for (const a of answers) {
      const ours = decider.decide(a.agent, a.tool) as { allow: boolean; reason: string | null };
      expect({ ...a, decision: { allow: a.decision.allow, reason: a.decision.reason } }).toEqual({ ...a, decision: { allow: ours.allow, reason: ours.reason } });
    }
  });
});
