/**
 * The cache folder decide keeps its certificates and views in (TOOLGATE_CACHE_DIR) is an input
 * too: a path through a file or a symlink loop was an internal error (removing a temp file that
 * could never be made), and one under /proc never returned (Node's recursive mkdir retries there).
 * A cache that cannot be used is no cache: the decision is still made and printed, exit 0.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';
import { runCli } from '../../helpers/cli.ts';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-cache-'));
  expect((await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'out')])).code).toBe(0);
  bundle = join(dir, 'out', 'bundle.tar.gz');
});

describe('an unusable TOOLGATE_CACHE_DIR', () => {
  it('a file, a path through a file, a symlink loop or a place under /proc: the decision is still printed, exit 0', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const loop = join(dir, 'loop');
    symlinkSync(loop, loop);
    const want = spawnSync(process.execPath, [TOOLGATE, 'decide', 'ci-bot', 'git::git_show', '--bundle', bundle, '--no-cache'], { encoding: 'utf8', timeout: 60_000 });
    expect(want.status).toBe(0);
    for (const cache of [file, join(file, 'sub'), loop, '/proc/toolgate-cache']) {
      const r = spawnSync(process.execPath, [TOOLGATE, 'decide', 'ci-bot', 'git::git_show', '--bundle', bundle], { env: { PATH: process.env.PATH, TOOLGATE_CACHE_DIR: cache }, encoding: 'utf8', timeout: 60_000 });
      expect(r.signal, cache).toBeNull();
      expect(r.stderr, cache).toBe('');
      expect(r.status, cache).toBe(0);
      expect(r.stdout, cache).toBe(want.stdout);
    }
  }, 240_000);
});
