import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { governanceDigest } from '../../../src/governance/input-digests.ts';
import { parseManifest } from '../../../src/manifest/parse.ts';
import { patchedManifest, propose, readObservations } from '../../../src/review/propose.ts';
import { exampleEstate } from '../../helpers/estates.ts';
import { runCli } from '../../helpers/cli.ts';

const SCHEMA = JSON.parse(readFileSync(fileURLToPath(new URL('../../vectors/toolgraph-review/observation-window.schema.json', import.meta.url)), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const validate = ajv.compile(SCHEMA);

const quick = exampleEstate('quickstart');
const digest = governanceDigest(quick.manifest.raw);
const envelope = { envelope: { governance_digest: digest, graph_generation: 1, graph_instance_id: 'i', profile: 'strict', window_start: '2026-07-01T00:00:00Z', window_end: '2026-07-08T00:00:00Z' } };
const rows = [
  { agent: 'publisher', tool_key: 'git::git_log', decision: 'rejected', calls: 4, reject_reasons: ['NOT_GRANTED'] },
  { agent: 'ci-bot', tool_key: 'filesystem::read_file', decision: 'rejected', calls: 2 },
  { agent: 'ci-bot', tool_key: 'git::git_log', decision: 'eligible', calls: 0 },
  { agent: 'ghost', tool_key: 'git::git_log', decision: 'rejected', calls: 1 },
  { agent: 'publisher', tool_key: 'nope::x', decision: 'rejected', calls: 1 },
];
const jsonl = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const WINDOW = jsonl([envelope, ...rows]);

describe('policy propose', () => {
  it('our test window validates against the peer schema, record by record', () => {
    for (const r of [envelope, ...rows]) expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  });

  it('proposes clean grants, explicit zero-call removals, and says why it proposes nothing else', () => {
    const p = propose(quick, digest, readObservations('w.jsonl', WINDOW), { unverifiedProvenance: false, source: 'w.jsonl' });
    expect(p.provenance.status).toBe('exact');
    expect(p).toMatchObject({ decision_mode: 'human_required', automatic_change: false });
    expect(p.additions.map((a) => [a.agent, a.tool, a.calls])).toEqual([['publisher', 'git::git_log', 4]]);
    expect(p.removals.map((a) => [a.agent, a.tool])).toEqual([['ci-bot', 'git::git_log']]);
    expect(p.conflicts.map((a) => [a.agent, a.tool, a.reason])).toEqual([['ci-bot', 'filesystem::read_file', 'DENY_VIOLATION']]);
    expect(p.not_grant_shaped.map((a) => a.reason)).toEqual(['TOOL_NOT_FOUND']);
    expect(p.insufficient_evidence.map((a) => a.agent)).toEqual(['ghost']);
  });

  it('the patch validates as a manifest and changes only grants', () => {
    const p = propose(quick, digest, readObservations('w.jsonl', WINDOW), { unverifiedProvenance: false, source: 'w.jsonl' });
    const patched = patchedManifest(quick.manifest.raw, quick, p);
    const m = parseManifest('p.json', JSON.stringify(patched));
    expect(m.grants.some((g) => g.agent === 'publisher' && g.tool === 'git::git_log' && g.provenance?.source === 'inferred')).toBe(true);
    expect(m.grants.some((g) => g.agent === 'ci-bot' && g.tool === 'git::git_log')).toBe(false);
    expect(m.grants.length).toBe(quick.manifest.grants.length);
    expect(m.data_access).toEqual(quick.manifest.data_access);
  });

  it('refuses a window for other governance, and an envelope-less one unless told', () => {
    const other = jsonl([{ envelope: { ...envelope.envelope, governance_digest: 'a'.repeat(64) } }, ...rows]);
    expect(() => propose(quick, digest, readObservations('w', other), { unverifiedProvenance: true, source: 'w' })).toThrow(expect.objectContaining({ code: 'DIGEST_MISMATCH' }));
    const bare = jsonl(rows);
    expect(() => propose(quick, digest, readObservations('w', bare), { unverifiedProvenance: false, source: 'w' })).toThrow(/unverified-provenance/);
    expect(propose(quick, digest, readObservations('w', bare), { unverifiedProvenance: true, source: 'w' }).provenance).toMatchObject({ status: 'unverified', missing_fields: ['envelope'] });
  });

  it('reads OPA decision logs as observed calls and refuses other lines by line number', () => {
    const logs = jsonl([1, 2, 3].map((i) => ({ decision_id: `d${i}`, path: 'toolgate/authz/decision', input: { agent: 'publisher', tool: 'git::git_log' }, result: { allow: false } })));
    const o = readObservations('d.jsonl', logs);
    expect(o.uses).toEqual([{ agent: 'publisher', tool: 'git::git_log', calls: 3, lines: [1, 2, 3] }]);
    expect(() => readObservations('d.jsonl', `${logs}{"hello": 1}\n`)).toThrow(/d\.jsonl:4/);
  });

  it('CLI: prints the proposal, writes the patched copy only elsewhere, never edits the manifest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-propose-'));
    const ex = fileURLToPath(new URL('../../../examples/quickstart/', import.meta.url));
    const gov = join(dir, 'governance.yaml');
    writeFileSync(gov, readFileSync(join(ex, 'governance.yaml')));
    const before = readFileSync(gov);
    const w = join(dir, 'observed.jsonl');
    writeFileSync(w, WINDOW);
    const out = join(dir, 'proposed.yaml');
    const r = await runCli(['policy', 'propose', gov, w, '--catalog', join(ex, 'catalog.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json().additions).toHaveLength(1);
    expect(r.json().patched_manifest.out).toBe(out);
    expect(parseManifest(out, readFileSync(out, 'utf8')).grants.length).toBe(quick.manifest.grants.length);
    expect(readFileSync(gov)).toEqual(before);
    expect((await runCli(['policy', 'propose', gov, w, '--catalog', join(ex, 'catalog.json'), '--out', gov])).code).toBe(2);
    expect(readFileSync(gov)).toEqual(before);
    writeFileSync(w, jsonl(rows));
    const refused = await runCli(['policy', 'propose', gov, w, '--catalog', join(ex, 'catalog.json'), '--out', join(dir, 'x.yaml')]);
    expect(refused.code).toBe(1);
    expect(existsSync(join(dir, 'x.yaml'))).toBe(false);
  });
});
