/**
 * Every query of the table, asked on both examples through both surfaces: the CLI's JSON and the
 * MCP tool's structuredContent.result validate against the query's schemas/results/ file and are
 * equal; where the row's exit policy prints nothing (an unknown agent) the CLI's stdout is empty
 * and its exit is the policy's. The file queries read control plans (the peer's fixtures and one
 * naming the example's agents), a review report with a sidecar, and a connectome diff the test
 * writes under a folder serve is started with (--diff-root).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { QUERIES } from '../../../src/queries/table.ts';
import { loadEstate, locateEstate } from '../../../src/cli/estate-input.ts';
import { queryUsage } from '../../../src/cli/query-command.ts';
import { runCli } from '../../helpers/cli.ts';
import { EXIT } from '../../../src/cli/exit-codes.ts';
import type { Estate } from '../../../src/governance/estate.ts';
import { cliArgv, queryCases, testEnv, type CaseFiles } from './cases.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const DIR = mkdtempSync(join(tmpdir(), 'tg-surfaces-'));
const at = (f: string) => join(DIR, f);
const CONTROL = join(REPO, 'test/vectors/toolgraph-control');

/** A control plan of the peer's fixture shape whose two principals are the estate's first two agents. */
function estatePlan(estate: Estate, file: string): string {
  const plan = JSON.parse(readFileSync(join(CONTROL, 'control-plan-exposure-v1.json'), 'utf8'));
  const [a, b] = [...estate.agents.keys()] as [string, string];
  const rename = (p: string) => (p === 'codex' ? a : b);
  plan.principals = plan.principals.map((p: { id: string }) => ({ id: rename(p.id), candidate_tools: [...(estate.grantsByAgent.get(rename(p.id))?.keys() ?? [])].slice(0, 6).concat(['no-such-server::tool']) }));
  for (const n of plan.nodes) n.principals = n.principals.map(rename);
  writeFileSync(at(file), JSON.stringify(plan));
  return at(file);
}

async function caseFiles(example: string, estate: Estate): Promise<CaseFiles> {
  copyFileSync(join(CONTROL, 'control-plan-v1.json'), at('plan-v1.json'));
  copyFileSync(join(CONTROL, 'control-plan-exposure-v1.json'), at('plan-exposure.json'));
  copyFileSync(join(REPO, 'test/vectors/toolgraph-review/tracegraph-report-v1.json'), at('report.json'));
  copyFileSync(join(REPO, 'test/vectors/toolgraph-review/tracegraph-report-v1.json'), at('report-annotated.json'));
  const listed = await runCli(['review-candidates', 'list', at('report-annotated.json')], { cwd: DIR });
  const id = listed.json().candidates[0].candidate_id as string;
  expect((await runCli(['review-candidates', 'annotate', at('report-annotated.json'), id, '--status', 'accepted', '--reviewer', 'op', '--note', 'checked'], { cwd: DIR, env: { SOURCE_DATE_EPOCH: '1767225600' } })).code).toBe(0);
  writeFileSync(at('events.jsonl'), ['{"server":"git","kind":"invoke","target":"git_show"}', '{"server":"notes","kind":"invoke","target":"draft_note"}', ''].join('\n'));
  expect((await runCli(['graph', 'build', '--catalog', join(REPO, 'examples', example, 'catalog.json'), '--out', at(`declared-${example}.json`)], { cwd: DIR })).code).toBe(0);
  const observe = ['observe', '--events', at('events.jsonl'), '--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z'];
  expect((await runCli([...observe, '--out', at('observed.json'), '--window-out', at('window.json')], { cwd: DIR })).code).toBe(0);
  return {
    plans: [at('plan-v1.json'), at('plan-exposure.json'), estatePlan(estate, `plan-${example}.json`)],
    reports: [at('report.json'), at('report-annotated.json')],
    diffs: [{ declared: at(`declared-${example}.json`), observed: at('observed.json'), window: at('window.json') }],
  };
}

/** The answer without created_at: each surface stamps it from its own clock. */
const unstamped = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null || !('created_at' in v)) return v;
  const { created_at: _c, ...rest } = v as Record<string, unknown>;
  return rest;
};
const schemaFile = (name: string) => join(REPO, 'schemas/results', `${name}.schema.json`);
const ajv = new Ajv2020({ strict: true, allErrors: true });
const validators = new Map(QUERIES.map((q) => [q.name, ajv.compile(JSON.parse(readFileSync(schemaFile(q.result), 'utf8')))]));
const quiet = { stdout() {}, stderr() {}, cwd: REPO, env: {}, stdin: async () => '' };

function valid(name: string, value: unknown): true | string {
  const v = validators.get(name)!;
  return v(value) ? true : `${name}: ${ajv.errorsText(v.errors)}`;
}

describe('the query table', () => {
  it('names each query once on each surface and has a result schema for each', () => {
    expect(new Set(QUERIES.map((q) => q.name)).size).toBe(QUERIES.length);
    expect(new Set(QUERIES.map((q) => q.tool)).size).toBe(QUERIES.length);
    for (const q of QUERIES) expect(existsSync(schemaFile(q.result)), q.result).toBe(true);
  });

  it('the result schemas can fail: an extra field or a wrong type is refused', async () => {
    const estate = loadEstate(locateEstate({ example: 'quickstart' }, quiet), quiet);
    const files = await caseFiles('quickstart', estate);
    for (const q of QUERIES) {
      const [args] = queryCases(q, estate, files);
      const raw = await q.run(testEnv(estate, DIR), args!);
      const r = (q.answer ? await q.answer(raw) : raw) as Record<string, unknown>;
      expect(valid(q.name, r)).toBe(true);
      expect(valid(q.name, { ...r, unexpected_field: 1 })).not.toBe(true);
      const [k] = Object.keys(r);
      expect(valid(q.name, { ...r, [k!]: { wrong: [] } })).not.toBe(true);
    }
  });

  it("each CLI usage line lists the query's positionals and options", () => {
    for (const q of QUERIES) {
      const first = queryUsage(q).split('\n')[0]!;
      for (const a of q.args) expect(first).toContain(a.positional ?? `--${a.name.replaceAll('_', '-')}`);
    }
  });
});

for (const example of ['quickstart', 'fleet']) {
  describe(`every query on the ${example} example, CLI and MCP`, () => {
    let client: Client;
    let files: CaseFiles;
    beforeAll(async () => {
      files = await caseFiles(example, loadEstate(locateEstate({ example }, quiet), quiet));
      client = await connectServe(['--example', example, '--diff-root', DIR], 'surfaces-test');
    }, 60_000);
    afterAll(async () => {
      await client?.close();
    });

    it('the MCP tool list is the table, with the same arguments, each tool read-only', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(QUERIES.map((q) => q.tool));
      for (const q of QUERIES) {
        const t = tools.find((x) => x.name === q.tool)!;
        expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(q.args.map((a) => a.name));
        expect(t.inputSchema.required).toEqual(q.args.filter((a) => a.required === 'both').map((a) => a.name));
        // The client validates every structuredContent below against it.
        expect(JSON.stringify(t.outputSchema)).toContain(JSON.stringify(JSON.parse(readFileSync(schemaFile(q.result), 'utf8')).properties));
        expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
      }
    });

    for (const q of QUERIES) {
      it(`${q.name} / ${q.tool}: both validate against schemas/results/${q.result}.schema.json and are equal`, async () => {
        const estate = loadEstate(locateEstate({ example }, quiet), quiet);
        const cases = queryCases(q, estate, files);
        expect(cases.length).toBeGreaterThan(0);
        for (const args of cases) {
          const c = await runCli([...cliArgv(q, args), ...(q.estate === false ? [] : ['--example', example])], { cwd: REPO });
          const m = await client.callTool({ name: q.tool, arguments: args as Record<string, unknown> });
          const label = JSON.stringify(args);
          expect(m.isError, `${label} ${JSON.stringify(m.structuredContent)}`).not.toBe(true);
          const result = (m.structuredContent as { result: unknown }).result;
          expect(valid(q.name, result), label).toBe(true);
          const outcome = q.exit(result, {});
          expect(c.code, `${label} ${c.stderr}`).toBe(EXIT[outcome.exit]);
          if (!outcome.print) {
            expect(c.stdout, label).toBe('');
            expect(result, label).toMatchObject({ agent_found: false });
            continue;
          }
          // diff prints the record's canonical bytes; the tool answers the record beside its digest.
          const algorithm = (args.algorithm as string | undefined) ?? 'sha256';
          const printed = q.name === 'diff' ? { record: c.json(), digest: `${algorithm}:${createHash(algorithm).update(c.stdout).digest('hex')}` } : c.json();
          expect(valid(q.name, printed), label).toBe(true);
          expect(unstamped(result), label).toEqual(unstamped(printed));
        }
      }, 120_000);
    }
  });
}
