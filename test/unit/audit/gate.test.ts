import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditReport } from '../../../src/audit/report.ts';
import { unmappedTools } from '../../../src/audit/unmapped-tools.ts';
import { selectionExplain } from '../../../src/selector/selection-explain.ts';
import { exampleEstate, inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const CATALOG = { servers: [{ name: 's', tools: [{ name: 't' }, { name: 'u' }] }] };
const P = 'provenance: {source: operator_asserted, confidence: high, evidence: "T-1"}';
const clean = `agents: [a]\ngrants: [{agent: a, tool: "s::t", ${P}}]\ndata_access: [{tool: "s::t", resource: "db://x", mode: READS, ${P}}]\n`;

describe('audit-report status and blocking findings', () => {
  it('pass with nothing found, warn with advisory findings only, fail with a violation or drift', () => {
    expect(auditReport(inlineEstate(clean, CATALOG))).toMatchObject({ status: 'pass', blocking_findings: [] });
    expect(auditReport(inlineEstate(`agents: [a]\ngrants: [{agent: a, tool: "s::t"}]\n`, CATALOG))).toMatchObject({ status: 'warn', blocking_findings: [] });
    const drifted = auditReport(inlineEstate(`${clean.replace('grants: [', 'grants: [{agent: a, tool: "gone::x", ' + P + '}, ')}`, CATALOG));
    expect(drifted.status).toBe('fail');
    expect(drifted.blocking_findings).toEqual([{ code: 'DRIFTED', tool_key: 'gone::x', server: 'gone', references: 1 }]);
    const q = auditReport(exampleEstate('quickstart'));
    expect(q.status).toBe('fail');
    expect(q.blocking_findings.every((b) => b.code === 'DENY_VIOLATION')).toBe(true);
    expect(q.blocking_findings).toContainEqual(expect.objectContaining({ agent: 'ci-bot', tool_key: 'git::git_show', policy: 'secrets-deny' }));
  });

  it('--include-grants audits CAN_CALL grants too, as the peer does (off by default)', () => {
    const e = inlineEstate(`agents: [a]\ngrants: [{agent: a, tool: "s::t"}]\ndata_access: [{tool: "s::t", resource: "db://x", mode: READS, ${P}}]\n`, CATALOG);
    expect(auditReport(e).audits['unbacked-edges']).toMatchObject({ count: 0, include_grants: false });
    expect(auditReport(e, { includeGrants: true }).audits['unbacked-edges']).toMatchObject({ count: 1, include_grants: true });
  });

  it('CLI: --fail-on-blocking exits 1 while blocking findings remain, and still prints the report', async () => {
    const plain = await runCli(['audit-report', '--example', 'quickstart']);
    expect(plain.code).toBe(0);
    const gated = await runCli(['audit-report', '--example', 'quickstart', '--fail-on-blocking']);
    expect(gated.code).toBe(1);
    expect(gated.json().status).toBe('fail');
    expect(gated.stderr).toMatch(/blocking finding/);
    const dir = mkdtempSync(join(tmpdir(), 'tg-gate-'));
    writeFileSync(join(dir, 'g.yaml'), clean);
    writeFileSync(join(dir, 'c.json'), JSON.stringify(CATALOG));
    const ok = await runCli(['audit-report', '--manifest', join(dir, 'g.yaml'), '--catalog', join(dir, 'c.json'), '--fail-on-blocking', '--format', 'markdown']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain('status **pass**');
    const md = await runCli(['audit-report', '--example', 'quickstart', '--format', 'markdown', '--include-grants']);
    expect(md.stdout).toMatch(/status \*\*fail\*\* \(\d+ blocking findings?\)\n- DENY\\_VIOLATION/);
  });
});

describe('unmapped-tools --all', () => {
  it('lists every known tool without READS/WRITES, granted or not', () => {
    const e = inlineEstate(clean, CATALOG);
    expect(unmappedTools(e).rows).toEqual([]);
    expect(unmappedTools(e, true).rows).toEqual([{ tool_key: 's::u', exposed: true, granted_to: [], directly_governed: false }]);
  });
  it('CLI', async () => {
    const r = await runCli(['unmapped-tools', '--all', '--example', 'quickstart']);
    expect(r.code).toBe(0);
    expect(r.json().count).toBeGreaterThan((await runCli(['unmapped-tools', '--example', 'quickstart'])).json().count);
  });
});

describe('selection-explain --profile', () => {
  it('adds that profile and its decision, the same as decisions[profile]', () => {
    const e = exampleEstate('quickstart');
    const all = selectionExplain(e, 'ops-agent', 'filesystem::read_file');
    const one = selectionExplain(e, 'ops-agent', 'filesystem::read_file', 'review');
    expect(one).toMatchObject({ profile: 'review', decision: all.decisions!.review });
    expect(one.reasons.at(-1)).toBe(`under review: ${all.decisions!.review}`);
    expect(all).not.toHaveProperty('profile');
  });
  it('CLI: --profile is checked; an unknown agent leaves stdout empty', async () => {
    const r = await runCli(['selection-explain', 'ops-agent', 'filesystem::read_file', '--profile', 'strict', '--example', 'quickstart']);
    expect(r.code).toBe(0);
    expect(r.json().decision).toBe('DENY_GOVERNED');
    expect((await runCli(['selection-explain', 'ops-agent', 'x', '--profile', 'lax', '--example', 'quickstart'])).code).toBe(2);
    for (const argv of [['selection-explain', 'nobody', 'x'], ['eligible-tools', 'nobody', 'x'], ['rank-features', 'nobody', 'x'], ['unsafe-tools', 'nobody']]) {
      const u = await runCli([...argv, '--example', 'quickstart']);
      expect(u.code, argv[0]).toBe(1);
      expect(u.stdout, argv[0]).toBe('');
      expect(u.stderr).toContain('AGENT_NOT_FOUND: nobody');
    }
  });
});
