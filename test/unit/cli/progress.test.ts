/** Progress is drawn on a terminal only, after a second, in place, and erased before other text and at the end. */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgress, withProgress } from '../../../src/cli/progress.ts';
import type { CliIo } from '../../../src/cli/command.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

function fake(columns = 80) {
  let t = 0;
  let out = '';
  const p = createProgress('crawl', { write: (s) => (out += s), now: () => t, columns, intervalMs: 0 });
  return { p, tick: (ms: number) => (t += ms), out: () => out, reset: () => (out = '') };
}

describe('createProgress', () => {
  it('draws nothing in the first second, then the phase, count and elapsed time in place', () => {
    const f = fake();
    f.p.report('servers crawled', 0, 3);
    f.tick(999);
    f.p.report('servers crawled', 1, 3);
    expect(f.out()).toBe('');
    f.tick(201);
    f.p.report('servers crawled', 2, 3);
    expect(f.out()).toBe('\rtoolgate crawl: servers crawled 2/3 1.2s\x1b[K');
  });

  it('erases its line before other text and at the end, and draws nothing after the end', () => {
    const f = fake();
    f.tick(1500);
    f.p.clear();
    expect(f.out()).toBe(''); // nothing drawn, nothing to erase
    f.p.report('cases run', 40);
    f.reset();
    f.p.clear();
    expect(f.out()).toBe('\r\x1b[K');
    f.p.report('cases run', 41);
    f.reset();
    f.p.end();
    expect(f.out()).toBe('\r\x1b[K');
    f.reset();
    f.p.report('cases run', 42);
    f.p.end();
    expect(f.out()).toBe('');
  });

  it('cuts the line to the terminal width, so it never wraps', () => {
    const f = fake(30);
    f.tick(2000);
    f.p.report('a phase with a rather long name', 1, 2);
    const line = f.out().replace('\r', '').replace('\x1b[K', '');
    expect(line.length).toBe(29);
    expect(line.endsWith('…')).toBe(true);
  });
});

describe('withProgress', () => {
  const io: CliIo = { stdout: () => {}, stderr: () => {}, cwd: '/', env: {}, stdin: async () => '' };
  it('leaves the io as it is when stderr is not a terminal, or TERM is dumb', () => {
    expect(withProgress(io, 'compile')).toBe(io);
    const dumb = { ...io, env: { TERM: 'dumb' }, stderrTTY: { columns: 80 } };
    expect(withProgress(dumb, 'compile')).toBe(dumb);
  });
  it('adds a reporter on a terminal', () => {
    const tty = withProgress({ ...io, stderrTTY: { columns: 80 } }, 'compile');
    expect(tty.progress).toBeDefined();
    tty.progress!.end();
  });
});

describe('a crawl run over a second, as a process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-progress-'));
  const hang = new URL('../../fixtures/mcp/hang.mjs', import.meta.url).pathname;
  writeFileSync(join(dir, 'servers.yaml'), `servers:\n  - {name: slow, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(hang)}]}\n`);
  const argv = [TOOLGATE, 'crawl', '--servers', 'servers.yaml', '--out', 'catalog.json', '--timeout-ms', '2500'];
  const env = { ...process.env, SOURCE_DATE_EPOCH: '0', TERM: 'xterm' };

  it('writes no progress when stderr is a pipe: the output is only the per-server lines', () => {
    const r = spawnSync(process.execPath, argv, { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).not.toMatch(/[\r\x1b]/);
    expect(r.stderr).not.toContain('servers crawled');
    expect(r.stderr.split('\n').filter(Boolean).map((l) => l.replace(/: failed: .*/, ': failed'))).toEqual(['crawl: slow: failed', 'crawl: 1 of 1 servers failed: slow']);
  }, 60_000);

  const script = spawnSync('script', ['--version']).status === 0;
  it.skipIf(!script && !process.env.CI)('draws and erases a progress line on a terminal (util-linux script gives it one; skips outside CI without it)', () => {
    const command = [process.execPath, ...argv].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const r = spawnSync('script', ['-qefc', command, '/dev/null'], { cwd: dir, env, encoding: 'utf8', timeout: 60_000 });
    expect(r.stdout).toMatch(/\rtoolgate crawl: servers crawled 0\/1 \d+\.\ds\x1b\[K/);
    // Erased before the next line, so the terminal shows only the per-server result.
    expect(r.stdout).toMatch(/\r\x1b\[Kcrawl: slow: failed/);
  }, 60_000);
});
