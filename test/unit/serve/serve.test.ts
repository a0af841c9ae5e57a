import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { main } from '../../../src/cli/main.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const QUICKSTART = join(REPO, 'examples/quickstart');

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; json: unknown }> {
  let out = '';
  const code = await main(args, { stdout: (t) => void (out += t), stderr: () => {}, cwd: REPO, env, stdin: async () => '' });
  return { code, json: out === '' ? undefined : JSON.parse(out) };
}

async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [join(REPO, 'bin/toolgate.mjs'), 'serve', ...args], cwd: REPO, stderr: 'pipe' });
  const client = new Client({ name: 'serve-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

type Structured = { result: unknown; graph_state: { instance_id: string; generation: number }; governance_digest: string; catalog_digest: string };

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  return { isError: r.isError === true, structured: r.structuredContent as Record<string, unknown> };
}

describe('toolgate serve (stdio) on the quickstart', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(['--example', 'quickstart']);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists its tools, each read-only and idempotent', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['check_access', 'unsafe_callable_tools', 'blast_radius', 'eligible_tools']);
    for (const t of tools) expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true });
  });

  it.each([
    ['ci-bot', 'git::git_show'],
    ['ci-bot', 'git::git_log'],
    ['ci-bot', 'filesystem::read_file'],
    ['ops-agent', 'filesystem::write_file'],
    ['publisher', 'publish_note'],
    ['publisher', 'no_such_tool'],
    ['nobody', 'git::git_log'],
  ])('check_access %s %s gives the CLI answer', async (agent, tool) => {
    const { isError, structured } = await call(client, 'check_access', { agent, tool });
    expect(isError).toBe(false);
    expect(structured.result).toEqual((await cli(['check-access', agent, tool, '--example', 'quickstart'])).json);
  });

  it.each([
    ['ci-bot', false],
    ['ops-agent', true],
    ['ops-agent', false],
  ])('unsafe_callable_tools %s (all=%s) gives the CLI answer', async (agent, all) => {
    const { structured } = await call(client, 'unsafe_callable_tools', { agent, all });
    expect(structured.result).toEqual((await cli(['unsafe-tools', agent, '--example', 'quickstart', ...(all ? ['--all'] : [])])).json);
  });

  it.each(['secrets-deny', 'file:///srv/app/.env', 'no-such-thing'])('blast_radius %s gives the CLI answer', async (target) => {
    const { structured } = await call(client, 'blast_radius', { target });
    expect(structured.result).toEqual((await cli(['blast-radius', target, '--example', 'quickstart'])).json);
  });

  it('eligible_tools matches the decisions and graph_state of the compiled policy bundle', async () => {
    const out = mkdtempSync(join(tmpdir(), 'toolgate-serve-test-'));
    for (const profile of ['strict', 'explore'] as const) {
      expect((await cli(['compile', '--example', 'quickstart', '--out', out, '--profile', profile], { SOURCE_DATE_EPOCH: '0' })).code).toBe(0);
      const bundle = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8')) as {
        agents: Record<string, { tools: Record<string, { decision: string }> }>;
        graph_state: unknown;
        governance_digest: string;
        catalog_digest: string;
      };
      for (const [agent, { tools }] of Object.entries(bundle.agents)) {
        const { structured } = await call(client, 'eligible_tools', { agent, profile });
        const result = structured.result as { eligible: { tool_key: string }[]; rejected: { tool_key: string }[] };
        const want = (d: string) => Object.entries(tools).filter(([, v]) => v.decision === d).map(([k]) => k).sort();
        expect(result.eligible.map((e) => e.tool_key)).toEqual(want('eligible'));
        expect(result.rejected.map((e) => e.tool_key)).toEqual(want('rejected'));
        const s = structured as unknown as Structured;
        expect(s.graph_state).toEqual(bundle.graph_state);
        expect([s.governance_digest, s.catalog_digest]).toEqual([bundle.governance_digest, bundle.catalog_digest]);
      }
      rmSync(join(out, 'policy-bundle.json'));
    }
  });

  it('answers bad arguments with the typed envelope', async () => {
    const { isError, structured } = await call(client, 'check_access', { agent: 'ci-bot' });
    expect(isError).toBe(true);
    expect(structured).toMatchObject({ error_kind: 'invalid_arguments', retryable: false, graph_state: null });
  });
});

describe('toolgate serve when its inputs change under it', () => {
  it('reports an unreadable or invalid input as a typed envelope, and counts generations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-serve-test-'));
    const manifest = join(dir, 'governance.yaml');
    const catalog = join(dir, 'catalog.json');
    copyFileSync(join(QUICKSTART, 'governance.yaml'), manifest);
    copyFileSync(join(QUICKSTART, 'catalog.json'), catalog);
    const client = await connect(['--manifest', manifest, '--catalog', catalog]);
    try {
      const args = { agent: 'ci-bot', tool: 'git::git_log' };
      const first = await call(client, 'check_access', args);
      expect((first.structured as unknown as Structured).graph_state.generation).toBe(1);

      const saved = readFileSync(catalog, 'utf8');
      rmSync(catalog);
      const gone = await call(client, 'check_access', args);
      expect(gone.isError).toBe(true);
      expect(gone.structured).toMatchObject({ error_kind: 'input_unreadable', retryable: true, code: 'FILE_UNREADABLE', graph_state: null });
      expect(gone.structured.message).toContain('catalog.json');

      writeFileSync(catalog, '{"servers": [');
      const broken = await call(client, 'check_access', args);
      expect(broken.structured).toMatchObject({ error_kind: 'input_invalid', retryable: false, code: 'PARSE_ERROR' });

      writeFileSync(catalog, saved);
      const same = await call(client, 'check_access', args);
      expect((same.structured as unknown as Structured).graph_state.generation).toBe(1);

      const edited = JSON.parse(saved) as { servers: { name: string; tools?: { name: string }[] }[] };
      edited.servers[0]!.tools!.push({ name: 'brand_new_tool' });
      writeFileSync(catalog, JSON.stringify(edited));
      const changed = await call(client, 'check_access', args);
      expect(changed.isError).toBe(false);
      expect((changed.structured as unknown as Structured).graph_state.generation).toBe(2);
    } finally {
      await client.close();
    }
  }, 30_000);
});
