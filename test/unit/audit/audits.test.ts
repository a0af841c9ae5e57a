import { describe, expect, it } from 'vitest';
import { unmappedTools } from '../../../src/audit/unmapped-tools.ts';
import { orphanPolicies } from '../../../src/audit/orphan-policies.ts';
import { unbackedEdges } from '../../../src/audit/unbacked-edges.ts';
import { drift } from '../../../src/audit/drift.ts';
import { destructiveUnsafeguarded } from '../../../src/audit/destructive-unsafeguarded.ts';
import { annotationContradictions } from '../../../src/audit/annotation-contradictions.ts';
import { exampleEstate, inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const quickstart = exampleEstate('quickstart');
const fleet = exampleEstate('fleet');

/** A small estate with one of everything the audits look for. */
const catalog = {
  servers: [
    { name: 'docs', tools: [{ name: 'lookup', annotations: { readOnlyHint: true } }, { name: 'purge', annotations: { destructiveHint: true } }, { name: 'wipe', annotations: { destructiveHint: true } }] },
    { name: 'down', status: 'failed', error: 'spawn failed', tools: [] },
  ],
};
const governance = `
agents: [a, b]
policies:
  - {id: p-deny, effect: DENY}
  - {id: p-unbound, effect: DENY}
  - {id: p-untouched, effect: ALLOW}
  - {id: p-ungranted, effect: DENY}
grants:
  - {agent: a, tool: "docs::lookup", provenance: {source: operator_asserted, evidence: "T-1"}}
  - {agent: a, tool: "down::gone"}
  - {agent: b, tool: "docs::wipe", provenance: {evidence: "T-2"}}
data_access:
  - {tool: "docs::lookup", resource: "db://notes", mode: WRITES, provenance: {source: operator_asserted, confidence: high, evidence: "lookup caches answers in notes"}}
  - {tool: "docs::purge", resource: "db://archive", mode: WRITES}
  - {tool: "down::gone", resource: "db://notes", mode: READS, provenance: {evidence: "old runbook"}}
governed_by:
  "db://notes": [p-deny]
  "db://nobody": [p-untouched]
  "db://archive": [p-ungranted]
expected_exceptions: []
`;
const small = inlineEstate(governance, catalog);

describe('unmapped-tools', () => {
  it('is empty on the quickstart, where every granted tool is mapped', () => {
    expect(unmappedTools(quickstart)).toEqual({ audit: 'unmapped-tools', count: 0, rows: [] });
  });
  it('lists the fleet tools granted without data access, with who holds them', () => {
    const r = unmappedTools(fleet);
    expect(r.rows.map((x) => x.tool_key)).toEqual(['everything::echo', 'filesystem::create_directory', 'sequential-thinking::sequentialthinking', 'time::get_current_time']);
    expect(r.rows.find((x) => x.tool_key === 'time::get_current_time')!.granted_to).toEqual(['planner', 'publisher', 'reader']);
  });
  it('does not take an annotation for a mapping: a readOnly-claiming tool without edges stays unmapped', () => {
    const e = inlineEstate('agents: [a]\ngrants: [{agent: a, tool: "s::t"}]\n', { servers: [{ name: 's', tools: [{ name: 't', annotations: { readOnlyHint: true } }] }] });
    expect(unmappedTools(e).rows.map((x) => x.tool_key)).toEqual(['s::t']);
    expect(e.accessByTool.size).toBe(0);
  });
});

describe('orphan-policies', () => {
  it('is empty on both examples: every policy reaches some agent', () => {
    expect(orphanPolicies(quickstart).count).toBe(0);
    expect(orphanPolicies(fleet).count).toBe(0);
  });
  it('says where the chain breaks', () => {
    const rows = orphanPolicies(small).rows;
    expect(rows.map((r) => [r.policy, r.reason])).toEqual([
      ['p-unbound', 'UNBOUND'],
      ['p-ungranted', 'UNGRANTED'],
      ['p-untouched', 'UNTOUCHED'],
    ]);
    expect(rows.find((r) => r.policy === 'p-ungranted')!.tools).toEqual(['docs::purge']);
    expect(rows[0]!.at).toMatch(/^g\.yaml:\d+:\d+/);
  });
});

describe('unbacked-edges', () => {
  it('lists the quickstart binding with no evidence, at its line', () => {
    const r = unbackedEdges(quickstart);
    expect(r.rows).toEqual([
      { edge: 'GOVERNED_BY', from: 'file:///srv/app/README.md', to: 'docs-public', provenance: { source: 'operator_asserted', confidence: 'high', evidence: null }, at: expect.stringMatching(/^quickstart\/governance\.yaml:\d+:\d+/) },
    ]);
  });
  it('adds CAN_CALL grants only with includeGrants', () => {
    const without = unbackedEdges(fleet);
    const withGrants = unbackedEdges(fleet, true);
    expect(without.rows.some((r) => r.edge === 'CAN_CALL')).toBe(false);
    expect(withGrants.include_grants).toBe(true);
    expect(withGrants.rows.filter((r) => r.edge === 'CAN_CALL').map((r) => `${r.from}->${r.to}`)).toEqual([
      'publisher->time::get_current_time',
      'reader->everything::echo',
      'reader->filesystem::list_directory',
      'reader->memtomem-stm::langchain__search_docs_by_lang_chain',
      'reader->memtomem-stm::langfuse__getLangfuseOverview',
      'reader->memtomem-stm::langfuse__searchLangfuseDocs',
      'reader->time::get_current_time',
    ]);
    expect(without.rows.map((r) => `${r.edge} ${r.from}->${r.to}`)).toEqual([
      'READS fetch::fetch->https://*',
      'GOVERNED_BY file:///sandbox/.env->sandbox-secrets-deny',
      'GOVERNED_BY https://*->external-egress-audit',
      'GOVERNED_BY memory::delete_entities->knowledge-graph-integrity',
    ]);
  });
});

describe('drift', () => {
  it('is empty on both examples', () => {
    expect(drift(quickstart).count).toBe(0);
    expect(drift(fleet).count).toBe(0);
  });
  it('lists every reference to a tool no server exposes, and the server that failed to crawl', () => {
    const r = drift(small);
    expect(r.rows).toHaveLength(1);
    expect(r.rows[0]).toMatchObject({ tool_key: 'down::gone', server: 'down', server_status: 'failed' });
    expect(r.rows[0]!.references.map((x) => [x.kind, x.other])).toEqual([
      ['CAN_CALL', 'a'],
      ['READS', 'db://notes'],
    ]);
  });
});

describe('destructive-unsafeguarded', () => {
  it('is empty on the quickstart: write_file claims destructive and its resource is governed', () => {
    expect(destructiveUnsafeguarded(quickstart).count).toBe(0);
  });
  it('lists the fleet tools claiming destructive with no governed path, citing the claim as crawled/medium', () => {
    const r = destructiveUnsafeguarded(fleet);
    expect(r.rows.map((x) => x.tool_key)).toEqual(['filesystem::move_file', 'memory::delete_observations', 'memory::delete_relations']);
    expect(r.rows[0]!.claim.provenance).toMatchObject({ source: 'crawled', confidence: 'medium' });
    // guarded directly (delete_entities) or through a resource (write_file, edit_file): not listed
    expect(r.rows.some((x) => ['memory::delete_entities', 'filesystem::write_file', 'filesystem::edit_file'].includes(x.tool_key))).toBe(false);
  });
  it('counts a governed resource as a guard, and a merely touched ungoverned one as none', () => {
    expect(destructiveUnsafeguarded(small).rows.map((x) => x.tool_key)).toEqual(['docs::wipe']);
    // purge writes db://archive, which p-ungranted governs: guarded
  });
});

describe('annotation-contradictions', () => {
  it('is empty on both examples', () => {
    expect(annotationContradictions(quickstart).count).toBe(0);
    expect(annotationContradictions(fleet).count).toBe(0);
  });
  it('cites both provenances for an authored WRITES on a readOnly-claiming tool', () => {
    const r = annotationContradictions(small);
    expect(r.rows).toEqual([
      {
        tool_key: 'docs::lookup',
        resource: 'db://notes',
        claim: { readOnlyHint: true, provenance: { source: 'crawled', confidence: 'medium', evidence: expect.stringContaining('docs tools/list') } },
        authored: { edge: 'WRITES', provenance: { source: 'operator_asserted', confidence: 'high', evidence: 'lookup caches answers in notes' }, at: expect.stringMatching(/^g\.yaml:\d+:\d+/) },
      },
    ]);
  });
  it('creates no edge from a claim: the tool reads nothing it was not authored to', () => {
    expect(small.accessByTool.get('docs::lookup')!.map((a) => a.mode)).toEqual(['WRITES']);
  });
});

describe('audit commands', () => {
  const cmds = ['unmapped-tools', 'orphan-policies', 'unbacked-edges', 'drift', 'destructive-unsafeguarded', 'annotation-contradictions'];
  it.each(cmds)('%s prints the library answer and exits 0 on both examples', async (cmd) => {
    for (const ex of ['quickstart', 'fleet']) {
      const r = await runCli([cmd, '--example', ex]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json()).toMatchObject({ audit: cmd, count: expect.any(Number) });
    }
  });
  it.each(cmds)('%s exits 2 on a stray argument and 1 on an unreadable manifest', async (cmd) => {
    expect((await runCli([cmd, 'extra', '--example', 'fleet'])).code).toBe(2);
    expect((await runCli([cmd, '--bogus', '--example', 'fleet'])).code).toBe(2);
    const r = await runCli([cmd, '--manifest', '/nonexistent/g.yaml', '--catalog', '/nonexistent/c.json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
  });
  it('unbacked-edges --include-grants adds the grants', async () => {
    const r = await runCli(['unbacked-edges', '--include-grants', '--example', 'fleet']);
    expect(r.code).toBe(0);
    expect(r.json().count).toBe(11);
  });
});
