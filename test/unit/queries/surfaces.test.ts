/**
 * Every query of the table, asked on both examples through both surfaces: the CLI's JSON and the
 * MCP tool's structuredContent.result validate against the query's schemas/results/ file and are
 * equal; an unknown agent prints nothing on the CLI and answers agent_found: false over MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { QUERIES } from '../../../src/queries/table.ts';
import { loadEstate, locateEstate } from '../../../src/cli/estate-input.ts';
import { queryUsage } from '../../../src/cli/query-command.ts';
import { runCli } from '../../helpers/cli.ts';
import { cliArgv, queryCases } from './cases.ts';

const REPO = resolve(import.meta.dirname, '../../..');
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
    for (const q of QUERIES) {
      const [args] = queryCases(q, estate);
      const r = (await q.run(estate, args!)) as Record<string, unknown>;
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
    beforeAll(async () => {
      client = await connectServe(['--example', example], 'surfaces-test');
    }, 30_000);
    afterAll(async () => {
      await client?.close();
    });

    it('the MCP tool list is the table (plus diff), with the same arguments', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...QUERIES.map((q) => q.tool), 'diff']);
      for (const q of QUERIES) {
        const t = tools.find((x) => x.name === q.tool)!;
        expect(Object.keys(t.inputSchema.properties ?? {})).toEqual(q.args.map((a) => a.name));
        expect(t.inputSchema.required).toEqual(q.args.filter((a) => a.required === 'both').map((a) => a.name));
        // The client validates every structuredContent below against it.
        expect(JSON.stringify(t.outputSchema)).toContain(JSON.stringify(JSON.parse(readFileSync(schemaFile(q.result), 'utf8')).properties));
      }
    });

    for (const q of QUERIES) {
      it(`${q.name} / ${q.tool}: both validate against schemas/results/${q.result}.schema.json and are equal`, async () => {
        const estate = loadEstate(locateEstate({ example }, quiet), quiet);
        const cases = queryCases(q, estate);
        expect(cases.length).toBeGreaterThan(0);
        for (const args of cases) {
          const c = await runCli([...cliArgv(q, args), '--example', example], { cwd: REPO });
          const m = await client.callTool({ name: q.tool, arguments: args as Record<string, unknown> });
          const label = JSON.stringify(args);
          expect(m.isError, label).not.toBe(true);
          const result = (m.structuredContent as { result: unknown }).result;
          expect(valid(q.name, result), label).toBe(true);
          if (c.stdout === '') {
            expect(c.code, label).toBe(1);
            expect(result, label).toMatchObject({ agent_found: false });
            continue;
          }
          expect(c.code, `${label} ${c.stderr}`).toBe(0);
          expect(valid(q.name, c.json()), label).toBe(true);
          expect(result, label).toEqual(c.json());
        }
      }, 120_000);
    }
  });
}
