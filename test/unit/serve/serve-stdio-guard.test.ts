/**
 * `toolgate serve` over stdio answers every line it cannot take with a JSON-RPC error line (an
 * empty batch, bad JSON, a repeated key, a message that is not JSON-RPC, a line over the size
 * limit) and still answers the good lines around them.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { MAX_BODY_BYTES } from '../../../src/serve/http-guard.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const REPO = resolve(import.meta.dirname, '../../..');

function exchange(lines: readonly string[], answers: number): Promise<Record<string, unknown>[]> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, [TOOLGATE, 'serve', '--example', 'quickstart'], { cwd: REPO, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`no ${answers} answers in time: ${out}`));
    }, 20_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const got = out.split('\n').filter((l) => l !== '');
      if (got.length >= answers) {
        clearTimeout(timer);
        child.stdin.end();
        res(got.map((l) => JSON.parse(l) as Record<string, unknown>));
      }
    });
    for (const l of lines) child.stdin.write(`${l}\n`);
  });
}

describe('toolgate serve (stdio) refusals', () => {
  it('answers each bad line with a JSON-RPC error and the good ones as usual', async () => {
    const answers = await exchange(
      [
        '[]',
        '{"jsonrpc":"2.0","id":1,"method":"ping"}',
        '{"jsonrpc": "2.0", "id": 2,',
        '{"jsonrpc":"2.0","id":3,"method":"ping","id":4}',
        '{"id":5}',
        JSON.stringify(Array.from({ length: 33 }, (_, i) => ({ jsonrpc: '2.0', id: 100 + i, method: 'ping' }))),
        JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping', params: { pad: 'x'.repeat(MAX_BODY_BYTES) } }),
        '[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":8,"method":"ping"}]',
      ],
      9,
    );
    const errors = answers.filter((a) => 'error' in a).map((a) => [a.id, (a.error as { code: number; message: string }).code, (a.error as { message: string }).message]);
    expect(errors).toEqual([
      [null, -32600, 'invalid request: an empty batch'],
      [null, -32700, expect.stringContaining('at 1:28')],
      [null, -32700, expect.stringContaining('appears twice')],
      [5, -32600, 'invalid request: not a JSON-RPC 2.0 message'],
      [null, -32600, expect.stringContaining('at most 32')],
      [null, -32600, `message larger than ${MAX_BODY_BYTES} bytes`],
    ]);
    expect(answers.filter((a) => 'result' in a).map((a) => a.id).sort()).toEqual([1, 7, 8]);
  }, 30_000);
});
