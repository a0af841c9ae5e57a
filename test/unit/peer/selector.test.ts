/**
 * The peer's selector surface (ADR-0005, README "Selector surface"): eligible-tools' profile
 * matrix, rank-features' fixed risk table and input order, selection-explain; one candidate of
 * each kind the README's profile table names, through the CLI.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { scratch } from './peer-helpers.ts';

const dir = scratch({
  'catalog.json': {
    servers: [
      { name: 's', tools: ['clean', 'unmapped', 'authorized', 'violating', 'unbacked', 'ungranted', 'dup'].map((name) => ({ name })) },
      { name: 't', tools: [{ name: 'dup' }] },
    ],
  },
  'governance.yaml': `agents: [bot]
policies:
  - {id: deny-p, effect: DENY}
grants:
  - {agent: bot, tool: "s::clean", provenance: {evidence: g1}}
  - {agent: bot, tool: "s::unmapped", provenance: {evidence: g2}}
  - {agent: bot, tool: "s::authorized", provenance: {evidence: g3}}
  - {agent: bot, tool: "s::violating", provenance: {evidence: g4}}
  - {agent: bot, tool: "s::unbacked", provenance: {evidence: g5}}
  - {agent: bot, tool: "s::dup", provenance: {evidence: g7}}
  - {agent: bot, tool: "gone::old", provenance: {evidence: g6}}
data_access:
  - {tool: "s::clean", resource: "r://clean", mode: READS, provenance: {evidence: d1}}
  - {tool: "s::dup", resource: "r://clean", mode: READS, provenance: {evidence: d5}}
  - {tool: "s::authorized", resource: "r://secret", mode: READS, provenance: {evidence: d2}}
  - {tool: "s::violating", resource: "r://secret", mode: WRITES, provenance: {evidence: d3}}
  - {tool: "s::unbacked", resource: "r://other", mode: READS}
governed_by:
  "r://secret": [{policy: deny-p, provenance: {evidence: b1}}]
expected_exceptions:
  - {agent: bot, tool: "s::authorized", policy: deny-p, reason: "by design"}
`,
  'toolgate.yaml': 'manifest: governance.yaml\ncatalog: catalog.json\n',
});

const CANDIDATES = ['s::clean', 's::unmapped', 's::authorized', 's::violating', 's::unbacked', 'gone::old', 's::ungranted', 'dup', 'no::such'];
const HARD = { 'gone::old': 'DRIFTED', 's::ungranted': 'NOT_GRANTED', dup: 'AMBIGUOUS_TOOL', 'no::such': 'TOOL_NOT_FOUND' };

describe('eligible-tools: the profile table', () => {
  it.each([
    // strict: everything but a clean ALLOW (any DENY, drifted, unmapped too)
    ['strict', ['s::clean', 's::unbacked'], { 's::unmapped': 'UNMAPPED', 's::authorized': 'DENY_GOVERNED', 's::violating': 'DENY_VIOLATION', ...HARD }],
    // review: operator exceptions and unmapped pass
    ['review', ['s::clean', 's::unmapped', 's::authorized', 's::unbacked'], { 's::violating': 'DENY_VIOLATION', ...HARD }],
    // explore: only not-found, ambiguous, not-granted and drifted
    ['explore', ['s::clean', 's::unmapped', 's::authorized', 's::violating', 's::unbacked'], HARD],
  ] as const)('%s', async (profile, eligible, rejected) => {
    const r = await runCli(['eligible-tools', 'bot', ...CANDIDATES, '--profile', profile], { cwd: dir });
    expect(r.code).toBe(0);
    const v = r.json();
    expect(v.eligible.map((e: { candidate: string }) => e.candidate)).toEqual(eligible);
    expect(Object.fromEntries(v.rejected.map((x: { candidate: string; reason: string }) => [x.candidate, x.reason]))).toEqual(rejected);
    // Ambiguous bare names are never resolved: every matching key is listed for the consumer to re-submit.
    expect(v.rejected.find((x: { candidate: string }) => x.candidate === 'dup')).toMatchObject({ tool_key: null, candidates: ['s::dup', 't::dup'] });
    // DENY rejections carry their evidence paths.
    for (const x of v.rejected) if (String(x.reason).startsWith('DENY_')) expect(x.paths.length).toBeGreaterThan(0);
  });
});

describe('rank-features: the fixed risk table, first match wins, in input order', () => {
  it('1.0 violation, 0.8 drifted, 0.6 unmapped, 0.4 unbacked load-bearing edge, 0.2 authorized DENY, 0.0 otherwise', async () => {
    const r = await runCli(['rank-features', 'bot', ...CANDIDATES], { cwd: dir });
    expect(r.code).toBe(0);
    const rows = r.json().rows as { candidate: string; risk_score: number | null }[];
    expect(rows.map((x) => x.candidate)).toEqual(CANDIDATES);
    const score = Object.fromEntries(rows.map((x) => [x.candidate, x.risk_score]));
    expect(score).toMatchObject({ 's::violating': 1, 'gone::old': 0.8, 's::unmapped': 0.6, 's::unbacked': 0.4, 's::authorized': 0.2, 's::clean': 0 });
    // Unresolved candidates are unranked (the bundle schema's null), not scored.
    expect([score.dup, score['no::such']]).toEqual([null, null]);
  });

  it('the same facts whatever the batch: one candidate alone gives the row it has in the batch', async () => {
    const batch = (await runCli(['rank-features', 'bot', ...CANDIDATES], { cwd: dir })).json().rows;
    for (const [i, c] of CANDIDATES.entries()) {
      const alone = (await runCli(['rank-features', 'bot', c], { cwd: dir })).json().rows[0];
      expect(alone).toEqual(batch[i]);
    }
  });
});

describe('selection-explain', () => {
  it('gives each profile its decision, and a learned ranker cannot undo a hard reject (NOT_GRANTED everywhere)', async () => {
    const v = (await runCli(['selection-explain', 'bot', 's::authorized'], { cwd: dir })).json();
    expect(v.decisions).toEqual({ strict: 'DENY_GOVERNED', review: 'eligible', explore: 'eligible' });
    const n = (await runCli(['selection-explain', 'bot', 's::ungranted'], { cwd: dir })).json();
    expect(n.decisions).toEqual({ strict: 'NOT_GRANTED', review: 'NOT_GRANTED', explore: 'NOT_GRANTED' });
    expect(n.reasons.length).toBeGreaterThan(0);
  });
});
