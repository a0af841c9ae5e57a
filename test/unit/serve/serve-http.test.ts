import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { main } from '../../../src/cli/main.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const REPO = resolve(import.meta.dirname, '../../..');

function statusWithHost(url: URL, host: string): Promise<number> {
  return new Promise((res, rej) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { host, 'content-type': 'application/json' } }, (r) => {
      r.resume();
      res(r.statusCode ?? 0);
    });
    req.on('error', rej);
    req.end('{}');
  });
}

describe('toolgate serve --http', () => {
  it('serves the same answers over streamable HTTP on loopback, refusing foreign Host names', async () => {
    const child = spawn(process.execPath, [TOOLGATE, 'serve', '--example', 'quickstart', '--http', '0'], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<URL>((res, rej) => {
        let err = '';
        child.stderr.on('data', (c: Buffer) => {
          err += c.toString('utf8');
          const m = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m) res(new URL(m[1]!));
        });
        child.once('exit', (code) => rej(new Error(`serve exited ${code}: ${err}`)));
      });
      const client = new Client({ name: 'serve-http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url));
      const r = await client.callTool({ name: 'check_access', arguments: { agent: 'ci-bot', tool: 'git::git_show' } });
      let out = '';
      await main(['check-access', 'ci-bot', 'git::git_show', '--example', 'quickstart'], { stdout: (t) => void (out += t), stderr: () => {}, cwd: REPO, env: {}, stdin: async () => '' });
      expect((r.structuredContent as { result: unknown }).result).toEqual(JSON.parse(out));
      await client.close();
      expect(await statusWithHost(url, 'attacker.example')).toBe(403);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
