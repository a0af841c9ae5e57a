/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, every server scenario)
 * against `toolgate serve --http` on loopback. The suite's own baseline check decides: a scenario
 * outside test/fixtures/conformance/baseline.yml that fails (or warns), or one inside it that
 * passes, fails the run. The suite drives servers over HTTP only (`server --url`), so stdio is
 * covered by the stdio tests beside this one, not by the suite.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const SUITE = join(REPO, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
// The suite asks for Node 22 for one API its tier-check uses; see the helper.
const NODE20_SHIM = join(REPO, 'test/helpers/conformance-node20.mjs');

function run(command: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((res) => {
    const child = spawn(command, args, { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.once('exit', (code) => res({ code, out }));
  });
}

describe('the MCP conformance suite against toolgate serve --http', () => {
  it('passes every scenario toolgate offers, and fails only the baseline (features it does not have)', async () => {
    const serve = spawn(process.execPath, [TOOLGATE, 'serve', '--example', 'quickstart', '--http', '0'], { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const url = await new Promise<string>((res, rej) => {
        let err = '';
        serve.stderr.on('data', (c: Buffer) => {
          err += c.toString('utf8');
          const m = /serving MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
          if (m) res(m[1]!);
        });
        serve.once('exit', (code) => rej(new Error(`serve exited ${code}: ${err}`)));
      });
      const results = mkdtempSync(join(tmpdir(), 'toolgate-conformance-'));
      const { code, out } = await run(process.execPath, ['--import', NODE20_SHIM, SUITE, 'server', '--url', url, '--suite', 'all', '--expected-failures', join(REPO, 'test/fixtures/conformance/baseline.yml'), '-o', results]);
      expect(out, out).toContain('Baseline check passed');
      expect(code, out).toBe(0);

      // What toolgate offers, checked one by one: every check of these scenarios succeeded.
      const statuses = new Map<string, string[]>();
      for (const dir of readdirSync(results)) {
        const scenario = dir.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
        const checks = JSON.parse(readFileSync(join(results, dir, 'checks.json'), 'utf8')) as { id: string; status: string }[];
        statuses.set(scenario, checks.filter((c) => c.status !== 'INFO').map((c) => `${c.id}:${c.status}`));
      }
      expect(statuses.get('server-initialize')).toEqual(['server-initialize:SUCCESS']);
      expect(statuses.get('ping')).toEqual(['ping:SUCCESS']);
      expect(statuses.get('tools-list')).toEqual(['tools-list:SUCCESS']);
      expect(statuses.get('dns-rebinding-protection')?.sort()).toEqual(['localhost-host-rebinding-rejected:SUCCESS', 'localhost-host-valid-accepted:SUCCESS']);
      expect(statuses.size).toBe(32);
    } finally {
      serve.kill('SIGTERM');
    }
  }, 120_000);
});
