/** An MCP Registry server.json as a crawl input: what launches, what cannot, identity, and secrets. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import { parseRegistryServerJson, registryServerSpec, type RegistryServer } from '../../../src/crawl/registry-server-json.ts';
import { main } from '../../../src/cli/main.ts';
import { startHttpFixture, type HttpFixture } from '../../fixtures/mcp/http-server.ts';
import { REPO } from './helpers.ts';

const SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json';
const MEMORY_VERSION = JSON.parse(readFileSync(join(REPO, 'node_modules/@modelcontextprotocol/server-memory/package.json'), 'utf8')).version as string;

const memoryServer = (extra: Partial<RegistryServer> = {}): RegistryServer => ({
  $schema: SCHEMA,
  name: 'io.github.modelcontextprotocol/server-memory',
  description: 'Knowledge-graph memory',
  version: MEMORY_VERSION,
  repository: { url: 'https://github.com/modelcontextprotocol/servers', source: 'github', id: '890668155', subfolder: 'src/memory' },
  packages: [
    { registryType: 'pypi', identifier: 'mcp-server-memory', version: '1.0.0', transport: { type: 'stdio' } },
    {
      registryType: 'npm',
      identifier: '@modelcontextprotocol/server-memory',
      version: MEMORY_VERSION,
      transport: { type: 'stdio' },
      environmentVariables: [
        { name: 'MEMORY_FILE_PATH', value: '{dir}/memory.jsonl', variables: { dir: { default: '/nonexistent' } } },
        { name: 'MEMORY_TOKEN', isSecret: true },
      ],
    },
  ],
  ...extra,
});

const ctx = (env: Record<string, string> = {}) => ({ env, cwd: REPO });

async function crawl(files: Record<string, unknown>, env: Record<string, string>, cwd = REPO) {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-server-json-'));
  const args: string[] = [];
  for (const [name, value] of Object.entries(files)) {
    writeFileSync(join(dir, name), JSON.stringify(value, null, 2));
    args.push('--server-json', join(dir, name));
  }
  let stderr = '';
  const code = await main(['crawl', ...args, '--out', join(dir, 'catalog.json')], {
    stdout: () => {},
    stderr: (t) => void (stderr += t),
    cwd,
    env: { SOURCE_DATE_EPOCH: '0', ...env },
    stdin: async () => '',
  });
  const catalogText = readFileSync(join(dir, 'catalog.json'), 'utf8');
  return { code, stderr, catalogText, catalog: parseCatalog('catalog.json', catalogText) };
}

describe('registryServerSpec', () => {
  it('launches the first npm stdio package through npx at its pinned version, offline, in the working folder', () => {
    const spec = registryServerSpec(memoryServer(), ctx({ MEMORY_TOKEN: 'tok-1' }));
    expect(spec).toMatchObject({
      name: 'io.github.modelcontextprotocol/server-memory',
      command: 'npx',
      args: ['--no', '--offline', '--', `@modelcontextprotocol/server-memory@${MEMORY_VERSION}`],
      cwd: REPO,
      env: { MEMORY_FILE_PATH: '/nonexistent/memory.jsonl', MEMORY_TOKEN: { env: 'MEMORY_TOKEN' } },
      registry: { name: 'io.github.modelcontextprotocol/server-memory', version: MEMORY_VERSION, repository: { id: '890668155' }, launched: { registryType: 'npm' } },
    });
  });

  it('passes a secret by reference only: its value is nowhere in the spec, whatever it is', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9+=_-]{8,40}$/), (secret) => {
        const spec = registryServerSpec(memoryServer(), ctx({ MEMORY_TOKEN: secret }));
        expect(JSON.stringify(spec)).not.toContain(secret);
      }),
    );
  });

  it('names a required secret that is not set, never a value, and takes the next option', () => {
    const s = memoryServer();
    const npm = { ...s.packages![1]!, environmentVariables: [{ name: 'API_KEY', isSecret: true, isRequired: true }] };
    const spec = registryServerSpec({ ...s, packages: [npm] }, ctx());
    expect(spec).toMatchObject({ unavailable: expect.stringContaining('API_KEY is a required secret: set environment variable API_KEY') });
  });

  it('says why pypi, oci, HTTP packages and SSE remotes are not launched here, one reason per option', () => {
    const spec = registryServerSpec(
      {
        name: 'io.example/only-remote-sse',
        version: '1.0.0',
        packages: [
          { registryType: 'pypi', identifier: 'mcp-server-fetch', version: '0.6.2', transport: { type: 'stdio' } },
          { registryType: 'oci', identifier: 'docker.io/mcp/fetch', version: '1.0', transport: { type: 'stdio' } },
          { registryType: 'npm', identifier: '@x/http', version: '1.0.0', transport: { type: 'streamable-http', url: 'http://localhost:{port}/mcp' } },
        ],
        remotes: [{ type: 'sse', url: 'https://mcp.example/sse' }],
      },
      ctx(),
    );
    expect('unavailable' in spec).toBe(true);
    const why = (spec as { unavailable: string }).unavailable;
    for (const part of ['packages[0] (pypi package mcp-server-fetch@0.6.2', 'packages[1] (oci package docker.io/mcp/fetch@1.0', 'packages[2] (npm package @x/http@1.0.0: transport "streamable-http"', 'remotes[0] (sse remote']) {
      expect(why).toContain(part);
    }
  });

  it('refuses to put a secret variable on a command line', () => {
    const s = memoryServer();
    const npm = { ...s.packages![1]!, environmentVariables: [], packageArguments: [{ type: 'named' as const, name: '--token', value: '{tok}', variables: { tok: { isSecret: true } } }] };
    const spec = registryServerSpec({ ...s, packages: [npm] }, ctx({ tok: 'visible-secret' }));
    expect(JSON.stringify(spec)).not.toContain('visible-secret');
    expect(spec).toMatchObject({ unavailable: expect.stringContaining('secret {tok} would be visible on a command line') });
  });

  it('turns named and positional arguments into words', () => {
    const s = memoryServer();
    const npm = {
      ...s.packages![1]!,
      environmentVariables: [],
      packageArguments: [
        { type: 'positional' as const, value: 'stdio' },
        { type: 'named' as const, name: '--root', value: '{root}', variables: { root: { default: '/srv' } } },
        { type: 'positional' as const, valueHint: 'WORKDIR' },
      ],
    };
    expect(registryServerSpec({ ...s, packages: [npm] }, ctx({ WORKDIR: '/w' }))).toMatchObject({ args: ['--no', '--offline', '--', expect.any(String), 'stdio', '--root', '/srv', '/w'] });
    expect(registryServerSpec({ ...s, packages: [npm] }, ctx())).toMatchObject({ unavailable: expect.stringContaining('positional argument WORKDIR has no value') });
  });
});

describe('parseRegistryServerJson', () => {
  it.each([
    ['a name without a namespace', { name: 'memory', version: '1' }],
    ['no version', { name: 'io.example/x' }],
    ['a package without a transport', { name: 'io.example/x', version: '1', packages: [{ registryType: 'npm', identifier: 'x' }] }],
    ['a schema older than 2025-09-29', { $schema: 'https://static.modelcontextprotocol.io/schemas/2025-07-09/server.schema.json', name: 'io.example/x', version: '1' }],
  ])('refuses %s, located', (_what, value) => {
    let caught: unknown;
    try {
      parseRegistryServerJson('server.json', JSON.stringify(value, null, 2));
    } catch (e) {
      caught = e;
    }
    expect(caught).toMatchObject({ code: 'CONFIG_INVALID' });
    expect((caught as { at: { file: string }[] }).at[0]).toMatchObject({ file: 'server.json' });
  });

  it('reads a current server.json, ignoring fields it does not use', () => {
    const s = parseRegistryServerJson('server.json', JSON.stringify({ ...memoryServer(), $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json', websiteUrl: 'https://x', _meta: { a: 1 } }));
    expect(s.name).toBe('io.github.modelcontextprotocol/server-memory');
  });
});

describe('toolgate crawl --server-json', () => {
  let http: HttpFixture;
  const TOKEN = 'registry-remote-token-5c2a';
  beforeAll(async () => {
    http = await startHttpFixture(TOKEN);
  });
  afterAll(async () => {
    await http.close();
  });

  it('crawls an installed npm package over stdio for real, records its identity, keeps its secret out, and lists what cannot run', async () => {
    const secret = 'memory-secret-value-81f3';
    const fetchServer = {
      $schema: SCHEMA,
      name: 'io.github.modelcontextprotocol/server-fetch',
      version: '0.6.2',
      description: 'fetch',
      packages: [
        { registryType: 'pypi', identifier: 'mcp-server-fetch', version: '0.6.2', transport: { type: 'stdio' } },
        { registryType: 'oci', identifier: 'docker.io/mcp/fetch', version: '1.0', transport: { type: 'stdio' } },
      ],
    };
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-memory-'));
    const server = memoryServer();
    const npm = { ...server.packages![1]!, environmentVariables: [{ name: 'MEMORY_FILE_PATH', value: join(dir, 'memory.jsonl') }, { name: 'MEMORY_TOKEN', isSecret: true, isRequired: true }] };
    const run = await crawl({ 'memory.server.json': { ...server, packages: [server.packages![0]!, npm] }, 'fetch.server.json': fetchServer }, { MEMORY_TOKEN: secret });
    expect(run.code).toBe(1); // the fetch server cannot run here
    const memory = run.catalog.servers.find((s) => s.name === 'io.github.modelcontextprotocol/server-memory')!;
    expect(memory.status, run.stderr).toBe('ok');
    expect(memory.server_info).toMatchObject({ name: 'memory-server' });
    expect(memory.tools!.map((t) => t.name)).toContain('read_graph');
    expect(memory.registry).toEqual({
      name: 'io.github.modelcontextprotocol/server-memory',
      version: MEMORY_VERSION,
      repository: { url: 'https://github.com/modelcontextprotocol/servers', source: 'github', id: '890668155', subfolder: 'src/memory' },
      launched: { registryType: 'npm', identifier: '@modelcontextprotocol/server-memory', version: MEMORY_VERSION },
    });
    const fetchEntry = run.catalog.servers.find((s) => s.name === 'io.github.modelcontextprotocol/server-fetch')!;
    expect(fetchEntry).toMatchObject({ status: 'failed', registry: { name: 'io.github.modelcontextprotocol/server-fetch', version: '0.6.2' } });
    expect(fetchEntry.error).toMatch(/pypi package mcp-server-fetch@0\.6\.2: not launched here.*oci package docker\.io\/mcp\/fetch@1\.0: not launched here/);
    expect(run.stderr).toContain('crawl: io.github.modelcontextprotocol/server-fetch: failed');
    for (const text of [run.catalogText, run.stderr]) expect(text).not.toContain(secret);
    // The catalog is an estate input as it stands: the reverse-DNS name qualifies the tool keys.
    const estateDir = mkdtempSync(join(tmpdir(), 'toolgate-memory-estate-'));
    writeFileSync(join(estateDir, 'catalog.json'), run.catalogText);
    writeFileSync(join(estateDir, 'governance.yaml'), 'agents: [bot]\ngrants:\n  - {agent: bot, tool: "io.github.modelcontextprotocol/server-memory::read_graph"}\n');
    let out = '';
    const estate = ['--manifest', join(estateDir, 'governance.yaml'), '--catalog', join(estateDir, 'catalog.json')];
    const code = await main(['check-access', 'bot', 'read_graph', ...estate, '--profile', 'review'], { stdout: (t) => void (out += t), stderr: () => {}, cwd: estateDir, env: {}, stdin: async () => '' });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ verdict: 'ALLOW', tool_key: 'io.github.modelcontextprotocol/server-memory::read_graph', gateway: { allow: true } });
  }, 120_000);

  it('crawls a streamable-http remote, its Authorization header filled from a secret variable in the environment', async () => {
    const server = {
      $schema: SCHEMA,
      name: 'io.example/remote-lookup',
      version: '1.0.0',
      remotes: [{ type: 'streamable-http', url: http.url, headers: [{ name: 'Authorization', value: 'Bearer {lookup_token}', isSecret: true, variables: { lookup_token: { isSecret: true } } }] }],
    };
    const run = await crawl({ 'remote.server.json': server }, { lookup_token: TOKEN });
    expect(run.code, run.stderr).toBe(0);
    const [entry] = run.catalog.servers;
    expect(entry).toMatchObject({ name: 'io.example/remote-lookup', status: 'ok', tools: [{ name: 'lookup' }], registry: { launched: { type: 'streamable-http' } } });
    for (const text of [run.catalogText, run.stderr]) expect(text).not.toContain(TOKEN);
    const missing = await crawl({ 'remote.server.json': { ...server, remotes: [{ ...server.remotes[0]!, headers: [{ name: 'Authorization', value: 'Bearer {lookup_token}', isRequired: true, variables: { lookup_token: { isSecret: true } } }] }] } }, {});
    expect(missing.code).toBe(1);
    expect(missing.catalog.servers[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('secret {lookup_token} needs environment variable lookup_token') });
  }, 60_000);

  it('refuses the same server named twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-server-json-dup-'));
    writeFileSync(join(dir, 's.json'), JSON.stringify(memoryServer()));
    let stderr = '';
    const code = await main(['crawl', '--server-json', join(dir, 's.json'), '--server-json', join(dir, 's.json'), '--out', join(dir, 'c.json')], {
      stdout: () => {},
      stderr: (t) => void (stderr += t),
      cwd: dir,
      env: {},
      stdin: async () => '',
    });
    expect(code).toBe(1);
    expect(stderr).toContain('DUPLICATE_ENTRY');
  });
});
