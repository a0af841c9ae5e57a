import { describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { readAnnotations, emptyAnnotations, appendEvent, listCandidates } from '../../../src/review/annotations.ts';
import { candidateId, readReviewReport, uuidV5 } from '../../../src/review/tracegraph-report.ts';
import { reviewPlan } from '../../../src/review/review-plan.ts';
import { credentialShape } from '../../../src/governance/credential-shape.ts';
import { exampleEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const VECTORS = new URL('../../vectors/toolgraph-review/', import.meta.url);
const file = (name: string) => fileURLToPath(new URL(name, VECTORS));
const vector = (name: string) => JSON.parse(readFileSync(file(name), 'utf8')) as Record<string, any>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const validateSidecar = ajv.compile(vector('review-annotations.schema.json'));
const validatePlan = ajv.compile(vector('policy-review-plan.schema.json'));
const valid = (fn: typeof validatePlan, v: unknown) => (fn(v) ? true : JSON.stringify(fn.errors));

const REPORT = file('tracegraph-report-v1.json');
const reportBytes = readFileSync(REPORT);
const report = readReviewReport(REPORT, reportBytes);
const FIXTURE_ID = '167379e8-3436-546b-9dbb-5fa087ab0493';
const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const env = { SOURCE_DATE_EPOCH: '1783843200' };

function tmpReport(): { dir: string; report: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-review-'));
  const p = join(dir, 'candidates.json');
  copyFileSync(REPORT, p);
  return { dir, report: p };
}

describe('candidate identity', () => {
  it('is UUIDv5 as RFC 9562 gives it (the RFC test vector)', () => {
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('reproduces the peer fixture candidate id from its exact tuple', () => {
    const c = vector('review-annotations-v1.json').events[0].candidate;
    expect(candidateId(c)).toBe(FIXTURE_ID);
    expect(report.candidates.map(candidateId)).toContain(FIXTURE_ID);
  });
});

describe('readReviewReport', () => {
  it('projects five fields, drops additive v1 fields, binds the exact bytes and sorts by tuple', () => {
    expect(report.source_report_digest).toBe(sha(reportBytes));
    expect(report.candidates.map((c) => Object.keys(c).sort())).toEqual([
      ['artifact_digest', 'pattern_id', 'pattern_version', 'run_id', 'tool_key'],
      ['artifact_digest', 'pattern_id', 'pattern_version', 'run_id', 'tool_key'],
    ]);
    expect(report.candidates.map((c) => c.tool_key)).toEqual(['filesystem::read_file', 'syncmill::board_stats']);
    expect(JSON.stringify(report)).not.toMatch(/occurrences|generated_by/);
  });

  it('refuses an unknown major version or kind, duplicates and bad fields, without echoing values', () => {
    const base = vector('tracegraph-report-v1.json');
    const bad = (edit: (v: any) => void) => {
      const v = structuredClone(base);
      v.secret = 'password=do-not-echo';
      edit(v);
      return () => readReviewReport('r.json', Buffer.from(JSON.stringify(v)));
    };
    expect(bad((v) => (v.schema_version = 2))).toThrow(/\/schema_version/);
    expect(bad((v) => (v.kind = 'tracegraph.other'))).toThrow(/\/kind/);
    expect(bad((v) => v.candidates.push({ ...v.candidates[0] }))).toThrow(/duplicate/);
    expect(bad((v) => (v.candidates[0].tool_key = 'board_stats'))).toThrow(/\/candidates\/0\/tool_key/);
    expect(bad((v) => (v.candidates[0].pattern_version = 0))).toThrow(/pattern_version/);
    expect(bad((v) => (v.candidates[0].run_id = 'token=abc123'))).toThrow(/\/candidates\/\d\/run_id: is credential-shaped \(secret_assignment\)/);
    try {
      bad((v) => (v.candidates[0].run_id = 'token=abc123'))();
    } catch (e: any) {
      expect(e.message).not.toContain('abc123');
    }
    try {
      bad((v) => (v.schema_version = 2))();
    } catch (e: any) {
      expect(e.message).not.toContain('do-not-echo');
    }
  });
});

describe('the sidecar', () => {
  it('the peer fixture validates and is read when bound to its report', () => {
    const fx = vector('review-annotations-v1.json');
    expect(valid(validateSidecar, fx)).toBe(true);
    // Our derived report holds the fixture's candidate; rebind the fixture to its bytes.
    fx.source.source_report_digest = report.source_report_digest;
    const a = readAnnotations('s.json', JSON.stringify(fx), report);
    const l = listCandidates(report, a);
    expect(l.candidates.find((c) => c.candidate_id === FIXTURE_ID)!.disposition).toBe('accepted');
  });

  it('refuses a sidecar bound to another report, an unknown field, a broken chain', () => {
    const fx = vector('review-annotations-v1.json');
    expect(() => readAnnotations('s.json', JSON.stringify(fx), report)).toThrow(expect.objectContaining({ code: 'DIGEST_MISMATCH' }));
    fx.source.source_report_digest = report.source_report_digest;
    const extra = structuredClone(fx);
    extra.events[0].candidate.prompt = 'must not survive';
    expect(() => readAnnotations('s.json', JSON.stringify(extra), report)).toThrow(/candidate\/prompt/);
    const chain = structuredClone(fx);
    chain.events[0].from_disposition = 'accepted';
    expect(() => readAnnotations('s.json', JSON.stringify(chain), report)).toThrow(/chain is broken/);
    const gap = structuredClone(fx);
    gap.events[0].sequence = 2;
    expect(() => readAnnotations('s.json', JSON.stringify(gap), report)).toThrow(/gap/);
  });

  it('appending keeps a contiguous chain that validates against the schema', () => {
    let a = emptyAnnotations(report);
    for (const d of ['accepted', 'dismissed', 'open', 'accepted'] as const) a = appendEvent(report, a, FIXTURE_ID, { disposition: d, reviewer: 'op', note: null, recordedAt: '2026-07-12T06:00:00Z' }).annotations;
    expect(valid(validateSidecar, a)).toBe(true);
    expect(a.events.map((e) => [e.sequence, e.from_disposition, e.disposition])).toEqual([
      [1, 'open', 'accepted'],
      [2, 'accepted', 'dismissed'],
      [3, 'dismissed', 'open'],
      [4, 'open', 'accepted'],
    ]);
  });
});

describe('credential shapes', () => {
  it('refuses what looks like a secret and lets ordinary notes and paths pass', () => {
    for (const s of ['see https://bob:hunter2@example.com/x', 'password=abc', 'token: xyz', 'Bearer abcdefghijklmnop', 'ghp_' + 'a'.repeat(36), 'AKIA' + 'B'.repeat(16), 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig', '-----BEGIN RSA PRIVATE KEY-----']) {
      expect(credentialShape(s), s).toBeDefined();
    }
    for (const s of ['manual policy review approved', 'see src/app/config.ts::load', '/srv/app/.env is governed', 'author: alice', 'operator@example.com']) {
      expect(credentialShape(s), s).toBeUndefined();
    }
  });
});

describe('toolgate review-candidates', () => {
  it('list is read-only and shows every candidate open', async () => {
    const t = tmpReport();
    const r = await runCli(['review-candidates', 'list', t.report]);
    expect(r.code, r.stderr).toBe(0);
    const v = r.json();
    expect(v.kind).toBe('toolgraph.review-candidate-list');
    expect(v.source_report_digest).toBe(sha(reportBytes));
    expect(v.candidates.map((c: any) => c.disposition)).toEqual(['open', 'open']);
    expect(existsSync(`${t.report}.toolgraph-review.json`)).toBe(false);
  });

  it('annotate appends events under a lock, privately, durably, deterministic with SOURCE_DATE_EPOCH', async () => {
    const t = tmpReport();
    const a = await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'accepted', '--reviewer', 'operator@example.com', '--note', 'manual policy review approved'], { env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.json().candidate).toMatchObject({ candidate_id: FIXTURE_ID, disposition: 'accepted' });
    const side = `${t.report}.toolgraph-review.json`;
    const v = JSON.parse(readFileSync(side, 'utf8'));
    expect(valid(validateSidecar, v)).toBe(true);
    expect(v.events[0]).toMatchObject({ sequence: 1, from_disposition: 'open', disposition: 'accepted', recorded_at: '2026-07-12T08:00:00Z', note: 'manual policy review approved' });
    expect(statSync(side).mode & 0o777).toBe(0o600);
    expect(existsSync(`${side}.lock`)).toBe(false);
    expect(readFileSync(t.report)).toEqual(reportBytes);
    const l = await runCli(['review-candidates', 'list', t.report, '--status', 'accepted']);
    expect(l.json().candidates.map((c: any) => c.candidate_id)).toEqual([FIXTURE_ID]);
  });

  it('a symlink alias of the sidecar shares its history and lock', async () => {
    const t = tmpReport();
    const side = `${t.report}.toolgraph-review.json`;
    await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'accepted', '--reviewer', 'a'], { env });
    const alias = join(t.dir, 'alias.json');
    symlinkSync(side, alias);
    const b = await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'dismissed', '--reviewer', 'b', '--annotations', alias], { env });
    expect(b.code, b.stderr).toBe(0);
    expect(b.json().sidecar).toBe(side);
    expect(JSON.parse(readFileSync(side, 'utf8')).events.map((e: any) => e.disposition)).toEqual(['accepted', 'dismissed']);
    expect(statSync(alias).isFile()).toBe(true);
    // the sidecar may not be the report itself, through any alias
    const rl = join(t.dir, 'report-alias.json');
    symlinkSync(t.report, rl);
    expect((await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'open', '--reviewer', 'c', '--annotations', rl], { env })).code).toBe(2);
    expect(readFileSync(t.report)).toEqual(reportBytes);
  });

  it('concurrent writers in separate processes lose no event', async () => {
    const t = tmpReport();
    const bin = TOOLGATE;
    const ids = report.candidates.map(candidateId);
    const runs = Array.from({ length: 6 }, (_, i) =>
      new Promise<number>((res) => {
        const p = spawn(process.execPath, [bin, 'review-candidates', 'annotate', t.report, ids[i % 2]!, '--status', i % 4 < 2 ? 'accepted' : 'dismissed', '--reviewer', `r${i}`], { env: { ...process.env, ...env }, stdio: 'ignore' });
        p.on('exit', (c) => res(c ?? 99));
      }),
    );
    const codes = await Promise.all(runs);
    expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
    const v = JSON.parse(readFileSync(`${t.report}.toolgraph-review.json`, 'utf8'));
    expect(v.events.map((e: any) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(valid(validateSidecar, v)).toBe(true);
  }, 60_000);

  it('refuses credential-shaped notes and reviewers (exit 2), unknown ids and a changed report (exit 1), writing nothing', async () => {
    const t = tmpReport();
    const side = `${t.report}.toolgraph-review.json`;
    const n = await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'accepted', '--reviewer', 'op', '--note', 'api_key=sk-12345678901234567890abcd'], { env });
    expect(n.code).toBe(2);
    expect(n.stderr).not.toContain('sk-1234');
    expect(existsSync(side)).toBe(false);
    expect((await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'accepted', '--reviewer', 'password=x'], { env })).code).toBe(2);
    expect((await runCli(['review-candidates', 'annotate', t.report, '00000000-0000-5000-8000-000000000000', '--status', 'accepted', '--reviewer', 'op'], { env })).code).toBe(1);
    expect((await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'maybe', '--reviewer', 'op'], { env })).code).toBe(2);
    await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'accepted', '--reviewer', 'op'], { env });
    const before = readFileSync(side);
    writeFileSync(t.report, readFileSync(t.report, 'utf8').replace('"occurrences": 3', '"occurrences": 4'));
    const stale = await runCli(['review-candidates', 'list', t.report]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/DIGEST_MISMATCH/);
    expect((await runCli(['review-candidates', 'annotate', t.report, FIXTURE_ID, '--status', 'open', '--reviewer', 'op'], { env })).code).toBe(1);
    expect(readFileSync(side)).toEqual(before);
  });
});

describe('policy review-plan', () => {
  const quick = exampleEstate('quickstart');
  const GS = { instance_id: 'i', generation: 7 };

  it('evaluates only accepted candidates for the agent, human_required and never automatic', () => {
    let a = emptyAnnotations(report);
    const other = report.candidates.map(candidateId).find((x) => x !== FIXTURE_ID)!;
    a = appendEvent(report, a, other, { disposition: 'accepted', reviewer: 'op', note: null, recordedAt: '2026-07-12T06:00:00Z' }).annotations;
    a = appendEvent(report, a, FIXTURE_ID, { disposition: 'dismissed', reviewer: 'op', note: null, recordedAt: '2026-07-12T06:00:00Z' }).annotations;
    const out = reviewPlan(quick, report, a, { agent: 'ops-agent', profile: 'strict', createdAt: '2026-07-12T07:00:00Z', graphState: GS });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(valid(validatePlan, out.plan)).toBe(true);
    expect(out.plan).toMatchObject({ decision_mode: 'human_required', automatic_change: false, agent: 'ops-agent', graph_state: GS, source_report_digest: report.source_report_digest });
    expect(out.plan.candidates).toHaveLength(1);
    const [c] = out.plan.candidates;
    expect(c).toMatchObject({ tool_key: 'filesystem::read_file', current_decision: 'rejected', current_reason: 'DENY_GOVERNED', recommended_action: 'review_governance_manifest', automatic_change: false });
    expect(c!.current_paths.length).toBeGreaterThan(0);
  });

  it('refuses an unknown agent and a report with nothing accepted', () => {
    const a = emptyAnnotations(report);
    expect(reviewPlan(quick, report, a, { agent: 'ops-agent', profile: 'review', createdAt: 'x', graphState: GS })).toEqual({ ok: false, why: 'NO_ACCEPTED_CANDIDATE' });
    expect(reviewPlan(quick, report, a, { agent: 'nobody', profile: 'review', createdAt: 'x', graphState: GS })).toEqual({ ok: false, why: 'AGENT_NOT_FOUND' });
  });

  it('CLI: writes the plan atomically, leaves governance untouched; unknown agent leaves stdout empty', async () => {
    const t = tmpReport();
    const other = report.candidates.map(candidateId).find((x) => x !== FIXTURE_ID)!;
    await runCli(['review-candidates', 'annotate', t.report, other, '--status', 'accepted', '--reviewer', 'op'], { env });
    const gov = fileURLToPath(new URL('../../../examples/quickstart/governance.yaml', import.meta.url));
    const govBefore = readFileSync(gov);
    const out = join(t.dir, 'plan.json');
    const r = await runCli(['policy', 'review-plan', t.report, '--agent', 'ops-agent', '--profile', 'review', '--out', out, '--example', 'quickstart'], { env });
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(readFileSync(out, 'utf8'));
    expect(valid(validatePlan, plan)).toBe(true);
    expect(r.json().artifact_digest).toBe(sha(readFileSync(out)));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(gov)).toEqual(govBefore);
    const u = await runCli(['policy', 'review-plan', t.report, '--agent', 'nobody', '--out', join(t.dir, 'u.json'), '--example', 'quickstart'], { env });
    expect(u.code).toBe(1);
    expect(u.stdout).toBe('');
    expect(u.stderr).toMatch(/AGENT_NOT_FOUND: nobody/);
    expect(existsSync(join(t.dir, 'u.json'))).toBe(false);
    expect((await runCli(['policy', 'review-plan', t.report, '--agent', 'ops-agent', '--example', 'quickstart'], { env })).code).toBe(2);
  });
});
