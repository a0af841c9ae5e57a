/** An MCP client connected over stdio to a `toolgate serve` child (the current src/, from the repo root). */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLGATE } from './toolgate-bin.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

export async function connectServe(serveArgs: readonly string[], clientName: string): Promise<Client> {
  const client = new Client({ name: clientName, version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [TOOLGATE, 'serve', ...serveArgs], cwd: REPO, stderr: 'pipe' }));
  return client;
}
