import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp/http-server.ts';
import { fixtureEntry, runCrawl } from './helpers.ts';

const TOKEN = 'http-token-7d1e0c';
let fixture: HttpFixture;

beforeAll(async () => {
  fixture = await startHttpFixture(TOKEN);
});
afterAll(async () => {
  await fixture.close();
});

const servers = () => `servers:\n  - name: remote\n    url: ${fixture.url}\n    headers: {Authorization: {env: REMOTE_AUTH}}\n`;

describe('toolgate crawl over streamable HTTP', () => {
  it('sends headers taken from the environment and records the server', async () => {
    const run = await runCrawl(servers(), { env: { REMOTE_AUTH: `Bearer ${TOKEN}` } });
    expect(run.stderr).toContain('crawl: remote: ok');
    expect(run.code).toBe(0);
    const [remote] = parseCatalog('catalog.json', run.catalogText!).servers;
    expect(remote).toMatchObject({ name: 'remote', status: 'ok', server_info: { name: 'http-fixture' }, tools: [{ name: 'lookup', annotations: { readOnlyHint: true } }] });
    expect(run.catalogText).not.toContain(TOKEN);
    expect(run.catalogText).not.toContain(fixture.url);
  });

  it('reports a refused credential without repeating it', async () => {
    const wrong = 'wrong-credential-3b9f';
    const run = await runCrawl(servers(), { env: { REMOTE_AUTH: `Bearer ${wrong}` } });
    expect(run.code).toBe(1);
    const [remote] = parseCatalog('catalog.json', run.catalogText!).servers;
    expect(remote!.status).toBe('failed');
    expect(remote!.error).toMatch(/401/);
    for (const text of [run.catalogText!, run.stderr]) expect(text).not.toContain(wrong);
  });
});

describe('toolgate crawl --merge', () => {
  const staticCatalog = JSON.stringify({ servers: [{ name: 'time', tools: [{ name: 'get_current_time' }] }] });

  it('adds hand-written servers, sorted among the crawled ones', async () => {
    const run = await runCrawl(`servers:\n${fixtureEntry('paged', 'paged.mjs')}`, { args: ['--merge', 'static.json'], dir: withFile('static.json', staticCatalog) });
    expect(run.code).toBe(0);
    const catalog = parseCatalog('catalog.json', run.catalogText!);
    expect(catalog.servers.map((s) => [s.name, s.status])).toEqual([['paged', 'ok'], ['time', undefined]]);
  });

  it('refuses a server both crawled and merged, writing nothing', async () => {
    const run = await runCrawl(`servers:\n${fixtureEntry('time', 'paged.mjs')}`, { args: ['--merge', 'static.json'], dir: withFile('static.json', staticCatalog) });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('DUPLICATE_CATALOG_ROW');
    expect(run.catalogText).toBeUndefined();
  });
});

function withFile(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-crawl-test-'));
  writeFileSync(join(dir, name), text);
  return dir;
}
