/**
 * The peer's control-plan preflight, review annotations, policy review plan and observation window
 * contracts, checked through the CLI on the vendored fixtures.
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { scratch, sha256, validates, vectorBytes, vectorJson, vectorPath } from './peer-helpers.ts';

const tg = (dir: string, ...argv: string[]) => runCli(argv, { cwd: dir });

describe('control-preflight on the peer control-plan fixtures', () => {
  const dir = scratch({
    'catalog.json': { servers: [{ name: 'workspace', tools: [{ name: 'read' }, { name: 'write' }] }] },
    'governance.yaml': `instance_id: test-instance
agents: [codex, claude]
grants:
  - {agent: codex, tool: "workspace::read"}
  - {agent: codex, tool: "workspace::write"}
  - {agent: claude, tool: "workspace::read"}
  - {agent: claude, tool: "workspace::write"}
data_access:
  - {tool: "workspace::read", resource: "file:///workspace/input", mode: READS}
  - {tool: "workspace::write", resource: "file:///workspace/output", mode: WRITES}
`,
    'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
  });
  const SCHEMA = 'toolgraph-control/control-preflight.schema.json';

  it.each([
    ['control-plan-v1', 'control-preflight-v1'],
    ['control-plan-exposure-v1', 'control-preflight-exposure-v1'],
  ])('%s gives %s: every fixture field, plan_digest of the exact plan bytes, exit 0', async (plan, result) => {
    const planPath = vectorPath(`toolgraph-control/${plan}.json`);
    expect(validates('toolgraph-control/control-plan.schema.json', vectorJson(`toolgraph-control/${plan}.json`))).toBe(true);
    const r = await tg(dir, 'control-preflight', planPath, '--profile', 'review');
    expect(r.code, r.stderr).toBe(0);
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    const theirs = vectorJson(`toolgraph-control/${result}.json`);
    expect(v.plan_digest).toBe(`sha256:${sha256(readFileSync(planPath))}`);
    for (const [k, want] of Object.entries(theirs)) {
      if (k === 'created_at') expect(Number.isNaN(Date.parse(v[k]))).toBe(false);
      else if (k === 'graph_state') expect(v[k].instance_id).toBe((want as { instance_id: string }).instance_id);
      else expect([k, v[k]]).toEqual([k, want]);
    }
  });

  it('a plan with a cycle and an unreachable node is advisory_warn with the named finding codes, still exit 0', async () => {
    const plan = vectorJson('toolgraph-control/control-plan-v1.json');
    plan.edges.push({ from: 'verify', to: 'attempts', kind: 'failure', decided_by: 'code' });
    plan.nodes.push({ id: 'island', kind: 'validator', principals: [], agent_call: false, validator_scope: 'workspace_result' });
    writeFileSync(join(dir, 'cyclic.json'), JSON.stringify(plan));
    const r = await tg(dir, 'control-preflight', 'cyclic.json', '--profile', 'review');
    expect(r.code, r.stderr).toBe(0);
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    expect(v.decision).toBe('advisory_warn');
    const codes = v.findings.map((f: { code: string }) => f.code);
    expect(codes).toContain('CONTROL_CYCLE_UNSUPPORTED');
    expect(codes).toContain('UNREACHABLE_NODE');
  });

  it('an unknown principal is evaluated as agent_found: false, AGENT_NOT_FOUND on stderr, exit 0', async () => {
    const plan = vectorJson('toolgraph-control/control-plan-v1.json');
    plan.principals[1].id = 'kimi';
    plan.nodes[1].principals = ['codex', 'kimi'];
    writeFileSync(join(dir, 'unknown.json'), JSON.stringify(plan));
    const r = await tg(dir, 'control-preflight', 'unknown.json', '--profile', 'review');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
    const v = r.json();
    expect(validates(SCHEMA, v)).toBe(true);
    expect(v.evaluations.find((e: { principal: string }) => e.principal === 'kimi')).toMatchObject({ agent_found: false, eligible: [] });
  });
});

describe('review candidates, the annotation sidecar and the policy review plan', () => {
  const setup = () => {
    const dir = scratch({
      'catalog.json': { servers: [{ name: 'syncmill', tools: [{ name: 'board_stats' }, { name: 'board_list' }] }, { name: 'filesystem', tools: [{ name: 'read_file' }] }] },
      'governance.yaml': 'agents: [planner]\ngrants:\n  - {agent: planner, tool: "syncmill::board_stats"}\ndata_access:\n  - {tool: "syncmill::board_stats", resource: "syncmill://board", mode: READS}\n',
      'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
    });
    copyFileSync(vectorPath('toolgraph-review/tracegraph-report-v1.json'), join(dir, 'report.json'));
    return dir;
  };
  const FIXTURE = vectorJson('toolgraph-review/review-annotations-v1.json');
  const ID = FIXTURE.events[0].candidate_id as string;

  it("list gives each candidate the peer's UUIDv5 id (the fixture's for syncmill::board_stats), exit 0", async () => {
    const r = await tg(setup(), 'review-candidates', 'list', 'report.json');
    expect(r.code).toBe(0);
    const c = r.json().candidates.find((x: { tool_key: string }) => x.tool_key === 'syncmill::board_stats');
    expect(c).toMatchObject({ candidate_id: ID, ...FIXTURE.events[0].candidate, disposition: 'open' });
  });

  it('annotate appends the fixture event (bar its time) to a sidecar that validates, bound to the exact report bytes', async () => {
    const dir = setup();
    const r = await tg(dir, 'review-candidates', 'annotate', 'report.json', ID, '--status', 'accepted', '--reviewer', 'operator@example.com');
    expect(r.code, r.stderr).toBe(0);
    const sidecar = JSON.parse(readFileSync(join(dir, 'report.json.toolgraph-review.json'), 'utf8'));
    expect(validates('toolgraph-review/review-annotations.schema.json', sidecar)).toBe(true);
    expect(sidecar.source.source_report_digest).toBe(`sha256:${sha256(readFileSync(join(dir, 'report.json')))}`);
    const { recorded_at, ...event } = sidecar.events[0];
    const { recorded_at: _, ...theirs } = FIXTURE.events[0];
    expect(event).toEqual(theirs);
    expect(Number.isNaN(Date.parse(recorded_at))).toBe(false);
  });

  it("reads a sidecar in the peer's own layout (the fixture, bound to this report) and refuses it stale otherwise", async () => {
    const dir = setup();
    const digest = `sha256:${sha256(readFileSync(join(dir, 'report.json')))}`;
    writeFileSync(join(dir, 'stale.json'), vectorBytes('toolgraph-review/review-annotations-v1.json'));
    const stale = await tg(dir, 'review-candidates', 'list', 'report.json', '--annotations', 'stale.json');
    expect([stale.code, stale.stdout]).toEqual([1, '']);
    const bound = vectorBytes('toolgraph-review/review-annotations-v1.json').toString('utf8').replace(FIXTURE.source.source_report_digest, digest);
    writeFileSync(join(dir, 'bound.json'), bound);
    const r = await tg(dir, 'review-candidates', 'list', 'report.json', '--annotations', 'bound.json', '--status', 'accepted');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().candidates.map((c: { candidate_id: string }) => c.candidate_id)).toEqual([ID]);
  });

  it('discards unknown additive v1 fields, fails closed on an unknown major version (exit 1); a note may cite paths', async () => {
    const dir = setup();
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    writeFileSync(join(dir, 'v2.json'), JSON.stringify({ ...report, schema_version: 2 }));
    const v2 = await tg(dir, 'review-candidates', 'list', 'v2.json');
    expect([v2.code, v2.stdout]).toEqual([1, '']);
    writeFileSync(join(dir, 'additive.json'), JSON.stringify({ ...report, future: { x: 1 }, candidates: report.candidates.map((c: object) => ({ ...c, extra: 5 })) }));
    const add = await tg(dir, 'review-candidates', 'list', 'additive.json');
    expect(add.code, add.stderr).toBe(0);
    expect(add.json().candidates.map((c: { candidate_id: string }) => c.candidate_id)).toContain(ID);
    expect(JSON.stringify(add.json())).not.toContain('extra');
    const note = await tg(dir, 'review-candidates', 'annotate', 'additive.json', ID, '--status', 'dismissed', '--reviewer', 'op', '--note', 'see docs/runbook.md and /var/log/x');
    expect(note.code, note.stderr).toBe(0);
  });

  it('refuses a credential-shaped note (exit 2) and an unknown disposition (exit 2), writing nothing', async () => {
    const dir = setup();
    const cred = await tg(dir, 'review-candidates', 'annotate', 'report.json', ID, '--status', 'accepted', '--reviewer', 'op', '--note', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(cred.code).toBe(2);
    const bad = await tg(dir, 'review-candidates', 'annotate', 'report.json', ID, '--status', 'approved', '--reviewer', 'op');
    expect(bad.code).toBe(2);
    expect((await tg(dir, 'review-candidates', 'list', 'report.json', '--status', 'accepted')).json().candidates).toEqual([]);
  });

  it('policy review-plan: human_required, automatic_change false, validating; unknown agent or nothing accepted exits 1', async () => {
    const dir = setup();
    const none = await tg(dir, 'policy', 'review-plan', 'report.json', '--agent', 'planner', '--profile', 'review', '--out', 'plan.json');
    expect(none.code).toBe(1);
    await tg(dir, 'review-candidates', 'annotate', 'report.json', ID, '--status', 'accepted', '--reviewer', 'operator@example.com');
    const r = await tg(dir, 'policy', 'review-plan', 'report.json', '--agent', 'planner', '--profile', 'review', '--out', 'plan.json');
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8'));
    expect(validates('toolgraph-review/policy-review-plan.schema.json', plan)).toBe(true);
    expect(plan).toMatchObject({ decision_mode: 'human_required', agent: 'planner', candidates: [{ candidate_id: ID, current_decision: 'eligible', current_reason: null, automatic_change: false }] });
    expect(r.json().artifact_digest).toBe(`sha256:${sha256(readFileSync(join(dir, 'plan.json')))}`);
    const unknown = await tg(dir, 'policy', 'review-plan', 'report.json', '--agent', 'nobody', '--profile', 'review', '--out', 'plan2.json');
    expect([unknown.code, unknown.stdout]).toEqual([1, '']);
    expect(unknown.stderr).toContain('AGENT_NOT_FOUND');
  });
});

describe('an observation window (JSONL) read by policy propose', () => {
  it('every record validates; zero-call grants become removals; another governance digest is refused (exit 1)', async () => {
    const dir = scratch({
      'catalog.json': { servers: [{ name: 'syncmill', tools: [{ name: 'board_stats' }, { name: 'board_list' }] }] },
      'governance.yaml': 'agents: [planner]\ngrants:\n  - {agent: planner, tool: "syncmill::board_stats"}\ndata_access:\n  - {tool: "syncmill::board_stats", resource: "syncmill://board", mode: READS}\n',
      'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
    });
    const pf = (await tg(dir, 'preflight', 'planner', 'syncmill::board_stats', '--run-id', 'w')).json();
    const window = (digest: string) =>
      [
        { envelope: { governance_digest: digest, graph_generation: pf.graph_generation, graph_instance_id: pf.graph_instance_id, profile: 'strict', window_start: '2026-07-01T00:00:00+00:00', window_end: '2026-07-02T00:00:00+00:00' } },
        { agent: 'planner', tool_key: 'syncmill::board_stats', decision: 'eligible', calls: 0 },
        { agent: 'planner', tool_key: 'syncmill::board_list', decision: 'rejected', calls: 3, would_block_calls: 3, reject_reasons: ['NOT_GRANTED'] },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n') + '\n';
    const text = window(pf.governance_digest);
    for (const line of text.trim().split('\n')) expect(validates('toolgraph-review/observation-window.schema.json', JSON.parse(line))).toBe(true);
    writeFileSync(join(dir, 'window.jsonl'), text);
    const r = await tg(dir, 'policy', 'propose', 'governance.yaml', 'window.jsonl');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ automatic_change: false, removals: [{ agent: 'planner', tool: 'syncmill::board_stats', calls: 0 }] });
    writeFileSync(join(dir, 'other.jsonl'), window('0'.repeat(64)));
    const other = await tg(dir, 'policy', 'propose', 'governance.yaml', 'other.jsonl');
    expect([other.code, other.stdout]).toEqual([1, '']);
  });
});
