/** Runs `toolgate crawl` in-process on a servers file written to a fresh folder. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { main } from '../../../src/cli/main.ts';

export const REPO = resolve(import.meta.dirname, '../../..');
export const NODE = process.execPath;
export const FIXTURES = join(REPO, 'test/fixtures/mcp');
export const BIN = join(REPO, 'node_modules/.bin');

export interface CrawlRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly catalogText: string | undefined;
  readonly dir: string;
}

export async function runCrawl(serversYaml: string, opts: { env?: Record<string, string>; args?: string[]; dir?: string } = {}): Promise<CrawlRun> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'toolgate-crawl-test-'));
  writeFileSync(join(dir, 'servers.yaml'), serversYaml);
  let stdout = '';
  let stderr = '';
  const code = await main(['crawl', '--servers', 'servers.yaml', '--out', 'catalog.json', ...(opts.args ?? [])], {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    cwd: dir,
    env: { SOURCE_DATE_EPOCH: '0', ...(opts.env ?? {}) },
    stdin: async () => '',
  });
  let catalogText: string | undefined;
  try {
    catalogText = readFileSync(join(dir, 'catalog.json'), 'utf8');
  } catch {
    catalogText = undefined;
  }
  return { code, stdout, stderr, catalogText, dir };
}

/** A stdio servers-file entry running a fixture script with node. */
export function fixtureEntry(name: string, script: string, extra = ''): string {
  return `  - name: ${name}\n    command: ${JSON.stringify(NODE)}\n    args: [${JSON.stringify(join(FIXTURES, script))}${extra ? `, ${extra}` : ''}]\n`;
}
