/**
 * The peer's documented CLI workflow (toolgraph README "Quickstart" and "Or step by step", the
 * selector surface, the gate exhibit) run with toolgate on the peer's own example manifests, and
 * its output and exit-code contract (ADR-0003): stdout only JSON, diagnostics on stderr, exit 0
 * for advisory answers, non-zero only for the opt-in gates and the documented refusals.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, type CliRun } from '../../helpers/cli.ts';
import { peerExample } from './peer-helpers.ts';

const STM_DOCS = 'memtomem-stm::langchain__search_docs_by_lang_chain';

/** Runs toolgate in the example's folder; stdout, when there is any, must be one JSON document. */
async function tg(dir: string, ...argv: string[]): Promise<CliRun> {
  const r = await runCli(argv, { cwd: dir });
  if (r.stdout !== '') expect(() => JSON.parse(r.stdout), `${argv.join(' ')}: stdout is JSON`).not.toThrow();
  return r;
}

describe('the default demo (governance.yaml): public-bot reaches the secrets-deny file', () => {
  const dir = peerExample('governance');

  it('unsafe-tools public-bot: the violation, exit 0; --all adds nothing here; --fail-on-violation exits 1', async () => {
    const r = await tg(dir, 'unsafe-tools', 'public-bot');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ agent_found: true, rows: [{ tool_key: 'filesystem::read_file', policy: 'secrets-deny', classification: 'violation' }] });
    expect((await tg(dir, 'unsafe-tools', 'public-bot', '--all')).json().rows).toHaveLength(1);
    expect((await tg(dir, 'unsafe-tools', 'public-bot', '--fail-on-violation')).code).toBe(1);
    expect((await tg(dir, 'unsafe-tools', 'public-bot', '--all', '--fail-on-violation')).code).toBe(1);
  });

  it('check-access public-bot read_file: a bare name one server exposes resolves; DENY with the path, exit 0', async () => {
    const r = await tg(dir, 'check-access', 'public-bot', 'read_file');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ agent_found: true, found: true, tool_key: 'filesystem::read_file', verdict: 'DENY', all_authorized: false });
    expect(r.json().deny_evidence[0]).toMatchObject({ classification: 'violation', path: '(public-bot)-[:CAN_CALL]->(filesystem::read_file)-[:READS]->(file:///private/secrets.env)-[:GOVERNED_BY]->(secrets-deny)' });
  });

  it('blast-radius of the resource names its policy, both tools and both agents; an unknown name is found: false, exit 0', async () => {
    const r = await tg(dir, 'blast-radius', 'file:///private/secrets.env');
    expect(r.code).toBe(0);
    const v = r.json();
    expect(v).toMatchObject({ found: true, policies: [{ id: 'secrets-deny' }] });
    expect(v.tools.map((t: { tool_key: string }) => t.tool_key)).toEqual(['filesystem::read_file', 'filesystem::write_file']);
    expect(v.agents.map((a: { agent: string }) => a.agent).sort()).toEqual(['ops-agent', 'public-bot']);
    const typo = await tg(dir, 'blast-radius', 'file:///private/secret.env');
    expect([typo.code, typo.json().found]).toEqual([0, false]);
  });

  it('an unknown agent: AGENT_NOT_FOUND on stderr and exit 1 for unsafe-tools and the three selector commands', async () => {
    for (const argv of [['unsafe-tools', 'publicbot'], ['rank-features', 'publicbot', 'read_file'], ['eligible-tools', 'publicbot', 'read_file'], ['selection-explain', 'publicbot', 'read_file']]) {
      const r = await tg(dir, ...argv);
      expect([argv[0], r.code]).toEqual([argv[0], 1]);
      expect(r.stderr).toContain('AGENT_NOT_FOUND');
    }
  });

  it('the negative-truth audits answer as JSON and exit 0 whatever they find', async () => {
    for (const audit of ['unmapped-tools', 'orphan-policies', 'unbacked-edges', 'drift', 'destructive-unsafeguarded', 'annotation-contradictions', 'audit-report']) {
      const r = await tg(dir, audit);
      expect([audit, r.code, r.stdout.length > 0]).toEqual([audit, 0, true]);
    }
    // governance.yaml cites no evidence anywhere: every load-bearing edge is unbacked, grants only on request.
    const unbacked = (await tg(dir, 'unbacked-edges')).json();
    const withGrants = (await tg(dir, 'unbacked-edges', '--include-grants')).json();
    expect(withGrants.count - unbacked.count).toBe(5);
  });
});

describe('check-access --fail-on-deny, as ADR-0003 and the README table have it (gate exhibit)', () => {
  const dir = peerExample('governance-gate');
  it.each([
    ['helper', STM_DOCS, 'DENY', 1], // a violation
    ['stm-proxy', STM_DOCS, 'DENY', 0], // authorized-only DENY: every row an expected exception
    ['planner', 'memtomem::mem_search', 'DENY', 0], // likewise
    ['owner', 'memtomem::mem_add', 'DENY', 1],
    ['helper', 'memtomem::mem_add', 'NOT_GRANTED', 0],
    ['nobody', 'memtomem::mem_add', 'AGENT_NOT_FOUND', 2],
    ['helper', 'memtomem::mem_delete', 'TOOL_NOT_FOUND', 2],
  ])('%s %s is %s: exit 0 without the gate, %i with it', async (agent, tool, verdict, gated) => {
    const plain = await tg(dir, 'check-access', agent, tool);
    expect([plain.code, plain.json().verdict]).toEqual([0, verdict]);
    const gate = await tg(dir, 'check-access', agent, tool, '--fail-on-deny');
    expect([gate.code, gate.json().verdict]).toEqual([gated, verdict]);
    if (verdict === 'DENY') expect(gate.json().all_authorized).toBe(gated === 0);
    if (gated === 2) expect(gate.stderr).toContain(verdict);
  });
});

describe('the gate exhibit: the shipped consumer (stm-proxy) and the leaking helper', () => {
  const dir = peerExample('governance-gate');

  it('eligible-tools stm-proxy under strict rejects DENY_GOVERNED (fail closed); under review it is eligible', async () => {
    const strict = await tg(dir, 'eligible-tools', 'stm-proxy', STM_DOCS, '--profile', 'strict');
    expect(strict.code).toBe(0);
    expect(strict.json()).toMatchObject({ eligible: [], rejected: [{ candidate: STM_DOCS, tool_key: STM_DOCS, reason: 'DENY_GOVERNED' }] });
    expect(strict.json().rejected[0].paths.length).toBeGreaterThan(0);
    const review = await tg(dir, 'eligible-tools', 'stm-proxy', STM_DOCS, '--profile', 'review');
    expect(review.json()).toMatchObject({ eligible: [{ tool_key: STM_DOCS }], rejected: [] });
  });

  it('the default profile is strict', async () => {
    const r = await tg(dir, 'eligible-tools', 'stm-proxy', STM_DOCS);
    expect(r.json()).toMatchObject({ profile: 'strict', rejected: [{ reason: 'DENY_GOVERNED' }] });
  });

  it('rank-features keeps input order, gives unknown and bare-ambiguous candidates rows, and scores by the fixed table', async () => {
    const r = await tg(dir, 'rank-features', 'helper', STM_DOCS, 'memtomem::mem_add', 'no::such', 'mem_search');
    expect(r.code).toBe(0);
    const rows = r.json().rows;
    expect(rows.map((x: { candidate: string }) => x.candidate)).toEqual([STM_DOCS, 'memtomem::mem_add', 'no::such', 'mem_search']);
    // 1.0 a DENY violation (the peer's table, first match wins), whether granted or not.
    expect(rows[0]).toMatchObject({ found: true, granted: true, verdict: 'DENY', violations: 1, risk_score: 1 });
    expect(rows[2]).toMatchObject({ found: false, tool_key: null, verdict: 'TOOL_NOT_FOUND' });
    expect(rows[3]).toMatchObject({ found: true, ambiguous: false, tool_key: 'memtomem::mem_search', granted: false });
    // Annotations are crawled self-claims: medium confidence (ADR-0006).
    expect(rows[0].annotations.provenance).toMatchObject({ source: 'crawled', confidence: 'medium' });
  });

  it('selection-explain names the violation and gives each profile its decision', async () => {
    const r = await tg(dir, 'selection-explain', 'helper', STM_DOCS);
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ verdict: 'DENY', decisions: { strict: 'DENY_VIOLATION', review: 'DENY_VIOLATION', explore: 'eligible' } });
  });
});

describe('the quickstart of the peer README (governance-policy-gateway.yaml)', () => {
  const dir = peerExample('governance-policy-gateway');

  it('eligible-tools vibe-coder read_note publish_note --profile review: read_note eligible, publish_note DENY_VIOLATION', async () => {
    const r = await tg(dir, 'eligible-tools', 'vibe-coder', 'policy-gateway::read_note', 'policy-gateway::publish_note', '--profile', 'review');
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({
      eligible: [{ tool_key: 'policy-gateway::read_note' }],
      rejected: [{ tool_key: 'policy-gateway::publish_note', reason: 'DENY_VIOLATION', paths: ['(vibe-coder)-[:CAN_CALL]->(policy-gateway::publish_note)-[:WRITES]->(file:///demo/drafts)-[:GOVERNED_BY]->(draft-publish-deny)'] }],
    });
  });

  it('every edge cites evidence, so nothing is unbacked even with grants; drop one data_access provenance and that edge is named', async () => {
    expect((await tg(dir, 'unbacked-edges', '--include-grants')).json().count).toBe(0);
    const edited = peerExample('governance-policy-gateway');
    const manifest = join(edited, 'governance.yaml');
    const text = readFileSync(manifest, 'utf8');
    const block = '    provenance:\n      source: operator_asserted\n      confidence: high\n      evidence: examples/governance-policy-gateway.yaml:read-effect\n';
    expect(text).toContain(block);
    writeFileSync(manifest, text.replace(block, ''));
    const r = (await tg(edited, 'unbacked-edges')).json();
    expect(r.count).toBe(1);
    expect(JSON.stringify(r.rows[0])).toContain('policy-gateway::read_note');
  });

  it('policy compile --agent vibe-coder --profile review prints the path, digest, graph state and counts, not the bundle', async () => {
    const r = await tg(dir, 'policy', 'compile', '--agent', 'vibe-coder', '--profile', 'review', '--output', '.toolgraph/policy-bundle.json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ eligible: 1, rejected: 1, graph_state: { generation: 1 } });
    expect(r.json().tools).toBeUndefined();
    expect(r.json().artifact_digest).toBe(`sha256:${createHash('sha256').update(readFileSync(join(dir, '.toolgraph', 'policy-bundle.json'))).digest('hex')}`);
  });
});

describe('the cross-server wedge (governance-public.yaml): ci-bot has no filesystem read grant', () => {
  const dir = peerExample('governance-public');
  it('unsafe-tools ci-bot flags git_show reaching the governed secret on another server', async () => {
    const r = await tg(dir, 'unsafe-tools', 'ci-bot');
    expect(r.code).toBe(0);
    const rows = r.json().rows as { tool_key: string; classification: string }[];
    expect(rows.some((x) => x.tool_key.endsWith('::git_show') && x.classification === 'violation')).toBe(true);
    expect(rows.every((x) => !x.tool_key.startsWith('filesystem::'))).toBe(true);
  });
});

describe('every peer example manifest is accepted as the peer ingests it', () => {
  it.each(['governance', 'governance-fleet', 'governance-gate', 'governance-policy-gateway', 'governance-public', 'governance-syncmill-smoke'])('%s: audit-report under --strict --strict-drift, exit 0', async (name) => {
    const r = await tg(peerExample(name), 'audit-report', '--strict', '--strict-drift');
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('ingest-manifest REJECTED (exit 1): an expected exception that can classify no row', () => {
  it('is refused under --strict (the peer ingest), naming its rule and place; without --strict a warning on stderr, exit 0', async () => {
    const dir = peerExample('governance-policy-gateway');
    const manifest = join(dir, 'governance.yaml');
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}expected_exceptions:\n  - {agent: vibe-coder, tool: "policy-gateway::read_note", policy: draft-publish-deny, reason: "reads only"}\n`);
    const warned = await tg(dir, 'unsafe-tools', 'vibe-coder');
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('exception-no-deny-path');
    const strict = await tg(dir, 'unsafe-tools', 'vibe-coder', '--strict');
    expect([strict.code, strict.stdout]).toEqual([1, '']);
    expect(strict.stderr).toMatch(/MANIFEST_INVALID.*governance\.yaml:\d+:\d+/);
  });
});

describe('the drift contract (ADR-0002): a reference to a tool no server exposes', () => {
  const dir = peerExample('governance', { drop: ['filesystem::write_file'] });

  it('is a non-fatal DRIFT notice on stderr, and the drift audit lists it', async () => {
    const r = await tg(dir, 'drift');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('DRIFT');
    expect(r.json().rows.map((x: { tool_key: string }) => x.tool_key)).toEqual(['filesystem::write_file']);
  });

  it('is refused under --strict-drift: exit 1, STRICT_DRIFT, nothing on stdout', async () => {
    const r = await tg(dir, 'unsafe-tools', 'ops-agent', '--strict-drift');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('STRICT_DRIFT');
    expect(r.stdout).toBe('');
  });

  it('is a DRIFTED rejection under every profile (a hard reject)', async () => {
    for (const profile of ['strict', 'review', 'explore']) {
      const r = await tg(dir, 'eligible-tools', 'public-bot', 'filesystem::write_file', '--profile', profile);
      // public-bot holds no grant on it: not-granted comes first.
      expect(r.json().rejected[0].reason).toBe('NOT_GRANTED');
    }
    const ops = await tg(dir, 'eligible-tools', 'ops-agent', 'filesystem::write_file', '--profile', 'explore');
    expect(ops.json().rejected).toEqual([{ candidate: 'filesystem::write_file', tool_key: 'filesystem::write_file', reason: 'DRIFTED' }]);
  });
});
