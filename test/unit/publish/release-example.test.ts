/**
 * examples/release: the workflow parses as GitHub Actions YAML of the expected shape (pinned
 * actions, secrets only through env, the steps the README names), and its commands (release.sh)
 * run locally against a loopback registry with a key made here.
 */
import { afterAll, beforeAll, expect, it, describe, vi } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describeWithOpa, opaPath } from '../../helpers/opa.ts';
import { REPO, TOOLGATE, describeWithRegistry, findRegistry, startRegistry, stopAll, type Registry } from '../../helpers/processes.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const DIR = join(REPO, 'examples/release');

describe('examples/release/release.yml', () => {
  const text = readFileSync(join(DIR, 'release.yml'), 'utf8');
  const wf = parse(text, { strict: true, uniqueKeys: true }) as { name: string; on: unknown; jobs: Record<string, { 'runs-on': string; steps: { name?: string; uses?: string; run?: string; env?: Record<string, string> }[] }> };
  const steps = wf.jobs.release!.steps;
  it('is a workflow with one release job whose every step is named', () => {
    expect(wf.name).toBeTypeOf('string');
    expect(wf.on).toBeTypeOf('object');
    expect(wf.jobs.release!['runs-on']).toBeTypeOf('string');
    for (const s of steps) {
      expect(s.name).toBeTypeOf('string');
      expect(Boolean(s.uses) !== Boolean(s.run), s.name).toBe(true);
    }
  });
  it('pins every action to a major version and passes secrets only through env, never into a command line', () => {
    for (const s of steps) if (s.uses) expect(s.uses).toMatch(/^[\w-]+\/[\w-]+@v\d+$/);
    for (const s of steps) if (s.run) expect(s.run).not.toMatch(/\$\{\{\s*secrets\./);
    expect(text).toMatch(/TOOLGATE_SIGNING_KEY_PEM: \$\{\{ secrets\.TOOLGATE_SIGNING_KEY_PEM \}\}/);
  });
  it('runs the release script and uploads SHA256SUMS', () => {
    expect(steps.some((s) => s.run?.includes('examples/release/release.sh'))).toBe(true);
    expect(steps.some((s) => s.uses?.startsWith('actions/upload-artifact@') && JSON.stringify(s).includes('SHA256SUMS'))).toBe(true);
    const script = readFileSync(join(DIR, 'release.sh'), 'utf8');
    for (const cmd of ['rego test', 'test "$rego"', '--strict-drift', '--signing-key', 'sha256sum -c SHA256SUMS', 'bundle verify', 'publish "$out" --oci']) expect(script).toContain(cmd);
  });
});

describeWithOpa('examples/release/release.sh, run locally', () => {
  describeWithRegistry('against a loopback registry', {}, () => {
    let root: string;
    let registry: Registry;
    beforeAll(async () => {
      root = mkdtempSync(join(tmpdir(), 'tg-release-'));
      registry = await startRegistry((findRegistry() as { path: string }).path, join(root, 'registry'));
      cpSync(join(REPO, 'examples/quickstart'), join(root, 'estate'), { recursive: true });
    }, 180_000);
    afterAll(async () => {
      await stopAll();
      rmSync(root, { recursive: true, force: true });
    });

    it('tests, compiles with strict drift, signs, verifies and publishes; the key never shows', () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      const ref = `${registry.host}/toolgate/release:policy-v1`;
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: root,
        TOOLGATE: `${process.execPath} ${TOOLGATE}`,
        OPA: opaPath(),
        REGO_DIR: join(REPO, 'rego'),
        PLAIN_HTTP: '1',
        SOURCE_DATE_EPOCH: '1767225600',
        TOOLGATE_SIGNING_KEY_PEM: key,
        TOOLGATE_VERIFICATION_KEY_PEM: publicKey.export({ type: 'spki', format: 'pem' }) as string,
      };
      const run = () => spawnSync('bash', [join(DIR, 'release.sh'), join(root, 'estate'), join(root, 'out'), ref], { cwd: root, env, encoding: 'utf8', timeout: 240_000 });
      const r = run();
      expect(r.status, r.stdout + r.stderr).toBe(0);
      const all = r.stdout + r.stderr;
      expect(all).not.toContain(key.split('\n')[1]!);
      expect(all).toMatch(/bundle\.tar\.gz: OK/);
      const published = JSON.parse(r.stdout.slice(r.stdout.lastIndexOf('{\n  "ref"'))) as { ref: string; unchanged: boolean };
      expect(published).toMatchObject({ ref, unchanged: false });
      expect(readFileSync(join(root, 'out', 'SHA256SUMS'), 'utf8')).toContain('bundle.tar.gz');
      const again = run();
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain('nothing pushed');
    }, 300_000);
  });
});
