import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { readControlPlan, type ControlPlan } from '../../../src/control/control-plan.ts';
import { controlPreflight, evaluatePrincipals, lintPlan, potentialExposures } from '../../../src/control/control-preflight.ts';
import { eligibleTools } from '../../../src/selector/eligible-tools.ts';
import { inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const VECTORS = new URL('../../vectors/toolgraph-control/', import.meta.url);
const file = (name: string) => fileURLToPath(new URL(name, VECTORS));
const text = (name: string) => readFileSync(file(name), 'utf8');
const vector = (name: string) => JSON.parse(text(name)) as Record<string, any>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const validatePlan = ajv.compile(vector('control-plan.schema.json'));
const validateResult = ajv.compile(vector('control-preflight.schema.json'));
const valid = (fn: typeof validateResult, v: unknown) => (fn(v) ? true : JSON.stringify(fn.errors));

const GOVERNANCE = `agents: [codex, claude]
grants:
  - {agent: codex, tool: "workspace::read"}
  - {agent: codex, tool: "workspace::write"}
  - {agent: claude, tool: "workspace::read"}
  - {agent: claude, tool: "workspace::write"}
data_access:
  - {tool: "workspace::read", resource: "file:///workspace/input", mode: READS}
  - {tool: "workspace::write", resource: "file:///workspace/output", mode: WRITES}
`;
const CATALOG = { servers: [{ name: 'workspace', tools: [{ name: 'read' }, { name: 'write' }] }] };
const estate = inlineEstate(GOVERNANCE, CATALOG);
const GS = { instance_id: 'test-instance', generation: 42 };
const sha = (s: string | Buffer) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

function run(name: string, profile: 'strict' | 'review' | 'explore' = 'review') {
  const plan = readControlPlan(name, text(name));
  return controlPreflight(estate, plan, { profile, planDigest: sha(readFileSync(file(name))), createdAt: '2026-08-11T00:00:00Z', graphState: GS });
}

/** The fixture's fields only (ours may add fields; created_at differs only in its UTC spelling). */
function sameAsFixture(ours: Record<string, unknown>, fixture: Record<string, unknown>) {
  for (const [k, v] of Object.entries(fixture)) {
    if (k === 'created_at') expect(Date.parse(ours[k] as string)).toBe(Date.parse(v as string));
    else expect(ours[k], k).toEqual(v);
  }
}

const basePlan = (): any => JSON.parse(text('control-plan-v1.json'));
const lint = (p: unknown) => lintPlan(readControlPlan('p.json', JSON.stringify(p)));

describe('the peer fixtures', () => {
  it('validate against the vendored schemas', () => {
    expect(valid(validatePlan, vector('control-plan-v1.json'))).toBe(true);
    expect(valid(validatePlan, vector('control-plan-exposure-v1.json'))).toBe(true);
    expect(valid(validateResult, vector('control-preflight-v1.json'))).toBe(true);
    expect(valid(validateResult, vector('control-preflight-exposure-v1.json'))).toBe(true);
  });

  it('the clean plan gives the clean result, digest of the exact bytes included', () => {
    const r = run('control-plan-v1.json');
    expect(valid(validateResult, r)).toBe(true);
    sameAsFixture(r as never, vector('control-preflight-v1.json'));
    expect(r.potential_exposures).toEqual([]);
  });

  it('the exposure plan gives the two read-to-write exposures, with witness paths', () => {
    const r = run('control-plan-exposure-v1.json');
    expect(valid(validateResult, r)).toBe(true);
    sameAsFixture(r as never, vector('control-preflight-exposure-v1.json'));
  });
});

describe('readControlPlan', () => {
  it('refuses an unknown major version and another kind, naming the pointer', () => {
    expect(() => readControlPlan('p.json', JSON.stringify({ ...basePlan(), schema_version: 2 }))).toThrow(/\/schema_version.*unsupported schema_version 2/);
    expect(() => readControlPlan('p.json', JSON.stringify({ ...basePlan(), kind: 'x' }))).toThrow(/\/kind/);
  });

  it('ignores unknown additive fields and never copies them out', () => {
    const p = basePlan();
    p.future = { note: 'x' };
    p.nodes[1].future_field = 3;
    const plan = readControlPlan('p.json', JSON.stringify(p));
    expect(JSON.stringify(plan)).not.toContain('future');
  });

  it('refuses body fields, credential-shaped values and absolute paths anywhere', () => {
    const withPrompt = basePlan();
    withPrompt.nodes[1].prompt = 'do it';
    expect(() => readControlPlan('p.json', JSON.stringify(withPrompt))).toThrow(/\/nodes\/1\/prompt.*body-free/);
    const withCred = basePlan();
    withCred.producer.version = 'https://bot:hunter2@example.com/x';
    expect(() => readControlPlan('p.json', JSON.stringify(withCred))).toThrow(/credential-shaped/);
    expect(() => readControlPlan('p.json', JSON.stringify(withCred))).not.toThrow(/hunter2/);
    const withPath = basePlan();
    withPath.producer.name = '/home/me/repo';
    expect(() => readControlPlan('p.json', JSON.stringify(withPath))).toThrow(/absolute filesystem path/);
  });

  it('refuses what the schema refuses: agent-node bounds, fan-out on other edges, duplicate ids, undeclared principals', () => {
    // the last flag says whether the peer's schema refuses it too (duplicates and undeclared principals are ours)
    const cases: [(p: any) => void, RegExp, boolean?][] = [
      [(p) => delete p.nodes[1].timeout_seconds, /\/nodes\/1\/timeout_seconds.*required/],
      [(p) => (p.nodes[0].max_invocations = 1), /\/nodes\/0\/max_invocations/],
      [(p) => (p.edges[1].max_fan_out = 2), /\/edges\/1\/max_fan_out/],
      [(p) => (p.nodes[2].id = 'start'), /duplicate node id/, false],
      [(p) => p.nodes[1].principals.push('ghost'), /ghost.*does not declare/, false],
      [(p) => (p.limits.maximum_cycles = 1), /maximum_cycles/],
      [(p) => (p.principals[0].candidate_tools = ['read']), /qualified/],
      [(p) => delete p.nodes[2].validator_scope, /validator_scope/],
    ];
    for (const [edit, re, schemaToo = true] of cases) {
      const p = basePlan();
      edit(p);
      expect(valid(validatePlan, p) === true).toBe(!schemaToo);
      expect(() => readControlPlan('p.json', JSON.stringify(p))).toThrow(re);
    }
  });

  it('names file and line of a fault', () => {
    try {
      const p = basePlan();
      p.edges[0].kind = 'sometimes';
      readControlPlan('plan.json', JSON.stringify(p, null, 2));
      expect.unreachable();
    } catch (e: any) {
      expect(e.code).toBe('SCHEMA_INVALID');
      expect(e.at[0]).toMatchObject({ file: 'plan.json', path: '/edges/0/kind' });
      expect(e.at[0].line).toBeGreaterThan(1);
    }
  });
});

describe('lintPlan', () => {
  it('finds nothing in the clean plan', () => {
    expect(lint(basePlan())).toEqual([]);
  });

  it('counts starts and ends, names unknown references, unreachable and stuck nodes', () => {
    const p = basePlan();
    p.nodes.push({ id: 'island', kind: 'router', principals: [], agent_call: false });
    p.nodes.push({ id: 'end2', kind: 'end', principals: [], agent_call: false });
    p.edges.push({ from: 'verify', to: 'nowhere', kind: 'failure', decided_by: 'code' });
    const codes = lint(p);
    expect(codes).toContainEqual({ code: 'END_NODE_COUNT', nodes: ['end', 'end2'], declared: 2, required: 1 });
    expect(codes).toContainEqual({ code: 'UNKNOWN_NODE_REFERENCE', edges: [3], nodes: ['nowhere'] });
    expect(codes).toContainEqual({ code: 'UNREACHABLE_NODE', nodes: ['island', 'end2'] });
    expect(codes).toContainEqual({ code: 'NO_TERMINAL_PATH', nodes: ['island'] });
  });

  it('finds a cycle, an unbounded model fan-out, and bounds set too low', () => {
    const p = basePlan();
    p.edges.push({ from: 'verify', to: 'attempts', kind: 'failure', decided_by: 'model' });
    p.edges.push({ from: 'attempts', to: 'verify', kind: 'fanout', decided_by: 'model' });
    p.limits.maximum_agent_calls = 1;
    p.limits.maximum_parallelism = 1;
    const f = lint(p);
    expect(f).toContainEqual({ code: 'CONTROL_CYCLE_UNSUPPORTED', nodes: ['attempts', 'verify'], edges: [1, 3, 4] });
    expect(f).toContainEqual({ code: 'MODEL_FANOUT_UNBOUNDED', edges: [4], nodes: ['attempts'] });
    expect(f).toContainEqual({ code: 'CALL_BOUND_TOO_LOW', nodes: ['attempts'], declared: 1, required: 2 });
    expect(f).toContainEqual({ code: 'PARALLEL_BOUND_TOO_LOW', nodes: ['attempts'], declared: 1, required: 2 });
  });

  it('sums parallelism of agent nodes no path orders (same depth)', () => {
    const p = basePlan();
    p.nodes.splice(2, 0, { id: 'attempts2', kind: 'agent', principals: ['codex'], agent_call: true, max_invocations: 1, max_parallelism: 3, timeout_seconds: 10 });
    p.edges.push({ from: 'start', to: 'attempts2', kind: 'always', decided_by: 'code' }, { from: 'attempts2', to: 'verify', kind: 'join', decided_by: 'code' });
    p.limits.maximum_agent_calls = 3;
    p.limits.maximum_parallelism = 4;
    expect(lint(p)).toEqual([{ code: 'PARALLEL_BOUND_TOO_LOW', nodes: ['attempts', 'attempts2'], declared: 4, required: 5 }]);
  });

  it('every finding it makes validates, on random plans (property)', () => {
    const ids = ['start', 'a', 'b', 'c', 'end'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...ids, 'zz'), fc.constantFrom(...ids), fc.constantFrom('always', 'fanout'), fc.constantFrom('code', 'model')), { maxLength: 10 }), (edges) => {
        const p = basePlan();
        p.nodes = ids.map((id) => (id === 'start' || id === 'end' ? { id, kind: id, principals: [], agent_call: false } : { id, kind: 'agent', principals: ['codex'], agent_call: true, max_invocations: 1, max_parallelism: 1, timeout_seconds: 1 }));
        p.edges = edges.map(([from, to, kind, decided_by]) => ({ from, to, kind, decided_by }));
        const plan: ControlPlan = readControlPlan('p.json', JSON.stringify(p));
        const r = controlPreflight(estate, plan, { profile: 'review', planDigest: sha('x'), createdAt: '2026-01-01T00:00:00Z', graphState: GS });
        expect(valid(validateResult, r)).toBe(true);
        if (r.findings.length > 0) expect(r.decision).toBe('advisory_warn');
      }),
      { numRuns: 200 },
    );
  });
});

describe('potentialExposures', () => {
  it('lists at most the limit and counts them all', () => {
    const plan = readControlPlan('p.json', text('control-plan-exposure-v1.json'));
    const evals = evaluatePrincipals(estate, plan, 'review');
    expect(potentialExposures(estate, plan, evals)).toMatchObject({ total: 2 });
    const cut = potentialExposures(estate, plan, evals, 1);
    expect(cut.rows).toHaveLength(1);
    expect(cut.total).toBe(2);
    const r = run('control-plan-exposure-v1.json');
    expect(r).toMatchObject({ potential_exposure_count: 2, potential_exposures_truncated: false });
  });
});

describe('evaluations', () => {
  it('agree with eligible-tools for each principal, and warn on an unknown principal or a rejection', () => {
    const p = basePlan();
    p.principals.push({ id: 'ghost', candidate_tools: ['workspace::read'] }, { id: 'claude2', candidate_tools: ['workspace::nope'] });
    const plan = readControlPlan('p.json', JSON.stringify(p));
    const r = controlPreflight(estate, plan, { profile: 'strict', planDigest: sha('x'), createdAt: '2026-01-01T00:00:00Z', graphState: GS });
    expect(r.decision).toBe('advisory_warn');
    expect(r.evaluations.find((e) => e.principal === 'ghost')).toEqual({ principal: 'ghost', agent_found: false, eligible: [], rejected: [] });
    for (const e of r.evaluations.filter((x) => x.agent_found)) {
      const single = eligibleTools(estate, e.principal, p.principals.find((x: any) => x.id === e.principal).candidate_tools, 'strict');
      expect(e.eligible).toEqual(single.eligible.map((x) => x.tool_key));
      expect(e.rejected).toEqual(single.rejected);
    }
  });
});

describe('toolgate control-preflight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-control-'));
  writeFileSync(join(dir, 'governance.yaml'), GOVERNANCE);
  writeFileSync(join(dir, 'catalog.json'), JSON.stringify(CATALOG));
  const estateArgs = ['--manifest', join(dir, 'governance.yaml'), '--catalog', join(dir, 'catalog.json')];
  const env = { SOURCE_DATE_EPOCH: '1786406400' };

  it('prints a valid result and exits 0 on allow and on warn', async () => {
    for (const f of ['control-plan-v1.json', 'control-plan-exposure-v1.json']) {
      const r = await runCli(['control-preflight', file(f), '--profile', 'review', ...estateArgs], { env });
      expect(r.code, r.stderr).toBe(0);
      const v = r.json();
      expect(valid(validateResult, v)).toBe(true);
      expect(v.plan_digest).toBe(sha(readFileSync(file(f))));
      expect(v.created_at).toBe('2026-08-11T00:00:00Z');
    }
  });

  it('writes --out privately and atomically, deterministic, and continues its own graph_state', async () => {
    const out = join(dir, 'cp.json');
    const a = await runCli(['control-preflight', file('control-plan-v1.json'), '--out', out, ...estateArgs], { env });
    expect(a.code, a.stderr).toBe(0);
    const bytes = readFileSync(out);
    expect(a.json().artifact_digest).toBe(sha(bytes));
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const b = await runCli(['control-preflight', file('control-plan-v1.json'), '--out', out, ...estateArgs], { env });
    expect(b.json().graph_state).toEqual(a.json().graph_state);
    expect(readFileSync(out)).toEqual(bytes);
  });

  it('refuses a bad plan with exit 1 and writes nothing; bad usage exits 2', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...basePlan(), schema_version: 2 }));
    const out = join(dir, 'never.json');
    const r = await runCli(['control-preflight', bad, '--out', out, ...estateArgs], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/SCHEMA_INVALID.*schema_version/);
    expect(() => statSync(out)).toThrow();
    expect((await runCli(['control-preflight', ...estateArgs], { env })).code).toBe(2);
    expect((await runCli(['control-preflight', file('control-plan-v1.json'), '--profile', 'lax', ...estateArgs], { env })).code).toBe(2);
  });
});
