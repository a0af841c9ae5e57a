/**
 * Files the CLI reads beside the ones named on the command line: the review sidecar next to a
 * report, and the bundle.tar.gz of a folder `bundle serve` serves. They were read with plain
 * readFileSync: bytes that are not UTF-8 were replaced silently in the sidecar, and a FIFO put
 * where either goes made the command (or the server) wait forever.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';
import { runCli } from '../../helpers/cli.ts';

const REPORT = resolve(import.meta.dirname, '../../vectors/toolgraph-review/tracegraph-report-v1.json');
const ENV = { PATH: process.env.PATH ?? '/usr/bin:/bin', SOURCE_DATE_EPOCH: '1783843200' };
let dir: string;

function reportIn(name: string): { report: string; sidecar: string } {
  const d = join(dir, name);
  mkdirSync(d);
  const report = join(d, 'candidates.json');
  copyFileSync(REPORT, report);
  return { report, sidecar: `${report}.toolgraph-review.json` };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-hostile-side-'));
});

describe('the review sidecar', () => {
  it('bytes that are not UTF-8 are refused with their line and column by list and annotate, and the sidecar is left as it was', async () => {
    const { report, sidecar } = reportIn('not-utf8');
    const bytes = Buffer.from('{"schema_version": 1, "x": "\xff"}', 'latin1');
    writeFileSync(sidecar, bytes);
    const id = (await runCli(['review-candidates', 'list', report, '--annotations', join(dir, 'none.json')])).json().candidates[0].candidate_id as string;
    for (const argv of [
      ['review-candidates', 'list', report],
      ['review-candidates', 'annotate', report, id, '--status', 'accepted', '--reviewer', 'ana'],
    ]) {
      const r = await runCli(argv);
      expect(r.stderr).toBe(`toolgate: error PARSE_ERROR at ${sidecar}:1:29: not valid UTF-8: the sequence starting with byte 0xff does not decode\n`);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
    }
    expect(readFileSync(sidecar)).toEqual(bytes);
  });

  it('a FIFO is refused, not waited on', () => {
    const { report, sidecar } = reportIn('fifo');
    execFileSync('mkfifo', [sidecar]);
    for (const argv of [['review-candidates', 'list', report], ['review-candidates', 'annotate', report, '00000000-0000-5000-8000-000000000000', '--status', 'open', '--reviewer', 'ana']]) {
      const r = spawnSync(process.execPath, [TOOLGATE, ...argv], { env: ENV, encoding: 'utf8', timeout: 60_000 });
      expect(r.signal, argv[1]).toBeNull();
      expect(r.stderr).toBe(`toolgate: error FILE_UNREADABLE at ${sidecar}: ${sidecar}: not a regular file\n`);
      expect(r.status).toBe(1);
    }
  }, 120_000);
});

describe('bundle serve', () => {
  it('a FIFO where the bundle goes is refused at start, not waited on', () => {
    const d = join(dir, 'served');
    mkdirSync(d);
    const bundle = join(d, 'bundle.tar.gz');
    execFileSync('mkfifo', [bundle]);
    const r = spawnSync(process.execPath, [TOOLGATE, 'bundle', 'serve', d, '--port', '0'], { env: ENV, encoding: 'utf8', timeout: 60_000 });
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe(`toolgate: error BUNDLE_SERVE_REFUSED at ${bundle}: ${bundle}: not a regular file\n`);
    expect(r.status).toBe(1);
  }, 120_000);
});
