/**
 * The quickstart's bundle.tar.gz has one digest on every platform, checked by coreutils'
 * `sha256sum --check` (not by our own digest code) against a checked-in SHA256SUMS line.
 *
 * An intended change to the enforcement Rego, the data document or the archive layout changes the
 * digest: compile the quickstart as below and write the new line into the fixture.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../helpers/cli.ts';

const GOLDEN = fileURLToPath(new URL('../../fixtures/golden/quickstart-bundle.tar.gz.sha256', import.meta.url));
const sha256sum = spawnSync('sha256sum', ['--version']).status === 0;

describe('the quickstart bundle.tar.gz', () => {
  it.skipIf(!sha256sum && !process.env.CI)('matches the golden digest under sha256sum --check (skips outside CI when coreutils sha256sum is absent)', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'toolgate-golden-')), 'out');
    const r = await runCli(['compile', '--example', 'quickstart', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
    expect(r.code, r.stderr).toBe(0);
    const check = spawnSync('sha256sum', ['--check', '--strict', GOLDEN], { cwd: out, encoding: 'utf8' });
    expect(check.error).toBeUndefined();
    const why = 'bundle.tar.gz differs from the golden digest: if the change to the Rego, the data document or the archive is intended, put the new `sha256sum bundle.tar.gz` line of this compile into test/fixtures/golden/quickstart-bundle.tar.gz.sha256';
    expect(check.stdout + check.stderr, why).toContain('bundle.tar.gz: OK');
    expect(check.status).toBe(0);
  });
});
