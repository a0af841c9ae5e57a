/**
 * The peer's `toolgraph.policy-bundle` v1 (contracts/policy-bundle.schema.json, ADR-0010), checked
 * from outside: its fixtures, and `toolgate compile --format toolgraph-v1` writing the rejected
 * fixture's exact bytes for the estate that fixture describes.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { pythonFloatRepr } from '../../../src/canonical/python-float.ts';
import { python, scratch, sha256, validates, vectorBytes, vectorJson } from './peer-helpers.ts';

const SCHEMA = 'toolgraph-policy-bundle.schema.json';
const FIXTURES = ['policy-bundle-v1', 'policy-bundle-v1-rejected'];

/**
 * The estate behind policy-bundle-v1-rejected.json: the tool of the tool-contract test vector (its
 * digest is the fixture's), granted to fixture-agent, writing a resource under a DENY policy.
 */
function rejectedFixtureEstate(): string {
  const { contract: c } = vectorJson('toolgraph-tool-contract-v1.json');
  const hints = { readOnlyHint: c.read_only_hint, destructiveHint: c.destructive_hint, idempotentHint: c.idempotent_hint, openWorldHint: c.open_world_hint };
  const annotations = Object.fromEntries(Object.entries(hints).filter(([, v]) => v !== null));
  const key = `${c.server}::${c.name}`;
  const prov = (evidence: string) => `{source: operator_asserted, confidence: high, evidence: "${evidence}"}`;
  return scratch({
    'catalog.json': { servers: [{ name: c.server, tools: [{ name: c.name, description: c.description, inputSchema: c.input_schema, annotations }] }] },
    'governance.yaml': `instance_id: fixture-graph-1
agents: [fixture-agent]
policies:
  - {id: draft-publish-deny, effect: DENY, scope: demo-drafts}
grants:
  - {agent: fixture-agent, tool: "${key}", provenance: ${prov('grant')}}
data_access:
  - {tool: "${key}", resource: "file:///demo/drafts", mode: WRITES, provenance: ${prov('effect')}}
governed_by:
  "file:///demo/drafts":
    - {policy: draft-publish-deny, provenance: ${prov('binding')}}
`,
  });
}

const compileV1 = (dir: string, agent: string, profile: string, out = 'out') =>
  runCli(['compile', '--manifest', 'governance.yaml', '--catalog', 'catalog.json', '--format', 'toolgraph-v1', '--agent', agent, '--profile', profile, '--out', out], {
    cwd: dir,
    env: { SOURCE_DATE_EPOCH: String(Date.parse('2026-07-14T00:00:00Z') / 1000) },
  });

describe('the peer policy-bundle fixtures', () => {
  it.each(FIXTURES)('%s validates against the schema, and its .sha256 is of its exact bytes', (name) => {
    const bytes = vectorBytes(`toolgraph-policy-bundle/${name}.json`);
    expect(validates(SCHEMA, JSON.parse(bytes.toString('utf8')))).toBe(true);
    expect(sha256(bytes)).toBe(vectorBytes(`toolgraph-policy-bundle/${name}.sha256`).toString('utf8').trim());
  });

  it.skipIf(!python).each(FIXTURES)("%s is Python's json.dumps(sort_keys, compact, ensure_ascii=False) plus LF", (name) => {
    const bytes = vectorBytes(`toolgraph-policy-bundle/${name}.json`).toString('utf8');
    const script = "import json,sys; v=json.loads(sys.stdin.read()); sys.stdout.write(json.dumps(v, sort_keys=True, separators=(',',':'), ensure_ascii=False)+'\\n')";
    expect(python!(script, bytes)).toBe(bytes);
  });

  it('a tool decision with a duplicated tool_key is only backstopped by uniqueItems when the rows are equal', () => {
    const v = vectorJson('toolgraph-policy-bundle/policy-bundle-v1-rejected.json');
    expect(validates(SCHEMA, { ...v, tools: [v.tools[0], v.tools[0]] })).not.toBe(true);
    expect(validates(SCHEMA, { ...v, graph_state: { ...v.graph_state, extra: 1 } })).not.toBe(true); // graph_state is closed
    expect(validates(SCHEMA, { ...v, tools: [{ ...v.tools[0], reason: undefined }] })).not.toBe(true); // rejected needs a reason
  });
});

describe('compile --format toolgraph-v1 (the peer `policy compile`)', () => {
  it('writes the rejected fixture byte for byte, but for the values the fixture invents (digests, generation)', async () => {
    const dir = rejectedFixtureEstate();
    const r = await compileV1(dir, 'fixture-agent', 'strict');
    expect(r.code, r.stderr).toBe(0);
    const ours = readFileSync(join(dir, 'out', 'policy-bundle.json'), 'utf8');
    const v = JSON.parse(ours);
    expect(validates(SCHEMA, v)).toBe(true);
    // The fixture's digests are placeholders ('a' x 64, 'b' x 64) and its generation 8; put them in ours.
    const theirs = vectorBytes('toolgraph-policy-bundle/policy-bundle-v1-rejected.json').toString('utf8');
    const t = JSON.parse(theirs);
    const aligned = ours
      .replace(`"governance_digest":"${v.governance_digest}"`, `"governance_digest":"${t.governance_digest}"`)
      .replace(`"catalog_digest":"${v.catalog_digest}"`, `"catalog_digest":"${t.catalog_digest}"`)
      .replace(`"generation":${v.graph_state.generation},`, `"generation":${t.graph_state.generation},`);
    expect(aligned).toBe(theirs);
    expect(sha256(aligned)).toBe(vectorBytes('toolgraph-policy-bundle/policy-bundle-v1-rejected.sha256').toString('utf8').trim());
  });

  it.each(['strict', 'review', 'explore'])('validates under --profile %s, risk_score written as the float the peer writes', async (profile) => {
    const dir = rejectedFixtureEstate();
    const r = await compileV1(dir, 'fixture-agent', profile);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(join(dir, 'out', 'policy-bundle.json'), 'utf8');
    const v = JSON.parse(text);
    expect(validates(SCHEMA, v)).toBe(true);
    expect(v.profile).toBe(profile);
    // A violation is rejected under every profile but explore, which rejects only not-found, ambiguous, not-granted and drifted.
    expect(v.tools).toEqual([expect.objectContaining(profile === 'explore' ? { decision: 'eligible' } : { decision: 'rejected', reason: 'DENY_VIOLATION' })]);
    expect(text).toContain('"risk_score":1.0,');
  });

  it('refuses an unknown agent (unresolved identity): exit 1, AGENT_NOT_FOUND on stderr, no bundle written', async () => {
    const dir = rejectedFixtureEstate();
    const r = await compileV1(dir, 'nobody', 'strict');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
    expect(existsSync(join(dir, 'out', 'policy-bundle.json'))).toBe(false);
  });
});

describe('policy compile (the peer command, one file)', () => {
  const env = { SOURCE_DATE_EPOCH: String(Date.parse('2026-07-14T00:00:00Z') / 1000) };
  const policyCompile = (dir: string, agent: string, ...more: string[]) =>
    runCli(['policy', 'compile', '--agent', agent, '--profile', 'strict', '--manifest', 'governance.yaml', '--catalog', 'catalog.json', ...more], { cwd: dir, env });

  it('writes the bytes compile --format toolgraph-v1 writes, privately; again on unchanged inputs the same bytes and generation', async () => {
    const dir = rejectedFixtureEstate();
    const r = await policyCompile(dir, 'fixture-agent', '--output', 'bundle.json');
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(join(dir, 'bundle.json'));
    expect(r.json()).toMatchObject({ artifact_digest: `sha256:${sha256(bytes)}`, graph_state: { instance_id: 'fixture-graph-1', generation: 1 }, eligible: 0, rejected: 1 });
    expect(statSync(join(dir, 'bundle.json')).mode & 0o777).toBe(0o600);
    await compileV1(dir, 'fixture-agent', 'strict');
    expect(bytes.equals(readFileSync(join(dir, 'out', 'policy-bundle.json')))).toBe(true);
    expect((await policyCompile(dir, 'fixture-agent', '--output', 'bundle.json')).json().graph_state.generation).toBe(1);
    expect(readFileSync(join(dir, 'bundle.json')).equals(bytes)).toBe(true);
  });

  it('decides every exposed tool, the ungranted ones rejected NOT_GRANTED; a duplicated catalog row fails (exit 1) and the last good bundle stays', async () => {
    const dir = rejectedFixtureEstate();
    const catalog = JSON.parse(readFileSync(join(dir, 'catalog.json'), 'utf8'));
    catalog.servers[0].tools.push({ name: 'draft', description: 'an ungranted tool' });
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
    expect((await policyCompile(dir, 'fixture-agent', '--output', 'bundle.json')).code).toBe(0);
    const good = readFileSync(join(dir, 'bundle.json'));
    const tools = JSON.parse(good.toString('utf8')).tools as { tool_key: string; decision: string; reason?: string }[];
    expect(tools.map((t) => [t.tool_key, t.decision, t.reason])).toEqual([
      ['도구-서버::draft', 'rejected', 'NOT_GRANTED'],
      ['도구-서버::publish', 'rejected', 'DENY_VIOLATION'],
    ]);
    catalog.servers[0].tools.push(catalog.servers[0].tools[0]);
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify(catalog));
    const dup = await policyCompile(dir, 'fixture-agent', '--output', 'bundle.json');
    expect(dup.code).toBe(1);
    expect(dup.stderr).toContain('DUPLICATE_CATALOG_ROW');
    expect(readFileSync(join(dir, 'bundle.json')).equals(good)).toBe(true);
    // Nor does an unresolved identity replace it.
    expect((await policyCompile(dir, 'nobody', '--output', 'bundle.json')).code).toBe(1);
    expect(readFileSync(join(dir, 'bundle.json')).equals(good)).toBe(true);
  });

  it('an unknown agent (unresolved identity) exits 1 and writes nothing; no --output is bad usage (2)', async () => {
    const dir = rejectedFixtureEstate();
    const r = await policyCompile(dir, 'nobody', '--output', 'bundle.json');
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
    expect(existsSync(join(dir, 'bundle.json'))).toBe(false);
    expect((await policyCompile(dir, 'fixture-agent')).code).toBe(2);
  });
});

describe("pythonFloatRepr: a float in Python's spelling", () => {
  const values = [1, 0, -0, 0.8, 0.6, 0.4, 0.2, 0.25, 1e-5, 1.5e-7, 0.0001, 1e16, 9999999999999998, 123456789012345678, 5e-324, 1.7976931348623157e308, -2.5, 1e22, 0.1 + 0.2];
  it.skipIf(!python)('matches python3 repr() on every value', () => {
    const theirs = python!(`import sys\nfor x in [${values.map((x) => (Object.is(x, -0) ? '-0.0' : x.toExponential())).join(',')}]: print(repr(float(x)))`).trim().split('\n');
    expect(values.map(pythonFloatRepr)).toEqual(theirs);
  });
  it('writes the risk table as the peer does', () => {
    expect([1, 0.8, 0.6, 0.4, 0.2, 0].map(pythonFloatRepr)).toEqual(['1.0', '0.8', '0.6', '0.4', '0.2', '0.0']);
  });
});
