/**
 * Every bundle toolgate compiles loads in the real OPA and decides there exactly as `toolgate
 * decide` and policy-bundle.json say: both examples, every profile, plain, with the example's
 * sign policy, and signed (OPA verifying the signature). `opa inspect` agrees with `toolgate
 * bundle inspect` on the manifest, roots, revision and files.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleDecider } from '../../../src/bundle/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, runOpa, startOpaServer } from '../../helpers/opa.ts';

const EXAMPLES = ['quickstart', 'fleet'] as const;
const PROFILES = ['strict', 'review', 'explore'] as const;
const VARIANTS = ['plain', 'signs', 'signed'] as const;
const KEY_ID = 'toolgate-release';

interface Decision {
  readonly allow: boolean;
  readonly reason: string | null;
  readonly profile: string;
  readonly graph_state: unknown;
}

interface PolicyBundle {
  readonly tools: readonly { tool_key: string }[];
  readonly agents: Record<string, { tools: Record<string, { decision: string; reason?: string }> }>;
  readonly default: { decision: string; reason: string };
  readonly profile: string;
  readonly graph_state: unknown;
}

let work: string;
let publicKey: string;
let privateKeyFile: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'toolgate-opa-bundles-'));
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKeyFile = join(work, 'signing.pem');
  writeFileSync(privateKeyFile, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
  publicKey = join(work, 'verify.pem');
  writeFileSync(publicKey, pair.publicKey.export({ type: 'spki', format: 'pem' }));
});

/** Every (agent, tool) pair the estate names, granted or not, and the three unknown kinds. */
function pairsOf(pb: PolicyBundle): [string, string][] {
  const agents = Object.keys(pb.agents).sort();
  const tools = new Set(pb.tools.map((t) => t.tool_key));
  for (const a of agents) for (const t of Object.keys(pb.agents[a]!.tools)) tools.add(t);
  const pairs: [string, string][] = [];
  for (const a of agents) for (const t of [...tools].sort()) pairs.push([a, t]);
  const someTool = [...tools][0]!;
  for (const a of agents) {
    pairs.push([a, 'no-such-server::no_such_tool']);
    pairs.push([a, someTool.split('::')[1]!]); // a bare tool name is never resolved at the gateway
  }
  pairs.push(['no-such-agent', someTool]);
  return pairs;
}

/** What policy-bundle.json says for a pair, before any sign: the decision's allow and reason. */
function expectedFromPolicyBundle(pb: PolicyBundle, agent: string, tool: string): { allow: boolean; reason: string | null } {
  if (pb.agents[agent] === undefined) return { allow: false, reason: 'AGENT_NOT_FOUND' };
  const entry = pb.agents[agent]!.tools[tool];
  if (entry === undefined) return { allow: false, reason: pb.default.reason };
  return entry.decision === 'eligible' ? { allow: true, reason: null } : { allow: false, reason: entry.reason ?? null };
}

async function compileVariant(example: string, profile: string, variant: (typeof VARIANTS)[number]): Promise<string> {
  const out = join(work, `${example}-${profile}-${variant}`);
  const extra =
    variant === 'signs'
      ? ['--signs', `examples/${example}/signs.rego`]
      : variant === 'signed'
        ? ['--signing-key', privateKeyFile, '--signing-alg', 'RS256', '--signing-key-id', KEY_ID]
        : [];
  const r = await runCli(['compile', '--example', example, '--profile', profile, '--out', out, ...extra], { env: { SOURCE_DATE_EPOCH: '0' } });
  expect(r.code, r.stderr).toBe(0);
  return out;
}

/** Runs `work` over `items` with at most `n` in flight. */
async function pool<T>(items: readonly T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: n }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

describeWithOpa('compiled bundles in the real OPA', () => {
  const cases = EXAMPLES.flatMap((e) => PROFILES.flatMap((p) => VARIANTS.map((v) => [e, p, v] as const)));
  const servers: { stop(): Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it.each(cases)('%s, profile %s, %s: opa run decides every pair as toolgate does', async (example, profile, variant) => {
    const out = await compileVariant(example, profile, variant);
    const bundle = join(out, 'bundle.tar.gz');
    const pb = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')) as PolicyBundle;
    const signs = (JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { toolgate: { signs_by_tool?: Record<string, { deny: boolean; hold: boolean }> } }).toolgate.signs_by_tool ?? {};
    const verify = variant === 'signed' ? ['--verification-key', publicKey, '--verification-key-id', KEY_ID, '--signing-alg', 'RS256'] : [];
    const server = await startOpaServer(['--bundle', bundle, ...verify]);
    servers.push(server);
    const decider = await bundleDecider(readFileSync(bundle), bundle);
    const pairs = pairsOf(pb);
    const disagreements: string[] = [];
    await pool(pairs, 8, async ([agent, tool]) => {
      const fromOpa = (await server.query('toolgate/authz/decision', { agent, tool })).result as Decision | undefined;
      const fromToolgate = decider.decide(agent, tool);
      if (JSON.stringify(fromOpa) !== JSON.stringify(fromToolgate)) disagreements.push(`${agent} ${tool}: opa ${JSON.stringify(fromOpa)} toolgate ${JSON.stringify(fromToolgate)}`);
      const want = expectedFromPolicyBundle(pb, agent, tool);
      if (want.allow && signs[tool]?.deny) Object.assign(want, { allow: false, reason: 'SIGN_DENY' });
      else if (want.allow && signs[tool]?.hold) Object.assign(want, { allow: false, reason: 'SIGN_HOLD' });
      const got = { allow: fromOpa?.allow, reason: fromOpa?.reason };
      if (JSON.stringify(got) !== JSON.stringify(want)) disagreements.push(`${agent} ${tool}: opa ${JSON.stringify(got)} policy-bundle.json ${JSON.stringify(want)}`);
      if (fromOpa?.profile !== pb.profile || JSON.stringify(fromOpa?.graph_state) !== JSON.stringify(pb.graph_state)) disagreements.push(`${agent} ${tool}: profile or graph_state differ`);
    });
    expect(disagreements).toEqual([]);
    expect(pairs.length).toBeGreaterThan(10);
    if (variant === 'signs') expect(Object.keys(signs).length).toBeGreaterThan(0);

    // The CLI itself, on the pairs a user tries first.
    for (const [agent, tool] of [pairs[0]!, pairs[pairs.length - 1]!]) {
      const r = await runCli(['decide', agent, tool, '--bundle', bundle]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json().decision).toEqual((await server.query('toolgate/authz/decision', { agent, tool })).result);
    }
    await server.stop();
  });

  it('a signed bundle checked against another key is refused by OPA (so the signed runs above did verify)', async () => {
    const out = await compileVariant('quickstart', 'strict', 'signed');
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
    const wrong = join(work, 'wrong.pem');
    writeFileSync(wrong, otherKey);
    await expect(startOpaServer(['--bundle', join(out, 'bundle.tar.gz'), '--verification-key', wrong, '--verification-key-id', KEY_ID])).rejects.toThrow(/verif|signature/i);
  });

  it.each(EXAMPLES)('%s: opa inspect agrees with toolgate bundle inspect (manifest, roots, revision, files)', async (example) => {
    for (const variant of VARIANTS) {
      const out = await compileVariant(example, 'strict', variant);
      const bundle = join(out, 'bundle.tar.gz');
      const theirs = JSON.parse(runOpa(['inspect', '--format', 'json', bundle]).stdout) as { manifest: { revision: string; roots: string[] }; namespaces: Record<string, string[]> };
      const r = await runCli(['bundle', 'inspect', bundle]);
      expect(r.code, r.stderr).toBe(0);
      const ours = r.json() as { manifest: unknown; revision: string; roots: string[]; entries: { name: string }[] };
      expect(ours.manifest).toEqual(theirs.manifest);
      expect(ours.revision).toBe(theirs.manifest.revision);
      expect(ours.roots).toEqual(theirs.manifest.roots);
      const loaded = Object.values(theirs.namespaces).flat().sort();
      const content = ours.entries.map((e) => e.name).filter((n) => n.endsWith('.rego') || n.endsWith('data.json')).sort();
      expect(content).toEqual(loaded);
      expect(ours.entries.map((e) => e.name)).toContain('.manifest');
      if (variant === 'signed') expect(ours.entries.map((e) => e.name)).toContain('.signatures.json');
    }
  });
});
