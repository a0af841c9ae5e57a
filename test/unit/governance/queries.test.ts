import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { buildEstate } from '../../../src/governance/estate.ts';
import { checkAccess } from '../../../src/governance/check-access.ts';
import { unsafeTools } from '../../../src/governance/unsafe-tools.ts';
import { blastRadius } from '../../../src/governance/blast-radius.ts';
import { unusedExceptionNotices } from '../../../src/governance/exceptions.ts';

function example(name: string) {
  const dir = new URL(`../../../examples/${name}/`, import.meta.url);
  const m = parseManifest(`${name}/governance.yaml`, readFileSync(new URL('governance.yaml', dir), 'utf8'));
  const c = parseCatalog(`${name}/catalog.json`, readFileSync(new URL('catalog.json', dir), 'utf8'));
  return buildEstate(m, c);
}

function estateOf(governance: string, catalog: object) {
  return buildEstate(parseManifest('g.yaml', governance), parseCatalog('c.json', JSON.stringify(catalog)));
}

const twoServers = {
  servers: [
    { name: 'a', tools: [{ name: 'read' }, { name: 'dup' }] },
    { name: 'b', tools: [{ name: 'show' }, { name: 'dup' }] },
  ],
};

describe('checkAccess', () => {
  const q = example('quickstart');

  it('finds the cross-server DENY: ci-bot reaches secrets only through git_show', () => {
    const r = checkAccess(q, 'ci-bot', 'git::git_show');
    expect(r.verdict).toBe('DENY');
    expect(r.all_authorized).toBe(false);
    expect(r.deny_evidence).toHaveLength(1);
    const row = r.deny_evidence[0]!;
    expect(row.classification).toBe('violation');
    expect(row.resource).toBe('file:///srv/app/.env');
    expect(row.path).toBe('(ci-bot)-[:CAN_CALL]->(git::git_show)-[:READS]->(file:///srv/app/.env)-[:GOVERNED_BY]->(secrets-deny)');
    expect(row.provenance.source).toBe('inferred');
    expect(row.policy_provenance?.evidence).toBe('SEC-21 secrets inventory');
    // the resource is provided by the filesystem server, the tool lives on git
    expect(q.catalog.servers.find((s) => s.name === 'filesystem')!.resources!.some((r) => r.uri === row.resource)).toBe(true);
  });

  it('ALLOW for a granted tool reaching no DENY', () => {
    const r = checkAccess(q, 'ci-bot', 'git::git_log');
    expect(r).toMatchObject({ verdict: 'ALLOW', agent_found: true, found: true, deny_evidence: [] });
    expect(r.all_authorized).toBeUndefined();
  });

  it('DENY with all_authorized when every row is an expected exception', () => {
    const r = checkAccess(q, 'ops-agent', 'filesystem::write_file');
    expect(r.verdict).toBe('DENY');
    expect(r.all_authorized).toBe(true);
    expect(r.deny_evidence[0]).toMatchObject({ classification: 'authorized_but_governed', exception_reason: expect.stringContaining('SRE-7') });
  });

  it('NOT_GRANTED for an exposed tool without a grant', () => {
    expect(checkAccess(q, 'ci-bot', 'filesystem::read_file')).toMatchObject({ verdict: 'NOT_GRANTED', found: true, agent_found: true });
  });

  it('AGENT_NOT_FOUND with found null (the tool is not looked up)', () => {
    expect(checkAccess(q, 'ci-bto', 'git::git_show')).toMatchObject({ verdict: 'AGENT_NOT_FOUND', agent_found: false, found: null });
  });

  it('TOOL_NOT_FOUND with found false', () => {
    expect(checkAccess(q, 'ci-bot', 'git::git_blame')).toMatchObject({ verdict: 'TOOL_NOT_FOUND', agent_found: true, found: false });
  });

  it('resolves a bare name exposed once, and never guesses an ambiguous one', () => {
    const e = estateOf('agents: [x]\ngrants: [{agent: x, tool: "a::read"}]\n', twoServers);
    expect(checkAccess(e, 'x', 'read')).toMatchObject({ verdict: 'ALLOW', tool_key: 'a::read' });
    expect(checkAccess(e, 'x', 'dup')).toMatchObject({ verdict: 'AMBIGUOUS_TOOL', found: false, candidates: ['a::dup', 'b::dup'] });
  });

  it('counts a DENY on the tool itself (GOVERNED_BY on a tool)', () => {
    const f = example('fleet');
    const r = checkAccess(f, 'publisher', 'memory::delete_entities');
    expect(r.verdict).toBe('DENY');
    expect(r.deny_evidence.some((d) => d.via === 'GOVERNED_BY' && d.resource === null && d.path.endsWith('-[:GOVERNED_BY]->(knowledge-graph-integrity)'))).toBe(true);
  });
});

describe('expected exceptions', () => {
  it('a wildcard tool pattern covers every tool of the server', () => {
    const f = example('fleet');
    const r = checkAccess(f, 'planner', 'memtomem::mem_read');
    expect(r).toMatchObject({ verdict: 'DENY', all_authorized: true });
    // the same tools for reader (no exception) are violations: an agent whose only grants are proxied tools
    const u = unsafeTools(f, 'reader');
    expect(u.rows.map((r) => r.tool_key)).toEqual([
      'memtomem-stm::langchain__search_docs_by_lang_chain',
      'memtomem-stm::langfuse__getLangfuseOverview',
      'memtomem-stm::langfuse__searchLangfuseDocs',
    ]);
  });

  it('warns, saying why, about an exception that classifies no row', () => {
    const e = estateOf(
      `agents: [x, y]
policies: [{id: p, effect: DENY}]
grants: [{agent: x, tool: "a::read"}]
data_access: [{tool: "a::read", resource: "r://1", mode: READS}]
governed_by: {"r://1": [p]}
expected_exceptions:
  - {agent: y, tool: "a::read", reason: no grant}
  - {agent: x, tool: "b::show", reason: not granted either}
  - {agent: x, tool: "a::read", resource: "r://2", reason: other resource}
  - {agent: x, tool: "a::read", reason: used}
`,
      twoServers,
    );
    const notes = unusedExceptionNotices(e);
    expect(notes.map((n) => n.message)).toEqual([
      expect.stringContaining('holds no grant'),
      expect.stringContaining('holds no grant'),
      expect.stringContaining('through resource "r://2"'),
    ]);
    expect(notes[0]!.at).toMatchObject({ file: 'g.yaml', line: 7, col: 5 });
  });
});

describe('unsafeTools', () => {
  const q = example('quickstart');
  it('lists violations by default and adds authorized rows with --all', () => {
    expect(unsafeTools(q, 'ops-agent').rows).toEqual([]);
    const all = unsafeTools(q, 'ops-agent', true);
    expect(all.rows).toHaveLength(2);
    expect(all.rows.every((r) => r.classification === 'authorized_but_governed')).toBe(true);
  });
  it('says agent_found false for an unknown agent', () => {
    expect(unsafeTools(q, 'nobody')).toMatchObject({ agent_found: false, rows: [] });
  });
});

describe('blastRadius', () => {
  const q = example('quickstart');
  it('maps a resource to its tools, agents and policies', () => {
    const r = blastRadius(q, 'file:///srv/app/.env');
    expect(r.kind).toBe('resource');
    expect(r.tools.map((t) => t.tool_key)).toEqual(['filesystem::read_file', 'filesystem::write_file', 'git::git_show']);
    expect(r.agents).toEqual([
      { agent: 'ci-bot', tools: ['git::git_show'] },
      { agent: 'ops-agent', tools: ['filesystem::read_file', 'filesystem::write_file'] },
    ]);
    expect(r.policies).toEqual([{ id: 'secrets-deny', effect: 'DENY', resource: 'file:///srv/app/.env' }]);
  });
  it('says found false for an unknown name instead of an empty answer', () => {
    expect(blastRadius(q, 'file:///nope')).toMatchObject({ found: false, kind: null });
  });
  it('tries a URI-shaped name that is no resource as a policy id', () => {
    const e = estateOf('agents: [x]\npolicies: [{id: "urn:secret", effect: DENY}]\ngoverned_by: {"r://1": ["urn:secret"]}\n', twoServers);
    expect(blastRadius(e, 'urn:secret')).toMatchObject({ found: true, kind: 'policy', resources: ['r://1'] });
  });
});
