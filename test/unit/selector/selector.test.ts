import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { assess } from '../../../src/governance/assess.ts';
import { checkAccess } from '../../../src/governance/check-access.ts';
import { decide } from '../../../src/governance/decisions.ts';
import { PROFILES } from '../../../src/governance/types.ts';
import { rankFeatures } from '../../../src/selector/rank-features.ts';
import { eligibleTools } from '../../../src/selector/eligible-tools.ts';
import { selectionExplain } from '../../../src/selector/selection-explain.ts';
import { selectorIndex } from '../../../src/selector/selector-index.ts';
import { exampleEstate, inlineEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const quickstart = exampleEstate('quickstart');
const fleet = exampleEstate('fleet');

describe('the selector index', () => {
  it.each([
    ['quickstart', quickstart],
    ['fleet', fleet],
  ] as const)('assesses every (agent, tool) of %s exactly as assess() does', (_n, estate) => {
    const idx = selectorIndex(estate);
    for (const agent of estate.agents.keys()) {
      for (const key of estate.tools.keys()) expect(idx.assess(idx.agent(agent)!, key)).toEqual(assess(estate, agent, key));
    }
  });
});

describe('rank-features', () => {
  it('flags the fleet reader: only proxied docs grants, yet it reaches the governed memory namespace', () => {
    const r = rankFeatures(fleet, 'reader', ['memtomem-stm::langchain__search_docs_by_lang_chain', 'langfuse__searchLangfuseDocs', 'echo']);
    expect(r.agent_found).toBe(true);
    const [docs, fuse, echo] = r.rows;
    expect(docs).toMatchObject({ verdict: 'DENY', violations: 1, risk_score: 1, granted: true, drifted: false, mapped: true });
    expect(docs!.deny[0]).toMatchObject({ policy: 'ltm-confidentiality', resource: 'memory:operator:project', classification: 'violation' });
    expect(fuse).toMatchObject({ candidate: 'langfuse__searchLangfuseDocs', tool_key: 'memtomem-stm::langfuse__searchLangfuseDocs', verdict: 'DENY' });
    expect(echo).toMatchObject({ verdict: 'ALLOW', mapped: false, risk_score: 0.6, annotations: { readOnlyHint: true, destructiveHint: false, provenance: { source: 'crawled', confidence: 'medium' } } });
  });

  it('keeps input order and makes an unknown tool a row', () => {
    const cands = ['nope::x', 'git::git_log', 'missing', 'git::git_show'];
    const r = rankFeatures(quickstart, 'ci-bot', cands);
    expect(r.rows.map((x) => x.candidate)).toEqual(cands);
    expect(r.rows.map((x) => x.verdict)).toEqual(['TOOL_NOT_FOUND', 'ALLOW', 'TOOL_NOT_FOUND', 'DENY']);
    expect(r.rows[0]).toMatchObject({ found: false, tool_key: null, risk_score: null });
  });

  it('never auto-resolves an ambiguous bare name', () => {
    const e = inlineEstate('agents: [a]\ngrants: [{agent: a, tool: "x::dup"}]\n', { servers: [{ name: 'x', tools: [{ name: 'dup' }] }, { name: 'y', tools: [{ name: 'dup' }] }] });
    const [row] = rankFeatures(e, 'a', ['dup']).rows;
    expect(row).toMatchObject({ found: false, ambiguous: true, tool_key: null, candidates: ['x::dup', 'y::dup'], verdict: 'AMBIGUOUS_TOOL' });
    const el = eligibleTools(e, 'a', ['dup', 'x::dup'], 'explore');
    expect(el.rejected).toEqual([{ candidate: 'dup', tool_key: null, reason: 'AMBIGUOUS_TOOL', candidates: ['x::dup', 'y::dup'] }]);
    expect(el.eligible.map((x) => x.tool_key)).toEqual(['x::dup']);
  });

  it('scrubs userinfo and query strings from resource URIs', () => {
    const e = inlineEstate(
      'agents: [a]\npolicies: [{id: p, effect: DENY}]\ngrants: [{agent: a, tool: "s::t"}]\ndata_access: [{tool: "s::t", resource: "https://user:pw@db.example/x?token=abc", mode: READS}]\ngoverned_by: {"https://user:pw@db.example/x?token=abc": [p]}\n',
      { servers: [{ name: 's', tools: [{ name: 't' }] }] },
    );
    const text = JSON.stringify(rankFeatures(e, 'a', ['s::t']));
    expect(text).toContain('https://db.example/x');
    expect(text).not.toMatch(/pw@|token=/);
  });

  it('agrees with check-access on the verdict of every candidate (property)', () => {
    const names = [...fleet.tools.keys(), ...fleet.exposedByName.keys(), 'nope', 'x::y'];
    fc.assert(
      fc.property(fc.constantFrom(...fleet.agents.keys()), fc.array(fc.constantFrom(...names), { maxLength: 12 }), (agent, cands) => {
        const rows = rankFeatures(fleet, agent, cands).rows;
        rows.forEach((row, i) => expect(row.verdict).toBe(checkAccess(fleet, agent, cands[i]!).verdict));
      }),
      { numRuns: 60 },
    );
  });

  it('answers agent_found false for an unknown agent, with no rows', () => {
    expect(rankFeatures(fleet, 'raeder', ['echo'])).toEqual({ agent: 'raeder', agent_found: false, rows: [] });
  });
});

describe('eligible-tools', () => {
  it('decides granted tools exactly as compile does, under every profile', () => {
    for (const profile of PROFILES) {
      for (const agent of fleet.agents.keys()) {
        const keys = [...fleet.grantsByAgent.get(agent)!.keys()];
        const r = eligibleTools(fleet, agent, keys, profile);
        for (const k of keys) {
          const d = decide(fleet, agent, k, profile);
          const rej = r.rejected.find((x) => x.tool_key === k);
          if (d.decision === 'eligible') expect(rej).toBeUndefined();
          else expect(rej).toMatchObject({ reason: d.reason, ...(d.paths ? { paths: d.paths } : {}) });
        }
      }
    }
  });

  it('honours the wildcard exception: planner / memtomem::* passes review, not strict', () => {
    const c = ['memtomem::mem_search', 'memtomem::mem_read'];
    expect(eligibleTools(fleet, 'planner', c, 'review').eligible.map((x) => x.tool_key)).toEqual(c);
    const strict = eligibleTools(fleet, 'planner', c, 'strict');
    expect(strict.eligible).toEqual([]);
    expect(strict.rejected.map((x) => x.reason)).toEqual(['DENY_GOVERNED', 'DENY_GOVERNED']);
    expect(strict.rejected[0]!.paths).toEqual(['(planner)-[:CAN_CALL]->(memtomem::mem_search)-[:READS]->(memory:operator:project)-[:GOVERNED_BY]->(ltm-confidentiality)']);
  });

  it('rejects reader under review with the violation path, and explore lets it through', () => {
    const c = ['memtomem-stm::langfuse__getLangfuseOverview'];
    expect(eligibleTools(fleet, 'reader', c, 'review').rejected[0]).toMatchObject({ reason: 'DENY_VIOLATION', paths: [expect.stringContaining('(reader)-[:CAN_CALL]->')] });
    expect(eligibleTools(fleet, 'reader', c, 'explore').eligible.map((x) => x.tool_key)).toEqual(c);
  });

  it('answers a batch on a warm index as on a fresh estate, whatever was asked before (property)', () => {
    const warm = exampleEstate('fleet');
    const names = [...fleet.tools.keys(), ...fleet.exposedByName.keys(), 'nope', 'x::y'];
    const batch = fc.record({
      agent: fc.constantFrom(...fleet.agents.keys(), 'raeder'),
      profile: fc.constantFrom(...PROFILES),
      cands: fc.array(fc.constantFrom(...names), { maxLength: 12 }),
    });
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 6 }), (batches) => {
        for (const { agent, profile, cands } of batches) {
          expect(eligibleTools(warm, agent, cands, profile)).toEqual(eligibleTools(exampleEstate('fleet'), agent, cands, profile));
        }
      }),
      { numRuns: 40 },
    );
  });

  it('keeps decisions per estate: the same agent and candidate on another estate get that estate\'s answer', () => {
    const cat = { servers: [{ name: 's', tools: [{ name: 't' }] }] };
    const granted = inlineEstate('agents: [a]\ngrants: [{agent: a, tool: "s::t"}]\n', cat);
    const bare = inlineEstate('agents: [a]\n', cat);
    expect(eligibleTools(granted, 'a', ['t'], 'review').eligible.map((x) => x.tool_key)).toEqual(['s::t']);
    expect(eligibleTools(bare, 'a', ['t'], 'review').rejected.map((x) => x.reason)).toEqual(['NOT_GRANTED']);
    expect(eligibleTools(granted, 'a', ['t'], 'strict').rejected.map((x) => x.reason)).toEqual(['UNMAPPED']);
    expect(eligibleTools(granted, 'a', ['t'], 'review').eligible.map((x) => x.tool_key)).toEqual(['s::t']);
  });

  it('rejects a drifted tool under every profile, an unknown tool as a row, and a not-granted tool', () => {
    const e = inlineEstate('agents: [a]\ngrants: [{agent: a, tool: "gone::old"}, {agent: a, tool: "s::t"}]\n', { servers: [{ name: 's', tools: [{ name: 't' }, { name: 'u' }] }] });
    for (const p of PROFILES) {
      const r = eligibleTools(e, 'a', ['gone::old', 'zzz', 's::u'], p);
      expect(r.rejected.map((x) => [x.candidate, x.reason])).toEqual([
        ['gone::old', 'DRIFTED'],
        ['zzz', 'TOOL_NOT_FOUND'],
        ['s::u', 'NOT_GRANTED'],
      ]);
    }
    expect(eligibleTools(e, 'a', ['s::t'], 'strict').rejected[0]!.reason).toBe('UNMAPPED');
    expect(eligibleTools(e, 'a', ['s::t'], 'review').eligible[0]!.tool_key).toBe('s::t');
  });
});

describe('selection-explain', () => {
  it('explains the quickstart cross-server reach in short reasons', () => {
    const r = selectionExplain(quickstart, 'ci-bot', 'git_show');
    expect(r).toMatchObject({ tool_key: 'git::git_show', verdict: 'DENY', risk_score: 1, decisions: { strict: 'DENY_VIOLATION', review: 'DENY_VIOLATION', explore: 'eligible' } });
    expect(r.reasons.join('\n')).toContain('reads file:///srv/app/.env, governed by DENY policy secrets-deny: a violation');
    expect(r.reasons.join('\n')).toContain('PLAT-112');
  });
  it('names the exception that authorizes a reach', () => {
    const r = selectionExplain(fleet, 'planner', 'memtomem::mem_read');
    expect(r.decisions).toEqual({ strict: 'DENY_GOVERNED', review: 'eligible', explore: 'eligible' });
    expect(r.reasons.join('\n')).toContain('planner reads project memory by design');
  });
  it('says an unknown agent stops selection', () => {
    expect(selectionExplain(fleet, 'planer', 'echo')).toMatchObject({ agent_found: false, verdict: 'AGENT_NOT_FOUND', decisions: null });
  });
});

describe('selector commands: exit codes', () => {
  it.each([
    ['rank-features', ['reader', 'echo', 'nope']],
    ['eligible-tools', ['reader', 'echo', 'nope', '--profile', 'review']],
    ['selection-explain', ['reader', 'echo']],
  ])('%s exits 0 for a known agent (an unknown tool is a row)', async (cmd, args) => {
    const r = await runCli([cmd, ...args, '--example', 'fleet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().agent_found).toBe(true);
  });
  it.each([
    ['rank-features', ['raeder', 'echo']],
    ['eligible-tools', ['raeder', 'echo']],
    ['selection-explain', ['raeder', 'echo']],
  ])('%s exits 1 with AGENT_NOT_FOUND on stderr for a typo\'d agent', async (cmd, args) => {
    const r = await runCli([cmd, ...args, '--example', 'fleet']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('AGENT_NOT_FOUND: raeder');
    // the peer's CLI contract: an unknown agent leaves stdout empty (the library still answers agent_found: false)
    expect(r.stdout).toBe('');
  });
  it.each([
    ['rank-features', ['reader']],
    ['eligible-tools', ['reader', 'echo', '--profile', 'lenient']],
    ['selection-explain', ['reader', 'echo', 'extra']],
  ])('%s exits 2 on bad usage', async (cmd, args) => {
    expect((await runCli([cmd, ...args, '--example', 'fleet'])).code).toBe(2);
  });
  it('exits 1 on a refused input', async () => {
    expect((await runCli(['eligible-tools', 'a', 'b', '--manifest', '/nonexistent.yaml', '--catalog', '/nonexistent.json'])).code).toBe(1);
  });
});
