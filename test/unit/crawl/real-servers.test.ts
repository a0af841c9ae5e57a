import { describe, expect, it } from 'vitest';
import { parseCatalog } from '../../../src/catalog/parse.ts';
import type { CatalogServer } from '../../../src/catalog/types.ts';
import { BIN, runCrawl } from './helpers.ts';

const SERVERS = `servers:
  - name: everything
    command: ${JSON.stringify(`${BIN}/mcp-server-everything`)}
    args: [stdio]
  - name: filesystem
    transport: stdio
    command: ${JSON.stringify(`${BIN}/mcp-server-filesystem`)}
    args: ["\${CRAWL_TMPDIR}"]
`;

const names = (items: readonly { name?: unknown }[] | undefined) => (items ?? []).map((t) => t.name);

describe('toolgate crawl on real MCP servers (stdio)', () => {
  it('records their real tools, resources, templates and prompts, and re-crawls to the same bytes', async () => {
    const first = await runCrawl(SERVERS);
    expect(first.stderr).toContain('crawl: everything: ok');
    expect(first.code).toBe(0);
    const catalog = parseCatalog('catalog.json', first.catalogText!);
    expect(catalog.crawled_at).toBe('1970-01-01T00:00:00Z');
    expect(catalog.servers.map((s) => s.name)).toEqual(['everything', 'filesystem']);
    const [everything, filesystem] = catalog.servers as [CatalogServer, CatalogServer];

    expect(everything.status).toBe('ok');
    expect(everything.server_info?.name).toBe('mcp-servers/everything');
    expect(everything.protocol_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(names(everything.tools)).toEqual([
      'echo',
      'get-annotated-message',
      'get-env',
      'get-resource-links',
      'get-resource-reference',
      'get-structured-content',
      'get-sum',
      'get-tiny-image',
      'gzip-file-as-resource',
      'simulate-research-query',
      'toggle-simulated-logging',
      'toggle-subscriber-updates',
      'trigger-long-running-operation',
    ]);
    const echo = everything.tools!.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(everything.resources).toHaveLength(7);
    expect(everything.resources!.every((r) => r.uri.startsWith('demo://resource/'))).toBe(true);
    expect(everything.resourceTemplates!.map((t) => t.uriTemplate)).toEqual([
      'demo://resource/dynamic/blob/{resourceId}',
      'demo://resource/dynamic/text/{resourceId}',
    ]);
    expect(names(everything.prompts)).toEqual(['args-prompt', 'completable-prompt', 'resource-prompt', 'simple-prompt']);

    expect(filesystem.status).toBe('ok');
    expect(filesystem.server_info?.name).toBe('secure-filesystem-server');
    expect(names(filesystem.tools)).toEqual([
      'create_directory',
      'directory_tree',
      'edit_file',
      'get_file_info',
      'list_allowed_directories',
      'list_directory',
      'list_directory_with_sizes',
      'move_file',
      'read_file',
      'read_media_file',
      'read_multiple_files',
      'read_text_file',
      'search_files',
      'write_file',
    ]);
    // Annotations are the server's own claims, stored as sent.
    expect(filesystem.tools!.find((t) => t.name === 'read_text_file')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(filesystem.tools!.find((t) => t.name === 'write_file')!.annotations).toMatchObject({ readOnlyHint: false });
    // filesystem declares tools only: the other lists are absent, not empty.
    expect(filesystem.resources).toBeUndefined();
    expect(filesystem.prompts).toBeUndefined();

    const second = await runCrawl(SERVERS);
    expect(second.code).toBe(0);
    expect(second.catalogText).toBe(first.catalogText);
  }, 60_000);
});

describe('examples/fleet', () => {
  it('catalog.json is what crawling servers.yaml (merged with catalog.static.json) gives today', async () => {
    const { main } = await import('../../../src/cli/main.ts');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { REPO } = await import('./helpers.ts');
    const out = join(mkdtempSync(join(tmpdir(), 'toolgate-fleet-')), 'catalog.json');
    let stderr = '';
    const code = await main(['crawl', '--servers', 'examples/fleet/servers.yaml', '--merge', 'examples/fleet/catalog.static.json', '--out', out], {
      stdout: () => {},
      stderr: (t) => void (stderr += t),
      cwd: REPO,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
      stdin: async () => '',
    });
    expect(stderr).not.toContain('failed');
    expect(code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(readFileSync(join(REPO, 'examples/fleet/catalog.json'), 'utf8'));
  }, 60_000);
});
