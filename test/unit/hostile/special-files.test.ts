/**
 * Paths that are not regular files where the CLI expects one: a FIFO (whose open waits for a
 * writer), a character device that never ends (/dev/zero), a symlink loop, a folder. Each must be
 * refused with FILE_UNREADABLE naming the path, exit 1, promptly, with nothing written. The FIFO
 * and device cases run the real CLI as a child process with a deadline, so a regression shows as a
 * failed run instead of a test worker blocked in a read forever.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';
import { runCli } from '../../helpers/cli.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const Q = join(ROOT, 'examples/quickstart');
const BASE = join(ROOT, 'test/fixtures/malformed/base');
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SOURCE_DATE_EPOCH: '1767225600' };

let dir: string;
let fifo: string;
let out: string;

/** Every command that reads a file the user names, with `f` in that place and its output under `out`. */
const READERS: Record<string, (f: string) => string[]> = {
  'compile --manifest': (f) => ['compile', '--manifest', f, '--catalog', join(Q, 'catalog.json'), '--out', join(out, 'set')],
  'compile --signs': (f) => ['compile', '--example', 'quickstart', '--signs', f, '--out', join(out, 'set')],
  'compile --delta-from': (f) => ['compile', '--example', 'quickstart', '--delta-from', f, '--out', join(out, 'set')],
  'diff --declared': (f) => ['diff', '--declared', f, '--observed', join(BASE, 'observed.json'), '--window', join(BASE, 'window.json'), '--out', join(out, 'd.json')],
  'graph export --graph': (f) => ['graph', 'export', '--graph', f, '--format', 'dot', '--out', join(out, 'e.dot')],
  verify: (f) => ['verify', f, '--digest', '00'],
  'decide --bundle': (f) => ['decide', 'bot', 'git::show', '--bundle', f, '--no-cache'],
  'bundle inspect': (f) => ['bundle', 'inspect', f],
  'bundle verify': (f) => ['bundle', 'verify', f, '--verification-key', join(Q, 'catalog.json')],
  'sign --policy': (f) => ['sign', '--graph', join(BASE, 'declared.json'), '--policy', f, '--data', join(BASE, 'window.json'), '--out', join(out, 's.json')],
  'rego eval -d': (f) => ['rego', 'eval', '-d', f, 'data'],
  'rego test': (f) => ['rego', 'test', f],
  'rego conformance': (f) => ['rego', 'conformance', f],
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-special-'));
  fifo = join(dir, 'input.fifo');
  execFileSync('mkfifo', [fifo]);
  out = join(dir, 'out');
  mkdirSync(out);
});

function spawnCli(argv: string[]) {
  return spawnSync(process.execPath, [TOOLGATE, ...argv], { env: ENV, cwd: dir, encoding: 'utf8', timeout: 60_000 });
}

describe('a FIFO or a device where a file is expected', () => {
  it.each(Object.keys(READERS))('%s: FILE_UNREADABLE, exit 1, never a wait', (name) => {
    for (const f of [fifo, '/dev/zero']) {
      const r = spawnCli(READERS[name]!(f));
      expect(r.signal, `${name} ${f} did not finish`).toBeNull();
      expect(r.stderr.split('\n')[0]).toBe(`toolgate: error FILE_UNREADABLE at ${f}: ${f}: not a regular file${name.startsWith('rego') ? ' or folder' : ''}`);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(readdirSync(out)).toEqual([]);
    }
  }, 240_000);
});

describe('folders and links the rego loader walks', () => {
  it('refuses a symlink loop inside a -d folder, naming it, instead of walking it until the path is too long', async () => {
    const d = join(dir, 'looped');
    mkdirSync(d);
    writeFileSync(join(d, 'p.rego'), 'package p\nx := 1\n');
    symlinkSync('.', join(d, 'again'));
    const r = await runCli(['rego', 'eval', '-d', d, 'data.p.x']);
    expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(d, 'again')}: ${join(d, 'again')}: a symlink loop (this folder is one of its own parents)\n`);
    expect(r.code).toBe(1);
  });

  it('refuses a link that loops on itself inside a folder, and one named on the command line, with ELOOP', async () => {
    const d = join(dir, 'self');
    mkdirSync(d);
    symlinkSync('me', join(d, 'me'));
    const r = await runCli(['rego', 'test', d]);
    expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(d, 'me')}: ${join(d, 'me')}: cannot read: ELOOP\n`);
    expect(r.code).toBe(1);
    const named = await runCli(['rego', 'eval', '-d', join(d, 'me'), 'data']);
    expect(named.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(d, 'me')}: ${join(d, 'me')}: cannot read: ELOOP\n`);
  });

  it('rego conformance walks a corpus folder the same way: a link looping on itself, a symlink loop and a missing path are FILE_UNREADABLE, not internal errors', async () => {
    const d = join(dir, 'corpus-self');
    mkdirSync(d);
    writeFileSync(join(d, 'a.yaml'), 'cases: []\n');
    symlinkSync('me', join(d, 'me'));
    const r = await runCli(['rego', 'conformance', d]);
    expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(d, 'me')}: ${join(d, 'me')}: cannot read: ELOOP\n`);
    expect([r.code, r.stdout]).toEqual([1, '']);
    const looped = join(dir, 'corpus-loop');
    mkdirSync(looped);
    symlinkSync('.', join(looped, 'again'));
    const l = await runCli(['rego', 'conformance', looped]);
    expect(l.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(looped, 'again')}: ${join(looped, 'again')}: a symlink loop (this folder is one of its own parents)\n`);
    expect(l.code).toBe(1);
    const missing = await runCli(['rego', 'conformance', join(dir, 'no-such-corpus')]);
    expect(missing.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${join(dir, 'no-such-corpus')}: ${join(dir, 'no-such-corpus')}: no such file or folder\n`);
    expect(missing.code).toBe(1);
  });

  it('compile --delta-from a symlink loop is refused, not taken for a first run with no previous bundle', async () => {
    const loop = join(dir, 'delta-loop');
    symlinkSync(loop, loop);
    const r = await runCli(['compile', '--example', 'quickstart', '--delta-from', loop, '--out', join(out, 'set')]);
    expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${loop}: ${loop}: cannot read: ELOOP\n`);
    expect(r.code).toBe(1);
    expect(readdirSync(out)).toEqual([]);
  });
});
