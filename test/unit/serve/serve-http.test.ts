import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

interface RawAnswer {
  readonly status: number;
  readonly body: string;
}

function post(url: URL, body: string | Buffer, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((res, rej) => {
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (r) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString('utf8')));
        r.on('end', () => res({ status: r.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', rej);
    req.end(body);
  });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('toolgate serve --http refuses what a workstation server must not take', () => {
  let child: ReturnType<typeof spawn>;
  let url: URL;
  beforeAll(async () => {
    child = spawn(process.execPath, [TOOLGATE, 'serve', '--example', 'quickstart', '--http', '0'], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<URL>((res, rej) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString('utf8');
        const m = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
        if (m) res(new URL(m[1]!));
      });
      child.once('exit', (code) => rej(new Error(`serve exited ${code}: ${err}`)));
    });
  }, 30_000);
  afterAll(() => {
    child?.kill('SIGTERM');
  });

  const jsonRpcError = (a: RawAnswer) => (JSON.parse(a.body) as { jsonrpc: string; id: null; error: { code: number; message: string } });

  it('answers its own loopback origin and a client that sends none', async () => {
    expect((await post(url, JSON.stringify(INIT))).status).toBe(200);
    expect((await post(url, JSON.stringify(INIT), { origin: `http://127.0.0.1:${url.port}` })).status).toBe(200);
    expect((await post(url, JSON.stringify(INIT), { origin: `http://localhost:${url.port}` })).status).toBe(200);
  });

  it.each([
    ['a foreign site', 'https://attacker.example'],
    ['a rebound name on the right port', `http://attacker.example:${'PORT'}`],
    ['loopback on another port', 'http://127.0.0.1:1'],
    ['https loopback (another origin)', `https://127.0.0.1:${'PORT'}`],
    ['the opaque origin of a sandboxed page', 'null'],
  ])('refuses an Origin from %s with 403 and a JSON-RPC error', async (_what, origin) => {
    const a = await post(url, JSON.stringify(INIT), { origin: origin.replace('PORT', url.port) });
    expect(a.status).toBe(403);
    expect(jsonRpcError(a)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('forbidden Origin') } });
  });

  it('answers an empty batch, an oversized batch, bad JSON and a non-object with JSON-RPC errors', async () => {
    const empty = await post(url, '[]');
    expect(empty.status).toBe(400);
    expect(jsonRpcError(empty).error).toMatchObject({ code: -32600, message: expect.stringContaining('empty batch') });
    const many = await post(url, JSON.stringify(Array.from({ length: 33 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }))));
    expect(many.status).toBe(400);
    expect(jsonRpcError(many).error.message).toContain('at most 32');
    const bad = await post(url, '{"jsonrpc": "2.0", "id": 1,');
    expect(bad.status).toBe(400);
    expect(jsonRpcError(bad).error).toMatchObject({ code: -32700, message: expect.stringMatching(/1:\d+/) });
    const twice = await post(url, '{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}');
    expect(jsonRpcError(twice).error).toMatchObject({ code: -32700, message: expect.stringContaining('appears twice') });
    const notUtf8 = await post(url, Buffer.from([0x7b, 0xff, 0x7d]));
    expect(jsonRpcError(notUtf8).error).toMatchObject({ code: -32700 });
    const scalar = await post(url, '42');
    expect(jsonRpcError(scalar).error.code).toBe(-32600);
  });

  it('refuses a body over the size limit with 413', async () => {
    const big = JSON.stringify({ ...INIT, padding: 'x'.repeat(1024 * 1024) });
    const a = await post(url, big);
    expect(a.status).toBe(413);
    expect(jsonRpcError(a).error.message).toContain('larger than 1048576 bytes');
  });
});
