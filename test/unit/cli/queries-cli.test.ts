/** The query commands as a user runs them: estate sources, JSON on stdout, and the exit-code contract. */
import { describe, it, expect } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const Q = ['--example', 'quickstart'];

describe('check-access', () => {
  it.each([
    [['ci-bot', 'git::git_show'], 'DENY', 1, 1],
    [['ops-agent', 'filesystem::write_file'], 'DENY', 0, 1], // every row authorized: the peer's gate passes, strict refuses DENY_GOVERNED
    [['ci-bot', 'git::git_log'], 'ALLOW', 0, 0],
    [['ci-bot', 'filesystem::read_file'], 'NOT_GRANTED', 0, 1], // the bundle refuses what is not granted
    [['ci-bto', 'git::git_show'], 'AGENT_NOT_FOUND', 2, 2],
    [['ci-bot', 'git::git_blame'], 'TOOL_NOT_FOUND', 2, 2],
  ] as const)('%j is %s; exit 0 by default, %i under --fail-on-deny, %i under --fail-on-refusal (the strict gateway decision)', async (pair, verdict, denyGate, refusalGate) => {
    const plain = await runCli(['check-access', ...pair, ...Q]);
    expect(plain.code).toBe(0);
    expect(plain.json().verdict).toBe(verdict);
    for (const [flag, code] of [['--fail-on-deny', denyGate], ['--fail-on-refusal', refusalGate]] as const) {
      const gate = await runCli(['check-access', ...pair, ...Q, flag]);
      expect([flag, gate.code]).toEqual([flag, code]);
      expect(gate.json().verdict).toBe(verdict);
    }
  });

  it('resolves a bare name one server exposes, and exits 2 on one two servers share under --fail-on-deny', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-cli-'));
    writeFileSync(join(dir, 'c.json'), JSON.stringify({ servers: [{ name: 'a', tools: [{ name: 'dup' }, { name: 'solo' }] }, { name: 'b', tools: [{ name: 'dup' }] }] }));
    writeFileSync(join(dir, 'g.yaml'), 'agents: [x]\ngrants: [{agent: x, tool: "a::solo"}]\n');
    const estate = ['--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'c.json'), '--fail-on-deny'];
    const solo = await runCli(['check-access', 'x', 'solo', ...estate]);
    expect(solo.json()).toMatchObject({ verdict: 'ALLOW', tool_key: 'a::solo' });
    const dup = await runCli(['check-access', 'x', 'dup', ...estate]);
    expect(dup.code).toBe(2);
    expect(dup.json()).toMatchObject({ verdict: 'AMBIGUOUS_TOOL', candidates: ['a::dup', 'b::dup'] });
  });
});

describe('unsafe-tools', () => {
  it('exits 1 for an unknown agent, saying AGENT_NOT_FOUND on stderr', async () => {
    const r = await runCli(['unsafe-tools', 'nobody', ...Q]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
    expect(r.stdout).toBe(''); // the peer's CLI contract: nothing on stdout for an unknown agent
  });
  it('gates on violations only when asked', async () => {
    expect((await runCli(['unsafe-tools', 'ci-bot', ...Q])).code).toBe(0);
    expect((await runCli(['unsafe-tools', 'ci-bot', ...Q, '--fail-on-violation'])).code).toBe(1);
    const ops = await runCli(['unsafe-tools', 'ops-agent', ...Q, '--all', '--fail-on-violation']);
    expect(ops.code).toBe(0); // only authorized rows
    expect(ops.json().rows).toHaveLength(2);
  });
});

describe('estate sources', () => {
  it('reads toolgate.yaml written by init when no flags are given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-init-'));
    cpSync(new URL('../../../examples/quickstart/', import.meta.url), dir, { recursive: true });
    expect((await runCli(['init'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'toolgate.yaml'), 'utf8')).toContain('manifest: "governance.yaml"');
    expect((await runCli(['init'], { cwd: dir })).code).toBe(2); // refuses to overwrite
    const r = await runCli(['check-access', 'ci-bot', 'git::git_show'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.json().verdict).toBe('DENY');
    const c = await runCli(['compile'], { cwd: dir, env: { SOURCE_DATE_EPOCH: '0' } });
    expect(c.code, c.stderr).toBe(0);
    expect(c.json().out).toBe(join(dir, 'out'));
  });

  it('says how to give an estate when there is none', async () => {
    const r = await runCli(['blast-radius', 'x'], { cwd: mkdtempSync(join(tmpdir(), 'toolgate-empty-')) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("toolgate init");
  });

  it('refuses mixing --example with --manifest, and a lone --manifest', async () => {
    expect((await runCli(['blast-radius', 'x', ...Q, '--manifest', 'g.yaml'])).code).toBe(2);
    expect((await runCli(['blast-radius', 'x', '--manifest', 'g.yaml'])).code).toBe(2);
    expect((await runCli(['blast-radius', 'x', '--example', '../etc'])).code).toBe(2);
  });
});
