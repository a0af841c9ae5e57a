/**
 * Crawl (issue 7): wall time of crawling the fleet example's four real stdio servers, as a ratio to
 * a baseline that drives the SDK's Client by hand (spawn, initialize, one list call per declared
 * capability, close, one server after another) with no validation, sorting or canonical bytes.
 * toolgate is measured one server at a time (like for like) and at its default concurrency.
 * Median of three runs each; figures only, never a pass/fail on speed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { catalogFileBytes, crawlFleet, parseServersFile, resolveLaunch } from '../src/crawl/index.ts';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const serversPath = join(repo, 'examples/fleet/servers.yaml');
const servers = parseServersFile(serversPath, readFileSync(serversPath, 'utf8'));
const RUNS = 3;

async function baseline(tmp: string): Promise<void> {
  for (const spec of servers.servers) {
    const l = resolveLaunch(spec, { serversDir: dirname(serversPath), crawlTmpDir: tmp, env: process.env });
    if ('error' in l || l.kind !== 'stdio') throw new Error('fleet servers are stdio');
    const client = new Client({ name: 'bench', version: '0' });
    await client.connect(new StdioClientTransport({ command: l.command, args: [...l.args], env: { ...l.env }, cwd: l.cwd, stderr: 'pipe' }));
    const caps = client.getServerCapabilities() ?? {};
    if (caps.tools) await client.listTools();
    if (caps.resources) {
      await client.listResources();
      await client.listResourceTemplates();
    }
    if (caps.prompts) await client.listPrompts();
    await client.close();
  }
}

async function toolgate(tmp: string, concurrency: number): Promise<number> {
  const r = await crawlFleet(servers, { serversDir: dirname(serversPath), crawlTmpDir: tmp, env: process.env, crawledAt: '1970-01-01T00:00:00Z', concurrency, killServer: (pid) => process.kill(pid, 'SIGKILL') });
  if (r.failed.length > 0) throw new Error(`crawl failed: ${r.failed.join(', ')}`);
  return catalogFileBytes(r.catalog).length;
}

async function median(f: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await f();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
}

const tmp = mkdtempSync(join(tmpdir(), 'toolgate-crawl-bench-'));
try {
  let bytes = 0;
  const base = await median(() => baseline(tmp));
  const seq = await median(async () => (bytes = await toolgate(tmp, 1)));
  const par = await median(() => toolgate(tmp, 4));
  console.log(`fleet: ${servers.servers.length} stdio servers, catalog ${bytes} bytes, median of ${RUNS}`);
  console.log(`  baseline (bare SDK client, sequential)  ${base.toFixed(0)} ms`);
  console.log(`  toolgate crawl --concurrency 1          ${seq.toFixed(0)} ms  (${(seq / base).toFixed(2)}x baseline)`);
  console.log(`  toolgate crawl (default concurrency 4)  ${par.toFixed(0)} ms  (${(par / base).toFixed(2)}x baseline)`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
