/**
 * The output-folder commit protocol under SIGKILL: the real CLI is paused at every step of the
 * protocol (TOOLGATE_TEST_PAUSE_AT) and killed there; `sha256sum -c SHA256SUMS` must pass in --out
 * with the whole old or the whole new set, and the next run must leave nothing behind.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;
const BIN = TOOLGATE;
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SOURCE_DATE_EPOCH: '1767225600' };
const FILES = ['policy-bundle.json', 'data.json', 'bundle.tar.gz', 'connectome.json', 'connectome.digest.json', 'connectome.dot', 'connectome.graphml', 'SHA256SUMS'];

const args = (out: string, profile: string) => [BIN, 'compile', '--example', 'quickstart', '--profile', profile, '--out', out];

function compileSync(out: string, profile: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, args(out, profile), { env: ENV, encoding: 'utf8', cwd: ROOT });
  return { status: r.status, stderr: r.stderr };
}

/** Runs the CLI until it prints the pause marker for `step`, then kills it with SIGKILL. */
function compileKilledAt(out: string, profile: string, step: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args(out, profile), { env: { ...ENV, TOOLGATE_TEST_PAUSE_AT: step }, cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    let paused = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (t: string) => {
      stderr += t;
      if (!paused && stderr.includes(`toolgate: test pause at ${step} (pid `)) {
        paused = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => (paused && signal === 'SIGKILL' ? resolve() : reject(new Error(`step ${step} never reached (exit ${code} ${signal}): ${stderr}`))));
  });
}

const sums = (out: string): string => readFileSync(join(out, 'SHA256SUMS'), 'utf8');

/**
 * `sha256sum -c` in --out, then which set it holds: the old set is strict and the new one review
 * (the profile, not the bytes, tells them apart, so the test holds while the Rego shipped changes).
 */
function checkedSet(out: string): 'strict' | 'review' {
  execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out, encoding: 'utf8' });
  expect(readdirSync(out).sort()).toEqual([...FILES].sort());
  return JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')).toolgate.profile;
}

let LEGACY: string;

beforeAll(() => {
  const base = mkdtempSync(join(tmpdir(), 'toolgate-kill-'));
  expect(compileSync(join(base, 'old'), 'strict').status).toBe(0);
  LEGACY = join(base, 'old');
}, 240_000);

/** After the next, unpaused run: --out is a link to the one generation beside it, nothing else. */
function expectClean(parent: string, out: string): void {
  expect(lstatSync(out).isSymbolicLink()).toBe(true);
  expect(readdirSync(parent).sort()).toEqual([readlinkSync(out), 'out'].sort());
  for (const f of readdirSync(out)) expect(statSync(join(out, f)).mode & 0o777, f).toBe(0o600);
}

describe('compile under SIGKILL', () => {
  describe('when --out already holds a set written by this protocol', () => {
    const steps: [string, 'old' | 'new'][] = [
      ['recovered', 'old'],
      ['generation-created', 'old'],
      ...FILES.map((f): [string, 'old'] => [`wrote:${f}`, 'old']),
      ['generation-synced', 'old'],
      ['link-created', 'old'],
      ['swapped', 'new'],
      ['done', 'new'],
    ];
    it.concurrent.each(steps)('a kill at %s leaves the whole %s set, and the next run cleans up', async (step, want) => {
      const parent = mkdtempSync(join(tmpdir(), 'toolgate-kill-'));
      const out = join(parent, 'out');
      expect(compileSync(out, 'strict').status).toBe(0);
      const old = sums(out);
      await compileKilledAt(out, 'review', step);
      expect(checkedSet(out)).toBe(want === 'old' ? 'strict' : 'review');
      if (want === 'old') expect(sums(out)).toBe(old);
      const next = compileSync(out, 'review');
      expect(next.status, next.stderr).toBe(0);
      expect(checkedSet(out)).toBe('review');
      expectClean(parent, out);
    }, 240_000);
  });

  describe('when --out is a real folder holding a set an earlier toolgate wrote in place', () => {
    const steps: [string, 'old' | 'new' | 'missing'][] = [
      ['recovered', 'old'],
      ['wrote:data.json', 'old'],
      ['generation-synced', 'old'],
      ['journal-written', 'old'],
      // The one documented window: the real folder is moved aside and the link not yet in place.
      ['folder-moved-aside', 'missing'],
      ['link-created', 'missing'],
      ['swapped', 'new'],
    ];
    it.concurrent.each(steps)('a kill at %s leaves %s, and the next run restores and cleans up', async (step, want) => {
      const parent = mkdtempSync(join(tmpdir(), 'toolgate-kill-'));
      const out = join(parent, 'out');
      mkdirSync(out);
      cpSync(LEGACY, out, { recursive: true, dereference: true });
      expect(lstatSync(out).isDirectory()).toBe(true);
      const old = sums(out);
      await compileKilledAt(out, 'review', step);
      if (want === 'missing') {
        expect(existsSync(out)).toBe(false);
        expect(existsSync(join(parent, '.out.tg-migrate'))).toBe(true);
      } else {
        expect(checkedSet(out)).toBe(want === 'old' ? 'strict' : 'review');
        if (want === 'old') expect(sums(out)).toBe(old);
      }
      // Any compile into that --out first finishes the swap, then commits its own set.
      const next = compileSync(out, 'strict');
      expect(next.status, next.stderr).toBe(0);
      expect(checkedSet(out)).toBe('strict');
      expectClean(parent, out);
    }, 240_000);
  });

  it('refuses a real folder holding files it did not write, and moves nothing', () => {
    const parent = mkdtempSync(join(tmpdir(), 'toolgate-kill-'));
    const out = join(parent, 'out');
    mkdirSync(out);
    cpSync(join(ROOT, 'README.md'), join(out, 'notes.md'));
    const r = compileSync(out, 'strict');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('OUTPUT_NOT_ARTIFACT');
    expect(r.stderr).toContain('notes.md');
    expect(readdirSync(out)).toEqual(['notes.md']);
    expect(readdirSync(parent)).toEqual(['out']);
  }, 240_000);

  it('refuses to replace a generation someone wrote other files into through the link', () => {
    const parent = mkdtempSync(join(tmpdir(), 'toolgate-kill-'));
    const out = join(parent, 'out');
    expect(compileSync(out, 'strict').status).toBe(0);
    cpSync(join(ROOT, 'README.md'), join(out, 'report.md'));
    const r = compileSync(out, 'review');
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('report.md');
    expect(readdirSync(out)).toContain('report.md');
    execFileSync('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], { cwd: out });
    expect(JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')).toolgate.profile).toBe('strict');
  }, 240_000);

  it('fails at once with OUTPUT_UNWRITABLE (exit 1) for --out /proc/x instead of hanging', () => {
    const r = spawnSync(process.execPath, args('/proc/toolgate-x', 'strict'), { env: ENV, encoding: 'utf8', cwd: ROOT, timeout: 30_000 });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^toolgate: error OUTPUT_UNWRITABLE: cannot write output: .*\/proc\/toolgate-x/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 240_000);
});
