import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parseLockOwner, withFileLock } from '../../../src/cli/file-lock.ts';
import { candidateId, readReviewReport } from '../../../src/review/tracegraph-report.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';

const VECTORS = new URL('../../vectors/toolgraph-review/', import.meta.url);
const file = (name: string) => fileURLToPath(new URL(name, VECTORS));
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
const validateSidecar = ajv.compile(JSON.parse(readFileSync(file('review-annotations.schema.json'), 'utf8')));
const REPORT = file('tracegraph-report-v1.json');
const ids = readReviewReport(REPORT, readFileSync(REPORT)).candidates.map(candidateId);
const env = { ...process.env, SOURCE_DATE_EPOCH: '1783843200' };

function tmpReport(): { dir: string; report: string; sidecar: string; lock: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tg-lock-'));
  const report = join(dir, 'candidates.json');
  copyFileSync(REPORT, report);
  const sidecar = `${report}.toolgraph-review.json`;
  return { dir, report, sidecar, lock: `${sidecar}.lock` };
}

/** A pid that ran on this host and has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

function annotate(report: string, i: number): Promise<{ code: number; ms: number; stderr: string }> {
  const start = Date.now();
  return new Promise((res) => {
    let stderr = '';
    const p = spawn(process.execPath, [TOOLGATE, 'review-candidates', 'annotate', report, ids[i % 2]!, '--status', 'accepted', '--reviewer', `r${i}`], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    p.on('exit', (c) => res({ code: c ?? 99, ms: Date.now() - start, stderr }));
  });
}

function events(sidecar: string): any[] {
  const v = JSON.parse(readFileSync(sidecar, 'utf8'));
  expect(validateSidecar(v), JSON.stringify(validateSidecar.errors)).toBe(true);
  return v.events;
}

describe('withFileLock', () => {
  it('holds an exclusively created file naming this pid and host, removed on release (also after a throw)', () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'tg-lock-')), 'x.lock');
    const seen = withFileLock(lock, () => parseLockOwner(readFileSync(lock, 'utf8')));
    expect(seen).toEqual({ pid: process.pid, host: hostname() });
    expect(existsSync(lock)).toBe(false);
    expect(() => withFileLock(lock, () => { throw new Error('inside'); })).toThrow('inside');
    expect(existsSync(lock)).toBe(false);
  });

  it('takes over a lock whose pid has gone on this host', () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'tg-lock-')), 'x.lock');
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: hostname() }));
    expect(withFileLock(lock, () => 'ran', { waitMs: 200 })).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('never takes over a live owner, another host\'s lock or an unreadable one: waits, then names it', () => {
    const lock = join(mkdtempSync(join(tmpdir(), 'tg-lock-')), 'x.lock');
    const cases: [string, RegExp][] = [
      [JSON.stringify({ pid: process.pid, host: hostname() }), new RegExp(`pid ${process.pid} on this host`)],
      [JSON.stringify({ pid: deadPid(), host: 'elsewhere.example' }), /on host elsewhere\.example/],
      ['', /an unreadable owner/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(lock, text);
      const start = Date.now();
      expect(() => withFileLock(lock, () => 'ran', { waitMs: 150 })).toThrow(expect.objectContaining({ code: 'OUTPUT_UNWRITABLE', message: expect.stringMatching(message) }));
      expect(Date.now() - start).toBeGreaterThanOrEqual(150);
      expect(readFileSync(lock, 'utf8')).toBe(text);
    }
  });

  it('parseLockOwner refuses anything but a positive integer pid and a host', () => {
    for (const t of ['', '{', '1234', '{"pid":0,"host":"h"}', '{"pid":1.5,"host":"h"}', '{"pid":3,"host":""}', 'null']) expect(parseLockOwner(t)).toBeUndefined();
  });
});

describe('review-candidates annotate across processes', () => {
  it('two annotators started at once both land, in a valid sidecar', async () => {
    const t = tmpReport();
    const runs = await Promise.all([annotate(t.report, 0), annotate(t.report, 1)]);
    expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('')).toEqual([0, 0]);
    const ev = events(t.sidecar);
    expect(ev.map((e) => e.sequence)).toEqual([1, 2]);
    expect(ev.map((e) => e.reviewer).sort()).toEqual(['r0', 'r1']);
    expect(existsSync(t.lock)).toBe(false);
  }, 60_000);

  it('an annotator waits while a live writer holds the lock, then writes', async () => {
    const t = tmpReport();
    writeFileSync(t.lock, JSON.stringify({ pid: process.pid, host: hostname() }));
    const run = annotate(t.report, 0);
    // Long enough for an annotator that ignored the lock to have written (they take ~1s here).
    await new Promise((r) => setTimeout(r, 3000));
    expect(existsSync(t.sidecar)).toBe(false);
    rmSync(t.lock);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(events(t.sidecar)).toHaveLength(1);
  }, 60_000);

  it('four annotators facing one stale lock break it once and all land', async () => {
    const t = tmpReport();
    writeFileSync(t.lock, JSON.stringify({ pid: deadPid(), host: hostname() }));
    const runs = await Promise.all([0, 1, 2, 3].map((i) => annotate(t.report, i)));
    expect(runs.map((r) => r.code), runs.map((r) => r.stderr).join('')).toEqual([0, 0, 0, 0]);
    expect(events(t.sidecar).map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    expect(existsSync(t.lock)).toBe(false);
    expect(existsSync(`${t.lock}.break`)).toBe(false);
  }, 60_000);
});
