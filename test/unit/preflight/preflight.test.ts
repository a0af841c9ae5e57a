import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildPreflight } from '../../../src/preflight/preflight.ts';
import { exampleEstate, inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const VECTORS = new URL('../../vectors/toolgraph-preflight/', import.meta.url);
const vector = (name: string) => JSON.parse(readFileSync(new URL(name, VECTORS), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const validate = ajv.compile(vector('preflight.schema.json'));
const valid = (v: unknown) => {
  const ok = validate(v);
  return ok ? true : JSON.stringify(validate.errors);
};

const EPOCH = { SOURCE_DATE_EPOCH: '1767225600' };
const fleet = exampleEstate('fleet');
const opts = { profile: 'review' as const, runId: 'run-1', createdAt: '2026-01-01T00:00:00Z', graphState: { instance_id: 'i', generation: 3 }, digests: { governance_digest: 'g', catalog_digest: 'c' } };

/** The keys and value kinds of a fixture, which our artifact must have too (additive fields allowed). */
function shapeOf(v: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, Array.isArray(x) ? 'array' : x === null ? 'null' : typeof x]));
}

describe('the peer fixtures', () => {
  it('validate against the copied schema, except the unknown major version', () => {
    for (const f of readdirSync(VECTORS).filter((n) => n.startsWith('preflight-'))) {
      expect(validate(vector(f)), f).toBe(f !== 'preflight-v2.json');
    }
  });
});

describe('buildPreflight', () => {
  it('warns for the fleet reader with the violation path, matching the warn fixture shape', () => {
    const p = buildPreflight(fleet, 'reader', ['echo', 'memtomem-stm::langchain__search_docs_by_lang_chain', 'legacy::missing'], opts);
    expect(valid(p)).toBe(true);
    expect(p.decision).toBe('advisory_warn');
    expect(p.eligible).toEqual(['everything::echo']);
    expect(p.rejected.map((r) => r.reason)).toEqual(['DENY_VIOLATION', 'TOOL_NOT_FOUND']);
    const warn = vector('preflight-warn.json');
    for (const [k, kind] of Object.entries(shapeOf(warn))) expect([k, shapeOf(p as unknown as Record<string, unknown>)[k]]).toEqual([k, kind]);
    expect(shapeOf(p.rejected[0] as unknown as Record<string, unknown>)).toMatchObject(shapeOf((warn.rejected as Record<string, unknown>[])[0]!));
    expect(p.rejected[1]).toEqual((vector('preflight-unknown-tool.json').rejected as unknown[])[0]);
  });

  it('allows when nothing is rejected, listing each eligible key once in input order', () => {
    const p = buildPreflight(fleet, 'planner', ['memtomem::mem_search', 'mem_search', 'memory::read_graph'], opts);
    expect(valid(p)).toBe(true);
    expect(p).toMatchObject({ decision: 'advisory_allow', eligible: ['memtomem::mem_search', 'memory::read_graph'], rejected: [] });
    expect(shapeOf(p as unknown as Record<string, unknown>)).toMatchObject(shapeOf(vector('preflight-allow.json')));
  });

  it('is unresolved_identity for an unknown agent, listing nothing (never a false allow)', () => {
    const p = buildPreflight(fleet, 'kimi-code', ['echo'], opts);
    expect(valid(p)).toBe(true);
    const fx = vector('preflight-unresolved-identity.json');
    expect({ agent_found: p.agent_found, decision: p.decision, eligible: p.eligible, rejected: p.rejected }).toEqual({ agent_found: fx.agent_found, decision: fx.decision, eligible: fx.eligible, rejected: fx.rejected });
  });

  it('rejects a drifted tool as the drift fixture does, and never writes an unqualified tool_key', () => {
    const e = inlineEstate('agents: [codex]\ngrants: [{agent: codex, tool: "legacy::old_tool"}, {agent: codex, tool: "bare_gone"}]\n', { servers: [{ name: 's', tools: [{ name: 't' }] }] });
    const p = buildPreflight(e, 'codex', ['legacy::old_tool', 'bare_gone'], opts);
    expect(valid(p)).toBe(true);
    expect(p.rejected[0]).toEqual((vector('preflight-drift.json').rejected as unknown[])[0]);
    expect(p.rejected[1]).toEqual({ candidate: 'bare_gone', tool_key: null, reason: 'DRIFTED' });
  });

  it('lists the ambiguous candidates, and validates with --features rows', () => {
    const e = inlineEstate('agents: [a]\n', { servers: [{ name: 'x', tools: [{ name: 'dup' }] }, { name: 'y', tools: [{ name: 'dup' }] }] });
    const p = buildPreflight(e, 'a', ['dup'], { ...opts, features: true });
    expect(valid(p)).toBe(true);
    expect(p.rejected).toEqual([{ candidate: 'dup', tool_key: null, reason: 'AMBIGUOUS_TOOL', candidates: ['x::dup', 'y::dup'] }]);
    expect(p.features).toHaveLength(1);
  });

  it('scrubs userinfo and query strings from every resource URI', () => {
    const uri = 'postgres://admin:s3cret@db.internal/app?sslkey=/k';
    const e = inlineEstate(`agents: [a]\npolicies: [{id: p, effect: DENY}]\ngrants: [{agent: a, tool: "s::t"}]\ndata_access: [{tool: "s::t", resource: "${uri}", mode: READS}]\ngoverned_by: {"${uri}": [p]}\n`, {
      servers: [{ name: 's', tools: [{ name: 't' }] }],
    });
    const text = JSON.stringify(buildPreflight(e, 'a', ['s::t'], { ...opts, features: true }));
    expect(text).toContain('postgres://db.internal/app');
    expect(text).not.toMatch(/s3cret|admin|sslkey/);
  });
});

describe('toolgate preflight', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'tg-preflight-'));

  it('writes the artifact privately and atomically, with the digest of the exact bytes on stdout', async () => {
    const dir = tmp();
    const out = join(dir, 'preflight.json');
    const r = await runCli(['preflight', 'reader', 'echo', 'langfuse__searchLangfuseDocs', '--profile', 'review', '--run-id', 'run-42', '--out', out, '--example', 'fleet'], { env: EPOCH });
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out);
    const env = r.json();
    expect(env.artifact_digest).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    expect(env).toMatchObject({ out, run_id: 'run-42', decision: 'advisory_warn', bytes: bytes.length });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['preflight.json']);
    const artifact = JSON.parse(bytes.toString('utf8'));
    expect(valid(artifact)).toBe(true);
    expect(artifact).toMatchObject({ run_id: 'run-42', created_at: '2026-01-01T00:00:00Z', graph_generation: 1 });
  });

  it('keeps graph_state when nothing changed and raises the generation when an input did', async () => {
    const dir = tmp();
    const gov = join(dir, 'g.yaml');
    const cat = join(dir, 'c.json');
    writeFileSync(gov, 'agents: [a]\ngrants: [{agent: a, tool: "s::t"}]\n');
    writeFileSync(cat, JSON.stringify({ servers: [{ name: 's', tools: [{ name: 't' }] }] }));
    const out = join(dir, 'p.json');
    const run = () => runCli(['preflight', 'a', 's::t', '--run-id', 'r', '--out', out, '--manifest', gov, '--catalog', cat], { env: EPOCH });
    expect((await run()).json().graph_state.generation).toBe(1);
    expect((await run()).json().graph_state.generation).toBe(1);
    writeFileSync(gov, 'agents: [a, b]\ngrants: [{agent: a, tool: "s::t"}]\n');
    const third = (await run()).json();
    expect(third.graph_state.generation).toBe(2);
    // the same derivation as compile: a compiled bundle's state continues into the preflight
    const bundleDir = join(dir, 'bundle');
    expect((await runCli(['compile', '--manifest', gov, '--catalog', cat, '--out', bundleDir], { env: EPOCH })).code).toBe(0);
    const bundle = JSON.parse(readFileSync(join(bundleDir, 'policy-bundle.json'), 'utf8'));
    const fromBundle = await runCli(['preflight', 'a', 's::t', '--run-id', 'r', '--state', join(bundleDir, 'policy-bundle.json'), '--manifest', gov, '--catalog', cat], { env: EPOCH });
    expect(fromBundle.json().graph_state).toEqual(bundle.graph_state);
  });

  it('prints the same canonical bytes on stdout without --out, for the same inputs', async () => {
    const args = ['preflight', 'ci-bot', 'git_show', 'git_log', '--run-id', 'r', '--example', 'quickstart', '--features'];
    const a = await runCli(args, { env: EPOCH });
    const b = await runCli(args, { env: EPOCH });
    expect(a.code).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(valid(a.json())).toBe(true);
    expect(a.json().features).toHaveLength(2);
  });

  it('exits 0 for an unknown agent (unresolved_identity), saying so on stderr', async () => {
    const r = await runCli(['preflight', 'raeder', 'echo', '--run-id', 'r', '--example', 'fleet'], { env: EPOCH });
    expect(r.code).toBe(0);
    expect(r.json().decision).toBe('unresolved_identity');
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
  });

  it.each([
    [['reader', 'echo']],
    [['reader', 'echo', '--run-id', '']],
    [['reader', '--run-id', 'r']],
    [['reader', 'echo', '--run-id', 'r', '--profile', 'yolo']],
    [['reader', 'echo', '--run-id', 'password=hunter2']],
    [['reader', 'echo', '--run-id', 'line\nbreak']],
  ])('exits 2 on bad usage %j, writing nothing', async (args) => {
    const r = await runCli(['preflight', ...args, '--example', 'fleet'], { env: EPOCH });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain('hunter2');
  });

  it('exits 1 when an explicit --state file is unreadable, and leaves --out untouched', async () => {
    const dir = tmp();
    const out = join(dir, 'p.json');
    writeFileSync(out, 'earlier');
    const r = await runCli(['preflight', 'reader', 'echo', '--run-id', 'r', '--out', out, '--state', join(dir, 'missing.json'), '--example', 'fleet'], { env: EPOCH });
    expect(r.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('earlier');
  });
});
