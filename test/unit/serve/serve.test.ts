import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectServe } from '../../helpers/serve-client.ts';
import { main } from '../../../src/cli/main.ts';
import { runCli } from '../../helpers/cli.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const QUICKSTART = join(REPO, 'examples/quickstart');

// An unknown agent: the CLI prints nothing (the peer's contract), the MCP answer says agent_found: false.
const UNKNOWN_AGENT = expect.objectContaining({ agent_found: false });

async function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; json: unknown }> {
  let out = '';
  const code = await main(args, { stdout: (t) => void (out += t), stderr: () => {}, cwd: REPO, env, stdin: async () => '' });
  return { code, json: out === '' ? undefined : JSON.parse(out) };
}

const connect = (args: string[]) => connectServe(args, 'serve-test');

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
    expect(tools.map((t) => t.name)).toEqual([
      'check_access',
      'unsafe_callable_tools',
      'blast_radius',
      'unmapped_tools',
      'orphan_policies',
      'unbacked_edges',
      'drift',
      'destructive_unsafeguarded',
      'annotation_contradictions',
      'audit_report',
      'rank_features',
      'eligible_tools',
      'selection_explain',
      'preflight',
      'control_preflight',
      'visible_tools',
      'review_candidates',
      'diff',
    ]);
    for (const t of tools) {
      expect(t.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true, destructiveHint: false });
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('eligible_tools')!.inputSchema.properties).toMatchObject({ candidates: { type: 'array', items: { type: 'string' }, minItems: 1 } });
    expect(byName.get('diff')!.inputSchema.required).toEqual(['declared', 'observed', 'window']);
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

  it('eligible_tools without candidates: the agent\'s granted tools, as the compiled policy bundle decides them', async () => {
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

  it.each([
    ['unmapped_tools', {}, ['unmapped-tools']],
    ['orphan_policies', {}, ['orphan-policies']],
    ['unbacked_edges', {}, ['unbacked-edges']],
    ['unbacked_edges', { include_grants: true }, ['unbacked-edges', '--include-grants']],
    ['drift', {}, ['drift']],
    ['destructive_unsafeguarded', {}, ['destructive-unsafeguarded']],
    ['annotation_contradictions', {}, ['annotation-contradictions']],
  ] as const)('audit %s %j gives the CLI answer', async (name, args, argv) => {
    const { isError, structured } = await call(client, name, args);
    expect(isError).toBe(false);
    expect(structured.result).toEqual((await cli([...argv, '--example', 'quickstart'])).json);
    expect((structured as unknown as Structured).graph_state.generation).toBe(1);
  });

  const CANDIDATES = ['git::git_show', 'git_log', 'filesystem::read_file', 'filesystem::list_directory', 'no_such_tool', 'notes::publish_note', 'nowhere::x'];

  it.each([
    ['ci-bot', 'strict'],
    ['ci-bot', 'review'],
    ['ops-agent', 'explore'],
    ['publisher', 'strict'],
    ['nobody', 'strict'],
  ])('eligible_tools %s over candidates (--profile %s) gives the CLI answer', async (agent, profile) => {
    const { isError, structured } = await call(client, 'eligible_tools', { agent, candidates: CANDIDATES, profile });
    expect(isError).toBe(false);
    const want = await cli(['eligible-tools', agent, ...CANDIDATES, '--profile', profile, '--example', 'quickstart']);
    expect(want.code).toBe(agent === 'nobody' ? 1 : 0);
    expect(structured.result).toEqual(want.json ?? UNKNOWN_AGENT);
  });

  it('eligible_tools defaults to the strict profile, as the CLI does', async () => {
    const { structured } = await call(client, 'eligible_tools', { agent: 'ci-bot', candidates: CANDIDATES });
    expect(structured.result).toEqual((await cli(['eligible-tools', 'ci-bot', ...CANDIDATES, '--example', 'quickstart'])).json);
  });

  it.each(['ci-bot', 'ops-agent', 'nobody'])('rank_features %s gives the CLI answer', async (agent) => {
    const { structured } = await call(client, 'rank_features', { agent, candidates: CANDIDATES });
    expect(structured.result).toEqual((await cli(['rank-features', agent, ...CANDIDATES, '--example', 'quickstart'])).json ?? UNKNOWN_AGENT);
  });

  it.each([
    ['ci-bot', 'git::git_show'],
    ['ops-agent', 'filesystem::write_file'],
    ['publisher', 'git_log'],
    ['ci-bot', 'no_such_tool'],
    ['nobody', 'git::git_log'],
  ])('selection_explain %s %s gives the CLI answer', async (agent, tool) => {
    const { structured } = await call(client, 'selection_explain', { agent, tool });
    expect(structured.result).toEqual((await cli(['selection-explain', agent, tool, '--example', 'quickstart'])).json ?? UNKNOWN_AGENT);
  });

  it.each([
    ['check_access', { agent: 'ci-bot' }, 'missing argument "tool"'],
    ['check_access', { agent: 'ci-bot', tool: '' }, 'non-empty string'],
    ['check_access', { agent: 'ci-bot', tool: 'git::git_log', extra: 1 }, 'unknown argument "extra"'],
    ['unsafe_callable_tools', { agent: 'ci-bot', all: 'yes' }, 'must be a boolean'],
    ['rank_features', { agent: 'ci-bot' }, 'missing argument "candidates"'],
    ['rank_features', { agent: 'ci-bot', candidates: 'git::git_log' }, 'must be an array'],
    ['eligible_tools', { agent: 'ci-bot', candidates: [] }, 'at least 1 item'],
    ['eligible_tools', { agent: 'ci-bot', candidates: ['git::git_log', 3] }, '"candidates"[1] must be a non-empty string'],
    ['eligible_tools', { agent: 'ci-bot', candidates: ['git::git_log', ''] }, '"candidates"[1] must be a non-empty string'],
    ['eligible_tools', { agent: 'ci-bot', profile: 'lenient' }, 'must be one of strict, review, explore'],
    ['preflight', { agent: 'ci-bot', candidates: ['git::git_log'] }, 'missing argument "run_id"'],
    ['preflight', { agent: 'ci-bot', candidates: ['git::git_log'], run_id: 'token=abc123' }, 'credential-shaped (secret_assignment)'],
    ['preflight', { agent: 'ci-bot', candidates: ['git::git_log'], run_id: 'x'.repeat(257) }, '1 to 256 characters'],
    ['control_preflight', { plan: 'p.json', profile: 'lenient' }, 'must be one of strict, review, explore'],
    ['review_candidates', { report: 'r.json', status: 'pending' }, 'must be one of open, accepted, dismissed'],
    ['diff', { declared: 'd.json', observed: 'o.json' }, 'missing argument "window"'],
    ['diff', { declared: 'd.json', observed: 'o.json', window: 'w.json', algorithm: 'md5' }, 'must be one of sha256, sha384, sha512'],
  ] as const)('answers %s %j with the invalid_arguments envelope', async (name, args, message) => {
    const { isError, structured } = await call(client, name, args);
    expect(isError).toBe(true);
    expect(structured).toMatchObject({ error_kind: 'invalid_arguments', retryable: false, graph_state: null, code: null });
    expect(structured.message).toContain(message);
  });
});

describe('toolgate serve diff', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-serve-diff-'));
  const at = (f: string) => join(dir, f);
  let client: Client;
  beforeAll(async () => {
    writeFileSync(at('events.jsonl'), ['{"server":"git","kind":"invoke","target":"git_show"}', '{"server":"git","kind":"invoke","target":"git_show"}', '{"server":"notes","kind":"invoke","target":"draft_note"}', ''].join('\n'));
    expect((await cli(['graph', 'build', '--catalog', join(QUICKSTART, 'catalog.json'), '--out', at('declared.json')])).code).toBe(0);
    const observed = ['observe', '--events', at('events.jsonl'), '--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z'];
    expect((await cli([...observed, '--out', at('observed.json'), '--window-out', at('window.json')])).code).toBe(0);
    symlinkSync('/etc/hostname', at('escape.json'));
    client = await connect(['--example', 'quickstart', '--diff-root', dir]);
  }, 30_000);
  afterAll(async () => {
    await client?.close();
  });

  it.each(['sha256', 'sha512'])('gives the CLI record and the digest of its bytes (%s)', async (algorithm) => {
    const { isError, structured } = await call(client, 'diff', { declared: at('declared.json'), observed: at('observed.json'), window: at('window.json'), algorithm });
    expect(isError).toBe(false);
    let bytes = '';
    const code = await main(['diff', '--declared', at('declared.json'), '--observed', at('observed.json'), '--window', at('window.json'), '--algorithm', algorithm], {
      stdout: (t) => void (bytes += t),
      stderr: () => {},
      cwd: REPO,
      env: {},
      stdin: async () => '',
    });
    expect(code).toBe(0);
    const result = structured.result as { record: { classes: Record<string, unknown[]> }; digest: string };
    expect(result.record).toEqual(JSON.parse(bytes));
    expect(result.record.classes.observed_but_undeclared).toEqual([{ from: 'notes/server', kind: 'invoke', to: 'notes/tool/draft_note' }]);
    expect(result.digest).toBe(`${algorithm}:${createHash(algorithm).update(bytes, 'utf8').digest('hex')}`);
    expect((structured as unknown as Structured).graph_state.generation).toBe(1);
  });

  it('visible_tools reads a compiled bundle under the served folders, as the CLI does; profile with bundle is refused', async () => {
    const compiled = await runCli(['compile', '--example', 'quickstart', '--profile', 'review', '--out', at('out')], { cwd: REPO });
    expect(compiled.code, compiled.stderr).toBe(0);
    const bundle = at('out/bundle.tar.gz');
    for (const agent of ['ci-bot', 'nobody']) {
      const { isError, structured } = await call(client, 'visible_tools', { agent, bundle });
      expect(isError).toBe(false);
      const c = await runCli(['visible-tools', agent, '--bundle', bundle], { cwd: REPO });
      expect(c.code).toBe(agent === 'nobody' ? 1 : 0);
      expect(structured.result).toEqual(c.json());
      expect(structured.result).toMatchObject({ agent, found: agent !== 'nobody', profile: 'review' });
    }
    const both = await call(client, 'visible_tools', { agent: 'ci-bot', bundle, profile: 'strict' });
    expect(both.structured).toMatchObject({ error_kind: 'invalid_arguments', code: null });
    expect(both.structured.message as string).toContain('fixed by the bundle');
  }, 60_000);

  it('reports a missing file as input_unreadable (retryable) and swapped graphs as input_invalid', async () => {
    const gone = await call(client, 'diff', { declared: at('declared.json'), observed: at('observed.json'), window: at('no-window.json') });
    expect(gone.isError).toBe(true);
    expect(gone.structured).toMatchObject({ error_kind: 'input_unreadable', retryable: true, code: 'FILE_UNREADABLE', graph_state: null });
    expect(gone.structured.message).toContain('no-window.json');
    const swapped = await call(client, 'diff', { declared: at('observed.json'), observed: at('declared.json'), window: at('window.json') });
    expect(swapped.structured).toMatchObject({ error_kind: 'input_invalid', retryable: false, code: 'DIFF_REFUSED', graph_state: null });
  });

  it.each([
    ['a file outside the estate and the --diff-root', '/etc/passwd'],
    ['a path climbing out with ..', `${dir}/../../etc/passwd`],
    ['a symlink inside the root pointing out of it', join(dir, 'escape.json')],
  ])('refuses %s without reading it', async (_what, path) => {
    const r = await call(client, 'diff', { declared: at('declared.json'), observed: at('observed.json'), window: path });
    expect(r.isError).toBe(true);
    expect(r.structured).toMatchObject({ error_kind: 'invalid_arguments', code: 'USAGE', graph_state: null });
    expect(r.structured.message).toContain('outside the folders this server reads');
    expect(JSON.stringify(r.structured)).not.toContain('root:');
  });
});

describe('toolgate serve audits on the fleet example', () => {
  it('gives the CLI answer for each audit, findings included', async () => {
    const client = await connect(['--example', 'fleet']);
    try {
      let findings = 0;
      for (const [name, argv] of [
        ['unmapped_tools', 'unmapped-tools'],
        ['orphan_policies', 'orphan-policies'],
        ['unbacked_edges', 'unbacked-edges'],
        ['drift', 'drift'],
        ['destructive_unsafeguarded', 'destructive-unsafeguarded'],
        ['annotation_contradictions', 'annotation-contradictions'],
      ] as const) {
        const { isError, structured } = await call(client, name, {});
        expect(isError).toBe(false);
        const want = (await cli([argv, '--example', 'fleet'])).json as { count: number };
        expect(structured.result).toEqual(want);
        findings += want.count;
      }
      expect(findings).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  }, 30_000);
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

      // Kept between calls once the file is old enough to trust its times; a same-size rewrite
      // that puts the mtime back is still seen (by its ctime).
      const old = new Date(Date.now() - 3600_000);
      utimesSync(catalog, old, old);
      expect((await call(client, 'check_access', args)).structured.graph_state).toEqual({ instance_id: (changed.structured as unknown as Structured).graph_state.instance_id, generation: 2 });
      writeFileSync(catalog, JSON.stringify(edited).replace('brand_new_tool', 'brand_old_tool'));
      utimesSync(catalog, old, old);
      const sameSize = await call(client, 'check_access', args);
      expect((sameSize.structured as unknown as Structured).graph_state.generation).toBe(3);
    } finally {
      await client.close();
    }
  }, 30_000);
});
