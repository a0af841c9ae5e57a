import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditReport } from '../../../src/audit/report.ts';
import { governanceDot } from '../../../src/audit/governance-dot.ts';
import { renderMarkdown } from '../../../src/audit/markdown.ts';
import { exampleEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

describe('auditReport', () => {
  it('counts the fleet and carries every audit and per-agent exposure', () => {
    const r = auditReport(exampleEstate('fleet'), { includeGrants: true });
    expect(r.counts).toMatchObject({ servers: 8, agents: 3, grants: 22, policies: { DENY: 4, ALLOW: 0 } });
    expect(r.counts.findings).toEqual({ 'unmapped-tools': 4, 'orphan-policies': 0, 'unbacked-edges': 11, drift: 0, 'destructive-unsafeguarded': 3, 'annotation-contradictions': 0 });
    expect(Object.keys(r.audits)).toEqual(['unmapped-tools', 'orphan-policies', 'unbacked-edges', 'drift', 'destructive-unsafeguarded', 'annotation-contradictions']);
    // reader holds only proxied docs tools (plus harmless ones), yet reaches the governed memory namespace
    const reader = r.exposure.find((e) => e.agent === 'reader')!;
    expect(reader.violations).toBe(3);
    expect(reader.policies_reached).toEqual(['ltm-confidentiality']);
    expect(reader.deny_paths.every((p) => p.classification === 'violation' && p.tool_key.startsWith('memtomem-stm::'))).toBe(true);
    // planner's reaches into memtomem are covered by the memtomem::* wildcard exception
    const planner = r.exposure.find((e) => e.agent === 'planner')!;
    const mem = planner.deny_paths.filter((p) => p.tool_key.startsWith('memtomem::'));
    expect(mem.length).toBe(2);
    expect(mem.every((p) => p.classification === 'authorized_but_governed' && p.exception_reason === 'planner reads project memory by design')).toBe(true);
    expect(r.counts.violations).toBe(r.exposure.reduce((n, e) => n + e.violations, 0));
  });

  it('is the same value for the same estate, whatever the order authored', () => {
    expect(JSON.stringify(auditReport(exampleEstate('quickstart')))).toBe(JSON.stringify(auditReport(exampleEstate('quickstart'))));
  });

  it('colours every DENY path edge in the governance DOT, and violations red', () => {
    const e = exampleEstate('quickstart');
    const pic = governanceDot(e, auditReport(e));
    expect(pic.nodes).toBeGreaterThan(5);
    expect(pic.dot).toMatch(/"agent:ci-bot" -> "tool:git::git_show" \[[^\]]*class="deny_path violation"/);
    expect(pic.dot).toMatch(/"tool:git::git_show" -> "resource:file:\/\/\/srv\/app\/.env" \[[^\]]*class="deny_path violation"/);
    expect(pic.dot).toMatch(/"agent:ops-agent" -> "tool:filesystem::write_file" \[[^\]]*class="deny_path authorized"/);
    expect(pic.dot).toMatch(/"agent:ci-bot" -> "tool:git::git_log" \[[^\]]*class="plain"/);
  });

  it('renders markdown with every finding and its evidence', () => {
    const md = renderMarkdown(auditReport(exampleEstate('fleet')));
    expect(md).toContain('### destructive-unsafeguarded');
    expect(md).toContain('filesystem::move\\_file claims destructiveHint');
    expect(md).toContain('crawled/medium');
    expect(md).toContain('| reader | 6 | 3 |');
  });
});

describe('toolgate audit-report', () => {
  it.each(['quickstart', 'fleet'])('prints canonical JSON for %s and exits 0', async (ex) => {
    const r = await runCli(['audit-report', '--example', ex]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().kind).toBe('toolgate.audit-report');
    expect((await runCli(['audit-report', '--example', ex])).stdout).toBe(r.stdout);
  });

  it('writes html atomically and privately with --out, digest of the exact bytes on stdout', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-audit-'));
    const out = join(dir, 'report.html');
    const r = await runCli(['audit-report', '--example', 'fleet', '--format', 'html', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(out);
    expect(r.json()).toEqual({ out, format: 'html', bytes: bytes.length, artifact_digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, status: 'fail', blocking_findings: 7 });
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const html = bytes.toString('utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    // self-contained: inline script only, no external reference that a browser would fetch
    expect(html).not.toMatch(/<script[^>]*\ssrc=|<link|src="http|href="http|@import/i);
    // the node-shape legend, the governance graph and the connectome
    expect((html.match(/<svg/g) ?? []).length).toBe(3);
    expect(html).toContain('class="edge deny_path violation"');
    expect(html).toContain('sign_unset');
  });

  it('exits 2 on an unknown format, 1 on a refused input', async () => {
    expect((await runCli(['audit-report', '--example', 'fleet', '--format', 'pdf'])).code).toBe(2);
    expect((await runCli(['audit-report', '--manifest', '/nonexistent.yaml', '--catalog', '/nonexistent.json'])).code).toBe(1);
  });
  it('draws a signed connectome given with --connectome, its signs coloured', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolgate-report-signed-'));
    const c = await runCli(['compile', '--example', 'quickstart', '--signs', 'examples/quickstart/signs.rego', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(c.code, c.stderr).toBe(0);
    const signed = await runCli(['audit-report', '--example', 'quickstart', '--format', 'html', '--connectome', join(out, 'connectome.json')]);
    expect(signed.code, signed.stderr).toBe(0);
    expect(signed.stdout).toContain('invoke (deny)');
    expect(signed.stdout).toContain('invoke (hold)');
    const declared = await runCli(['audit-report', '--example', 'quickstart', '--format', 'html']);
    expect(declared.stdout).not.toContain('invoke (deny)');
    expect(declared.stdout).toContain('invoke (unset)');
  });
});
