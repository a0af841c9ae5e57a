/**
 * An output of a run that names one of the run's own inputs: `diff --declared d.json ... --out
 * d.json` replaced the declared graph with the record computed from it, and every single-file
 * output did the same (graph build, observe, sign, preflight, policy compile/propose...). Each is
 * now bad usage (exit 2) naming the option and the file, before a byte is written: the input and
 * its folder are left exactly as they were. The same file reached another way (`./x`, a symbolic
 * link, a hard link) counts; the run's earlier output (a re-run, `--state F --out F`) does not.
 */
import { describe, it, expect, beforeEach } from 'vitest';
import { cpSync, linkSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');
const WINDOW = ['--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z'];

/** Each command line (run in a copy of the base estate) and the input one of its outputs is pointed at. */
const CASES: [name: string, argv: (out: string) => string[], input: string, flag: string][] = [
  ['diff --out over --declared', (o) => ['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json', '--out', o], 'declared.json', '--out'],
  ['diff --out over --window', (o) => ['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json', '--out', o], 'window.json', '--out'],
  ['diff --per-agent over a decision log', (o) => ['diff', '--declared', 'declared.json', '--observed', 'observed.json', '--window', 'window.json', '--out', 'record.json', '--per-agent', o, '--opa-decision-logs', 'decision-logs.jsonl'], 'decision-logs.jsonl', '--per-agent'],
  ['observe --out over --events', (o) => ['observe', '--events', 'events.jsonl', ...WINDOW, '--out', o], 'events.jsonl', '--out'],
  ['observe --window-out over --events', (o) => ['observe', '--events', 'events.jsonl', ...WINDOW, '--out', 'observed.out.json', '--window-out', o], 'events.jsonl', '--window-out'],
  ['observe --sidecar over a decision log', (o) => ['observe', '--opa-decision-logs', 'decision-logs.jsonl', '--out', 'observed.out.json', '--sidecar', o], 'decision-logs.jsonl', '--sidecar'],
  ['observe --activity-out over the manifest', (o) => ['observe', '--opa-decision-logs', 'decision-logs.jsonl', '--manifest', 'governance.yaml', '--catalog', 'catalog.json', '--activity-out', o], 'governance.yaml', '--activity-out'],
  ['sign --out over --graph', (o) => ['sign', '--graph', 'declared.json', '--policy', 'signs.rego', '--data', 'window.json', '--out', o], 'declared.json', '--out'],
  ['sign --out over --policy', (o) => ['sign', '--graph', 'declared.json', '--policy', 'signs.rego', '--data', 'window.json', '--out', o], 'signs.rego', '--out'],
  ['sign --out over --data', (o) => ['sign', '--graph', 'declared.json', '--policy', 'signs.rego', '--data', 'window.json', '--out', o], 'window.json', '--out'],
  ['graph build --out over --catalog', (o) => ['graph', 'build', '--catalog', 'catalog.json', '--out', o], 'catalog.json', '--out'],
  ['graph build --envelope over --host-graph', (o) => ['graph', 'build', '--catalog', 'catalog.json', '--host-graph', 'host-graph.json', '--out', 'built.json', '--envelope', o], 'host-graph.json', '--envelope'],
  ['graph collapse --out over --groups', (o) => ['graph', 'collapse', '--graph', 'declared.json', '--level', 'server', '--groups', 'groups.json', '--out', o], 'groups.json', '--out'],
  ['graph export --out over --graph', (o) => ['graph', 'export', '--graph', 'declared.json', '--format', 'dot', '--out', o], 'declared.json', '--out'],
  ['preflight --out over --catalog', (o) => ['preflight', 'bot', 'git::show', '--run-id', 'r1', '--manifest', 'governance.yaml', '--catalog', 'catalog.json', '--out', o], 'catalog.json', '--out'],
  ['preflight --out over the toolgate.yaml it read the estate from', (o) => ['preflight', 'bot', 'git::show', '--run-id', 'r1', '--out', o], 'toolgate.yaml', '--out'],
  ['policy compile --output over the manifest', (o) => ['policy', 'compile', '--agent', 'bot', '--output', o], 'governance.yaml', '--output'],
  ['policy propose --out over GOVERNANCE', (o) => ['policy', 'propose', 'governance.yaml', 'decision-logs.jsonl', '--unverified-provenance', '--out', o], 'governance.yaml', '--out'],
  ['policy propose --out over OBSERVED', (o) => ['policy', 'propose', 'governance.yaml', 'decision-logs.jsonl', '--unverified-provenance', '--out', o], 'decision-logs.jsonl', '--out'],
];

let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-out-over-in-'));
  cpSync(BASE, dir, { recursive: true });
});

/** Every file in the estate copy with its bytes, to show a refused run changed nothing. */
function snapshot(): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f), 'latin1')]));
}

async function expectRefused(argv: string[], outAbs: string, message: string): Promise<void> {
  const before = snapshot();
  const r = await runCli(argv, { cwd: dir });
  expect(r.stderr.split('\n').filter((l) => l.startsWith('toolgate: error'))).toEqual([`toolgate: error USAGE at ${outAbs}: ${message}`]);
  expect(r.stderr).not.toMatch(/\n\s+at |internal error/);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(snapshot()).toEqual(before);
}

describe('an output that names an input of the same run', () => {
  it.each(CASES)('%s: USAGE naming the option and the file, nothing written', async (_name, argv, input, flag) => {
    const out = join(dir, input);
    await expectRefused(argv(input), out, `${flag} ${out} is also an input of this run; an output never replaces an input: choose another file for ${flag}`);
  });

  it.each(CASES)('%s, given as ./NAME: the same file', async (_name, argv, input, flag) => {
    const out = join(dir, input);
    await expectRefused(argv(`./${input}`), out, `${flag} ${out} is also an input of this run; an output never replaces an input: choose another file for ${flag}`);
  });

  it.each(CASES)('%s, through a symbolic link to it: the message names both', async (_name, argv, input, flag) => {
    symlinkSync(input, join(dir, 'link-to-input'));
    const out = join(dir, 'link-to-input');
    await expectRefused(argv('link-to-input'), out, `${flag} ${out} is ${join(dir, input)}, an input of this run; an output never replaces an input: choose another file for ${flag}`);
  });

  it('through a hard link: the same file', async () => {
    linkSync(join(dir, 'declared.json'), join(dir, 'hard.json'));
    const out = join(dir, 'hard.json');
    await expectRefused(CASES[0]![1]('hard.json'), out, `--out ${out} is ${join(dir, 'declared.json')}, an input of this run; an output never replaces an input: choose another file for --out`);
  });
});

describe('an output that is the run\'s own earlier output', () => {
  it.each(CASES)('%s, run twice into a new file: both runs write it', async (_name, argv) => {
    for (const run of [1, 2]) {
      const r = await runCli(argv('fresh.out'), { cwd: dir });
      expect([r.code, r.stderr.includes('toolgate: error')], `run ${run}: ${r.stderr}`).toEqual([0, false]);
    }
    expect(readdirSync(dir)).toContain('fresh.out');
  });

  it('preflight --state F --out F continues and replaces the earlier artifact', async () => {
    const argv = ['preflight', 'bot', 'git::show', '--run-id', 'r1', '--out', 'run.json'];
    expect((await runCli(argv, { cwd: dir })).code).toBe(0);
    const r = await runCli([...argv, '--state', './run.json'], { cwd: dir });
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).run_id).toBe('r1');
  });
});

describe('the review sidecar and report', () => {
  const VECTORS = resolve(import.meta.dirname, '../../vectors/toolgraph-review');
  const ID = JSON.parse(readFileSync(join(VECTORS, 'review-annotations-v1.json'), 'utf8')).events[0].candidate_id as string;
  const SIDECAR = 'report.json.toolgraph-review.json';

  beforeEach(async () => {
    writeFileSync(join(dir, 'catalog.json'), JSON.stringify({ servers: [{ name: 'syncmill', tools: [{ name: 'board_stats' }, { name: 'board_list' }] }, { name: 'filesystem', tools: [{ name: 'read_file' }] }] }));
    writeFileSync(join(dir, 'governance.yaml'), 'agents: [planner]\ngrants:\n  - {agent: planner, tool: "syncmill::board_stats"}\ndata_access:\n  - {tool: "syncmill::board_stats", resource: "syncmill://board", mode: READS}\n');
    cpSync(join(VECTORS, 'tracegraph-report-v1.json'), join(dir, 'report.json'));
    const a = await runCli(['review-candidates', 'annotate', 'report.json', ID, '--status', 'accepted', '--reviewer', 'operator@example.com'], { cwd: dir });
    expect([a.code, a.stderr]).toEqual([0, '']);
  });

  it.each([['the sidecar it reads', SIDECAR], ['the report', 'report.json']])('policy review-plan --out over %s: refused', async (_what, target) => {
    const out = join(dir, target);
    await expectRefused(['policy', 'review-plan', 'report.json', '--agent', 'planner', '--profile', 'review', '--out', target], out, `--out ${out} is also an input of this run; an output never replaces an input: choose another file for --out`);
  });

  it('review-candidates annotate still replaces the sidecar it reads (its own earlier output), run after run', async () => {
    for (const status of ['dismissed', 'accepted']) {
      const r = await runCli(['review-candidates', 'annotate', 'report.json', ID, '--status', status, '--reviewer', 'operator@example.com'], { cwd: dir });
      expect([r.code, r.stderr]).toEqual([0, '']);
    }
    expect(JSON.parse(readFileSync(join(dir, SIDECAR), 'utf8')).events).toHaveLength(3);
    const plan = await runCli(['policy', 'review-plan', 'report.json', '--agent', 'planner', '--profile', 'review', '--out', 'plan.json'], { cwd: dir });
    expect([plan.code, plan.stderr]).toEqual([0, '']);
  });
});
