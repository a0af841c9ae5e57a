import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import type { CatalogServer } from '../../../src/catalog/types.ts';
import { fixtureEntry, runCrawl } from './helpers.ts';

const SECRET_ENV = 'env-secret-8f3a91';
const SECRET_LITERAL = 'literal-secret-55c2';

const SERVERS = `servers:
${fixtureEntry('hangs', 'hang.mjs')}    env: {FIXTURE_SECRET: {env: CRAWL_TEST_SECRET}, FIXTURE_PIDFILE: "\${SERVERS_DIR}/hang.pid"}
    timeout_ms: 1500
${fixtureEntry('exits', 'exit-at-start.mjs')}    env: {FIXTURE_SECRET: ${JSON.stringify(SECRET_LITERAL)}}
${fixtureEntry('no-name', 'malformed.mjs', 'missing-name')}${fixtureEntry('duplicate', 'malformed.mjs', 'duplicate')}${fixtureEntry('loops', 'malformed.mjs', 'cursor-loop')}${fixtureEntry('qualified', 'malformed.mjs', 'qualified')}${fixtureEntry('paged', 'paged.mjs')}  - name: missing-binary
    command: ./no/such/server
  - name: unset-env
    command: node
    env: {TOKEN: {env: CRAWL_TEST_UNSET_VARIABLE}}
`;

describe('toolgate crawl when servers fail', () => {
  it('reports each failure in its own entry, keeps the good server, exits 1 and leaks no secret', async () => {
    // --server-stderr: the failed servers' stderr is quoted (redacted), as asked.
    const run = await runCrawl(SERVERS, { env: { CRAWL_TEST_SECRET: SECRET_ENV }, args: ['--timeout-ms', '30000', '--server-stderr'] });
    expect(run.code).toBe(1);
    const catalog = parseCatalog('catalog.json', run.catalogText!);
    const byName = new Map<string, CatalogServer>(catalog.servers.map((s) => [s.name, s]));
    expect([...byName.keys()]).toEqual(['duplicate', 'exits', 'hangs', 'loops', 'missing-binary', 'no-name', 'paged', 'qualified', 'unset-env']);

    const failed = catalog.servers.filter((s) => s.status === 'failed').map((s) => s.name);
    expect(failed).toEqual(['duplicate', 'exits', 'hangs', 'loops', 'missing-binary', 'no-name', 'qualified', 'unset-env']);
    for (const s of catalog.servers.filter((x) => x.status === 'failed')) {
      expect(s.tools).toBeUndefined();
      expect(typeof s.error).toBe('string');
    }
    expect(byName.get('hangs')!.error).toMatch(/^timed out after 1500 ms during initialize/);
    expect(byName.get('exits')!.error).toMatch(/closed the connection during initialize.*fatal: cannot open store/);
    expect(byName.get('no-name')!.error).toMatch(/tools\/list/);
    expect(byName.get('duplicate')!.error).toMatch(/"twice".*duplicated/);
    expect(byName.get('loops')!.error).toMatch(/pagination loops/);
    expect(byName.get('qualified')!.error).toMatch(/\/tools\/0\/name/);
    expect(byName.get('missing-binary')!.error).toMatch(/cannot start/);
    expect(byName.get('unset-env')!.error).toBe('env TOKEN: environment variable CRAWL_TEST_UNSET_VARIABLE is not set');

    // The paged server is kept whole: every page followed, lists sorted, fields kept as sent.
    const paged = byName.get('paged')!;
    expect(paged.status).toBe('ok');
    expect(paged.server_info).toEqual({ name: 'paged', title: 'Paged fixture', version: '3.1.0' });
    expect(paged.tools!.map((t) => t.name)).toEqual(['alpha', 'beta', 'mu', 'omega', 'zeta']);
    expect(paged.resources!.map((r) => r.uri)).toEqual(['mem://a', 'mem://b', 'mem://c']);
    expect(paged.resourceTemplates!.map((r) => r.uriTemplate)).toEqual(['mem://item/{id}']);
    expect(paged.prompts!.map((p) => p.name)).toEqual(['ask', 'summarise']);
    expect(paged.prompts!.find((p) => p.name === 'summarise')!.arguments).toEqual([{ name: 'topic', required: true }, { name: 'length' }]);
    const alpha = paged.tools!.find((t) => t.name === 'alpha')!;
    expect(alpha.annotations).toEqual({ destructiveHint: false, readOnlyHint: true });
    expect(alpha['x-vendor']).toEqual({ owner: 'team-alpha' });

    expect(run.stderr).toMatch(/crawl: 8 of 9 servers failed/);
    for (const text of [run.catalogText!, run.stderr, run.stdout]) {
      expect(text).not.toContain(SECRET_ENV);
      expect(text).not.toContain(SECRET_LITERAL);
    }
    // The hung server was stopped, not left behind when the crawl returned.
    const pid = Number(readFileSync(join(run.dir, 'hang.pid'), 'utf8'));
    expect(await exited(pid)).toBe(true);

    // The secrets did reach the children (and were masked on the way back).
    expect(byName.get('hangs')!.error).toContain('[redacted]');
    expect(byName.get('exits')!.error).toContain('[redacted]');
  }, 60_000);

  it('clears a hint the server no longer sends', async () => {
    const servers = `servers:\n${fixtureEntry('paged', 'paged.mjs')}    env: {FIXTURE_VARIANT: b}\n`;
    const run = await runCrawl(servers);
    expect(run.code).toBe(0);
    const alpha = parseCatalog('catalog.json', run.catalogText!).servers[0]!.tools!.find((t) => t.name === 'alpha')!;
    expect(alpha.annotations).toEqual({ destructiveHint: false });
  }, 20_000);
});

async function exited(pid: number): Promise<boolean> {
  for (let i = 0; i < 50; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}
