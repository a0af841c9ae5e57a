/**
 * OPA decision logs back as observations: identity only, toolgate's entrypoints only, the window
 * from the events, and per agent the calls nobody declared, dead authority and coverage.
 */
import { describe, expect, it, vi } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentActivity, isToolgatePath, readDecisionLogs, windowOf } from '../../../src/connectome/opa-decision-logs.ts';
import { ToolgateError } from '../../../src/errors.ts';
import { runCli } from '../../helpers/cli.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const ev = (id: string, at: string, input: unknown, extra: object = {}) => JSON.stringify({ decision_id: id, timestamp: at, labels: { id: 'opa' }, path: 'toolgate/authz/decision', input, result: { allow: true }, ...extra });

describe('readDecisionLogs', () => {
  it('takes agent, qualified tool, time and allow; skips other paths and inputs', () => {
    const text = [
      ev('1', '2026-12-01T10:00:00Z', { agent: 'a', tool: 's::t', token: 'SECRET' }),
      ev('2', '2026-12-01T10:00:01Z', { agent: 'a', tool: 'bare' }),
      ev('3', '2026-12-01T10:00:02Z', { agent: 'a', tool: 's::t' }, { path: 'system/main' }),
      ev('4', '2026-12-01T10:00:03Z', { attributes: { request: {} } }),
      ev('5', '2026-12-01T10:00:04Z', { agent: 'b', tool: 's::u' }, { result: { allow: false, reason: 'NOT_GRANTED' } }),
    ].join('\n');
    const r = readDecisionLogs(text, 'd.jsonl');
    expect(r.skipped).toBe(3);
    expect(r.calls).toEqual([
      { agent: 'a', server: 's', tool: 't', atMs: Date.parse('2026-12-01T10:00:00Z'), allowed: true },
      { agent: 'b', server: 's', tool: 'u', atMs: Date.parse('2026-12-01T10:00:04Z'), allowed: false },
    ]);
    expect(JSON.stringify(r)).not.toContain('SECRET');
    expect(windowOf(r.calls)).toEqual({ startMs: Date.parse('2026-12-01T10:00:00Z'), endMs: Date.parse('2026-12-01T10:00:04Z') + 1 });
  });
  it('reads a POST /logs body (a JSON array) too', () => {
    expect(readDecisionLogs(`[${ev('1', '2026-12-01T10:00:00Z', { agent: 'a', tool: 's::t' })}]`, 'b.json').calls).toHaveLength(1);
  });
  it.each([['not json', '{x'], ['no decision_id', '{"timestamp":"2026-12-01T10:00:00Z"}'], ['bad time', '{"decision_id":"1","timestamp":"yesterday"}']])('refuses %s with DECISION_LOG_INVALID and the line', (_w, text) => {
    try {
      readDecisionLogs(`\n${text}\n`, 'd.jsonl');
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ToolgateError);
      expect((e as ToolgateError).code).toBe('DECISION_LOG_INVALID');
      expect((e as ToolgateError).at[0]).toMatchObject({ file: 'd.jsonl', line: 2 });
    }
  });
  it('knows toolgate entrypoint paths', () => {
    expect(['toolgate/authz/decision', 'toolgate/authz', 'data.toolgate.authz.allow', 'toolgate/authz/gateways/envoy/allow'].map(isToolgatePath)).toEqual([true, true, true, true]);
    expect(['system/main', 'toolgatex/authz', 'other/toolgate/authz'].map(isToolgatePath)).toEqual([false, false, false]);
  });
});

describe('agentActivity', () => {
  it('reports undeclared calls, dead authority and coverage per agent, within the window', () => {
    const calls = [
      { agent: 'a', server: 's', tool: 't', atMs: 10, allowed: true },
      { agent: 'a', server: 's', tool: 'x', atMs: 11, allowed: false },
      { agent: 'ghost', server: 's', tool: 't', atMs: 12, allowed: false },
      { agent: 'a', server: 's', tool: 'u', atMs: 99, allowed: true },
    ];
    const r = agentActivity(calls, { startMs: 0, endMs: 50 }, new Map([['a', new Set(['s::t', 's::u'])], ['idle', new Set(['s::t'])]]));
    expect(r.a).toMatchObject({ undeclared: ['s::x'], dead_authority: ['s::u'], coverage: 0.5, granted: 2, exercised: 1 });
    expect(r.a!.calls['s::t']).toEqual({ calls: 1, allowed: 1, refused: 0 });
    expect(r.idle).toMatchObject({ undeclared: [], dead_authority: ['s::t'], coverage: 0 });
    expect(r.ghost).toMatchObject({ undeclared: ['s::t'], coverage: null });
  });
});

describe('observe --opa-decision-logs', () => {
  it('writes the observed connectome, the events\' window and per-agent activity that diff reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-dl-'));
    const logs = join(dir, 'decision-logs.jsonl');
    writeFileSync(logs, [ev('1', '2026-12-01T10:00:00Z', { agent: 'ci-bot', tool: 'git::git_log' }), ev('2', '2026-12-01T10:00:09Z', { agent: 'ops-agent', tool: 'git::git_show' }, { result: { allow: false } })].join('\n') + '\n');
    const r = await runCli(['observe', '--opa-decision-logs', logs, '--example', 'quickstart', '--out', join(dir, 'observed.json'), '--window-out', join(dir, 'window.json'), '--activity-out', join(dir, 'activity.json')], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8'))).toEqual({ started_at: '2026-12-01T10:00:00.000Z', ended_at: '2026-12-01T10:00:09.001Z' });
    const act = JSON.parse(readFileSync(join(dir, 'activity.json'), 'utf8'));
    expect(act.agents['ci-bot']).toMatchObject({ undeclared: [], dead_authority: ['filesystem::list_directory', 'git::git_show'], exercised: 1, granted: 3 });
    expect(act.agents['ops-agent'].undeclared).toEqual(['git::git_show']);
    const c = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'out')], { cwd: dir });
    expect(c.code, c.stderr).toBe(0);
    const d = await runCli(['diff', '--declared', join(dir, 'out', 'connectome.json'), '--observed', join(dir, 'observed.json'), '--window', join(dir, 'window.json')], { cwd: dir });
    expect(d.code, d.stderr).toBe(0);
    const rec = JSON.parse(d.stdout);
    expect(rec.classes.declared_and_observed).toEqual(expect.arrayContaining([{ from: 'git/server', kind: 'invoke', to: 'git/tool/git_log' }]));
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);
});

/** One event as OPA v1.22.3 ships it to POST /logs and `bundle serve --receive` appends it (captured, ids replaced). */
const opaEvent = (n: number, at: string, agent: string, tool: string, allow: boolean) =>
  JSON.stringify({
    bundles: { quickstart: { revision: 'a9d6ffe14a725beb09801f0bfab1bcac249c493130017fa7b70b374fe18cbc27' } },
    decision_id: `19564643-3cac-46fc-aebd-70928518${String(n).padStart(4, '0')}`,
    input: { agent, tool },
    labels: { id: '54f811a2-77c3-4c09-b2c8-3346ceb638ae', member: 'b', version: '1.22.3' },
    metrics: { counter_server_query_cache_hit: 0, timer_rego_query_eval_ns: 234336, timer_server_handler_ns: 596097 },
    path: 'toolgate/authz/decision',
    req_id: n,
    requested_by: '127.0.0.1:36098',
    result: { allow, graph_state: { generation: 1, instance_id: 'tg-f6bbbad17046427c' }, profile: 'strict', reason: allow ? null : 'NOT_GRANTED' },
    timestamp: at,
  });

describe('diff --per-agent', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-dpa-'));
    const logs = join(dir, 'decision-logs.jsonl');
    writeFileSync(
      logs,
      [
        opaEvent(1, '2026-12-01T13:12:59.471756717Z', 'ci-bot', 'git::git_log', true),
        opaEvent(2, '2026-12-01T13:13:00.000000001Z', 'ci-bot', 'git::git_log', true),
        opaEvent(3, '2026-12-01T13:13:01Z', 'ops-agent', 'git::git_show', false),
        // Outside the window below: not counted.
        opaEvent(4, '2026-12-01T14:00:00Z', 'publisher', 'notes::publish_note', true),
      ].join('\n') + '\n',
    );
    writeFileSync(join(dir, 'window.json'), JSON.stringify({ started_at: '2026-12-01T13:00:00Z', ended_at: '2026-12-01T13:30:00Z' }));
    return { dir, logs };
  };

  it('writes, beside the unchanged diff record, the per-agent report over the diff\'s window, the same report observe writes', async () => {
    const { dir, logs } = setup();
    const c = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'out')], { cwd: dir });
    expect(c.code, c.stderr).toBe(0);
    const o = await runCli(['observe', '--opa-decision-logs', logs, '--window-start', '2026-12-01T13:00:00Z', '--window-end', '2026-12-01T13:30:00Z', '--example', 'quickstart', '--out', join(dir, 'observed.json'), '--activity-out', join(dir, 'activity.json')], { cwd: dir });
    expect(o.code, o.stderr).toBe(0);
    const base = ['diff', '--declared', join(dir, 'out', 'connectome.json'), '--observed', join(dir, 'observed.json'), '--window', join(dir, 'window.json')];
    const plain = await runCli(base, { cwd: dir });
    const d = await runCli([...base, '--per-agent', join(dir, 'per-agent.json'), '--opa-decision-logs', logs, '--example', 'quickstart'], { cwd: dir });
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toBe(plain.stdout);
    const report = JSON.parse(readFileSync(join(dir, 'per-agent.json'), 'utf8'));
    expect(report).toMatchObject({ kind: 'toolgate.observed-activity', schema_version: 1, window: { started_at: '2026-12-01T13:00:00Z', ended_at: '2026-12-01T13:30:00Z' }, calls: 3 });
    expect(report.agents['ci-bot']).toEqual({
      calls: { 'git::git_log': { calls: 2, allowed: 2, refused: 0 } },
      undeclared: [],
      dead_authority: ['filesystem::list_directory', 'git::git_show'],
      coverage: 1 / 3,
      granted: 3,
      exercised: 1,
    });
    expect(report.agents['ops-agent'].undeclared).toEqual(['git::git_show']);
    expect(report.agents.publisher.calls).toEqual({});
    expect(readFileSync(join(dir, 'per-agent.json'))).toEqual(readFileSync(join(dir, 'activity.json')));
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('refuses a window without times (DIFF_REFUSED) and --per-agent without logs (usage), writing nothing', async () => {
    const { dir, logs } = setup();
    const c = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'out')], { cwd: dir });
    expect(c.code, c.stderr).toBe(0);
    const graph = join(dir, 'out', 'connectome.json');
    writeFileSync(join(dir, 'label-window.json'), JSON.stringify({ name: 'last week' }));
    const noTimes = await runCli(['diff', '--declared', graph, '--observed', graph, '--window', join(dir, 'label-window.json'), '--per-agent', join(dir, 'p.json'), '--opa-decision-logs', logs, '--example', 'quickstart', '--out', join(dir, 'd.json')], { cwd: dir });
    expect(noTimes.code).not.toBe(0);
    expect(noTimes.stderr).toMatch(/DIFF_REFUSED/);
    expect(noTimes.stderr).not.toMatch(/\n\s+at /);
    const noLogs = await runCli(['diff', '--declared', graph, '--observed', graph, '--window', join(dir, 'window.json'), '--per-agent', join(dir, 'p.json'), '--out', join(dir, 'd.json')], { cwd: dir });
    expect(noLogs.code).toBe(2);
    expect(existsSync(join(dir, 'p.json')) || existsSync(join(dir, 'd.json'))).toBe(false);
    rmSync(dir, { recursive: true, force: true });
  }, 180_000);
});
