/**
 * Where outputs go wrong: a SIGTERM or SIGINT between the renames of a command's output files
 * (observe --out --sidecar --window-out) used to leave some files new and some old, with temp files
 * behind; an --out that is a folder failed only after a temp file was made, naming the temp file;
 * an --out under a file was an internal error for audit-report and crawl.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';
import { runCli } from '../../helpers/cli.ts';

const BASE = resolve(import.meta.dirname, '../../fixtures/malformed/base');
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SOURCE_DATE_EPOCH: '1767225600' };
const WINDOW = ['--window-start', '2026-01-01T00:00:00Z', '--window-end', '2026-01-02T00:00:00Z'];
const observeInto = (d: string) => ['observe', '--events', join(BASE, 'events.jsonl'), ...WINDOW, '--out', join(d, 'observed.json'), '--sidecar', join(d, 'weights.json'), '--window-out', join(d, 'window.json')];
const SET = ['observed.json', 'weights.json', 'window.json'];

let dir: string;
let expected: Record<string, string>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-outputs-'));
  const clean = join(dir, 'clean');
  mkdirSync(clean);
  const r = await runCli(observeInto(clean));
  expect(r.code).toBe(0);
  expected = Object.fromEntries(SET.map((f) => [f, readFileSync(join(clean, f), 'utf8')]));
});

/** Runs observe until it pauses after its first rename, sends `signal`, and waits for the end. */
function signalledMidWrite(d: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [TOOLGATE, ...observeInto(d)], { env: { ...ENV, TOOLGATE_TEST_PAUSE_AT: 'write-files:renamed-one' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let sent = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t: string) => {
      stderr += t;
      if (!sent && stderr.includes('toolgate: test pause at write-files:renamed-one (pid ')) {
        sent = true;
        child.kill(signal);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, sig) => (sent ? done({ code, signal: sig, stderr }) : reject(new Error(`never paused (exit ${code} ${sig}): ${stderr}`))));
  });
}

describe('a signal in the middle of writing a set of outputs', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: the whole new set is in place, no temp file is left, then the signal ends the process', async (signal) => {
    const d = join(dir, signal);
    mkdirSync(d);
    for (const f of SET) writeFileSync(join(d, f), 'old\n');
    const r = await signalledMidWrite(d, signal);
    expect(r.signal).toBe(signal);
    expect(readdirSync(d).sort()).toEqual(SET);
    for (const f of SET) expect(readFileSync(join(d, f), 'utf8'), f).toBe(expected[f]);
  }, 60_000);
});

describe('two outputs of one run in one place', () => {
  it('observe --out F --sidecar F is bad usage and writes nothing (the sidecar silently replaced the graph)', async () => {
    const d = mkdtempSync(join(dir, 'same-'));
    const f = join(d, 'same.json');
    const r = await runCli(['observe', '--events', join(BASE, 'events.jsonl'), ...WINDOW, '--out', f, '--sidecar', f]);
    expect(r.stderr).toBe(`toolgate: error USAGE at ${f}: ${f} is named for two outputs of this run; give each output its own file\n`);
    expect(r.code).toBe(2);
    expect(readdirSync(d)).toEqual([]);
  });
});

describe('an --out that is a device or a FIFO', () => {
  const diffTo = (o: string) => ['diff', '--declared', join(BASE, 'declared.json'), '--observed', join(BASE, 'observed.json'), '--window', join(BASE, 'window.json'), '--out', o];

  it('a FIFO with a reader gets the bytes and stays a FIFO; one nobody reads is refused, not waited on (it was replaced by a regular file)', async () => {
    const d = mkdtempSync(join(dir, 'fifo-'));
    const fifo = join(d, 'out.fifo');
    execFileSync('mkfifo', [fifo]);
    const unread = spawnSync(process.execPath, [TOOLGATE, ...diffTo(fifo)], { env: ENV, encoding: 'utf8', timeout: 60_000 });
    expect(unread.signal).toBeNull();
    expect(unread.stderr).toBe(`toolgate: error OUTPUT_UNWRITABLE at ${fifo}: cannot write output: ${fifo} is a FIFO no process is reading\n`);
    expect(unread.status).toBe(1);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let got = '';
    reader.stdout.setEncoding('utf8').on('data', (t: string) => (got += t));
    const closed = new Promise((res) => reader.on('close', res));
    await new Promise((res) => setTimeout(res, 300));
    const r = spawnSync(process.execPath, [TOOLGATE, ...diffTo(fifo)], { env: ENV, encoding: 'utf8', timeout: 60_000 });
    await closed;
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(got).schema_version).toBeTypeOf('number');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(d)).toEqual(['out.fifo']);
  }, 120_000);

  it.skipIf(process.getuid?.() !== 0)('a character device (a null device made with mknod, and a link to it) is written into, never replaced', async () => {
    const d = mkdtempSync(join(dir, 'dev-'));
    const dev = join(d, 'null');
    execFileSync('mknod', [dev, 'c', '1', '3']);
    symlinkSync('null', join(d, 'link'));
    for (const o of [dev, join(d, 'link')]) {
      const r = await runCli(diffTo(o));
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }
    expect(lstatSync(dev).isCharacterDevice()).toBe(true);
    expect(lstatSync(join(d, 'link')).isSymbolicLink()).toBe(true);
    expect(readdirSync(d).sort()).toEqual(['link', 'null']);
  });
});

describe('an --out the CLI cannot write', () => {
  const singleFile: [string, (out: string) => string[]][] = [
    ['diff', (o) => ['diff', '--declared', join(BASE, 'declared.json'), '--observed', join(BASE, 'observed.json'), '--window', join(BASE, 'window.json'), '--out', o]],
    ['observe', (o) => ['observe', '--events', join(BASE, 'events.jsonl'), ...WINDOW, '--out', o]],
    ['graph build', (o) => ['graph', 'build', '--catalog', join(BASE, 'catalog.json'), '--out', o]],
  ];

  it.each(singleFile)('%s --out FOLDER: refused naming the folder, and no temp file is made beside it', async (_name, argv) => {
    const parent = mkdtempSync(join(dir, 'folder-'));
    const target = join(parent, 'target');
    mkdirSync(target);
    const r = await runCli(argv(target));
    expect(r.stderr).toBe(`toolgate: error OUTPUT_UNWRITABLE at ${target}: cannot write output: ${target} is a folder\n`);
    expect(r.code).toBe(1);
    expect(readdirSync(parent)).toEqual(['target']);
    expect(readdirSync(target)).toEqual([]);
  });

  it.each(singleFile)('%s --out NAME of 250 bytes, which the filesystem takes: written (its temp name was too long)', async (_name, argv) => {
    const parent = mkdtempSync(join(dir, 'long-'));
    const name = `${'n'.repeat(245)}.json`;
    const r = await runCli(argv(join(parent, name)));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(parent)).toEqual([name]);
  });

  it.each(singleFile)('%s --out under /proc: the message names the output, not a temp file', async (_name, argv) => {
    const r = await runCli(argv('/proc/toolgate-out.json'));
    expect(r.stderr).toBe('toolgate: error OUTPUT_UNWRITABLE at /proc/toolgate-out.json: cannot write output: /proc/toolgate-out.json: ENOENT\n');
    expect(r.code).toBe(1);
  });

  it.each([
    ['audit-report', (o: string) => ['audit-report', '--example', 'quickstart', '--out', o]],
    ['crawl', (o: string) => ['crawl', '--servers', join(BASE, 'servers.yaml'), '--out', o]],
  ])('%s --out under a file: OUTPUT_UNWRITABLE, not an internal error', async (_name, argv) => {
    const f = join(dir, 'plain-file');
    writeFileSync(f, 'mine\n');
    const r = await runCli(argv(join(f, 'out.json')));
    expect(r.stderr).toBe(`toolgate: error OUTPUT_UNWRITABLE at ${join(f, 'out.json')}: cannot write output: ${join(f, 'out.json')}: a folder above it is a file\n`);
    expect(r.code).toBe(1);
    expect(readFileSync(f, 'utf8')).toBe('mine\n');
  });
});
