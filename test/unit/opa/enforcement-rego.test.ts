/**
 * The enforcement Rego and the examples' sign policies under OPA's own tools: `opa test` gives the
 * same passes and failures as `toolgate rego test` (on the shipped policy and on a broken copy),
 * and `opa check --strict` / `opa fmt --list` find nothing to report.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';

const SIGN_POLICIES = ['examples/quickstart/signs.rego', 'examples/fleet/signs.rego'];

interface OpaTestResult {
  readonly name: string;
  readonly fail?: boolean;
  readonly error?: unknown;
}

/** OPA's verdict per test name, from `opa test --format json`. */
function opaTestVerdicts(dir: string): Map<string, boolean> {
  const r = runOpa(['test', '--format', 'json', dir]);
  const results = JSON.parse(r.stdout) as OpaTestResult[];
  return new Map(results.map((t) => [t.name, !t.fail && t.error === undefined]));
}

/** toolgate's verdicts: every test_* rule is a pass unless its name is printed as a failure. */
async function toolgateTestCounts(dir: string): Promise<{ passed: number; failed: number; failing: string[]; code: number }> {
  const r = await runCli(['rego', 'test', dir]);
  const last = /(\d+) passed, (\d+) failed/.exec(r.stdout);
  expect(last, r.stdout + r.stderr).not.toBeNull();
  const failing = [...(r.stdout + r.stderr).matchAll(/\b(test_[A-Za-z0-9_]+)\b/g)].map((m) => m[1]!);
  return { passed: Number(last![1]), failed: Number(last![2]), failing: [...new Set(failing)].sort(), code: r.code };
}

describeWithOpa('enforcement Rego under opa test, check and fmt', () => {
  it('opa test rego/ and toolgate rego test rego/ agree: every test passes in both', async () => {
    const opa = opaTestVerdicts('rego');
    const ours = await toolgateTestCounts('rego');
    expect(opa.size).toBeGreaterThan(0);
    expect([...opa.values()].every(Boolean)).toBe(true);
    expect(ours).toEqual({ passed: opa.size, failed: 0, failing: [], code: 0 });
  });

  it('on a broken copy of authz.rego both fail the same tests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-opa-test-'));
    cpSync('rego', dir, { recursive: true });
    const authz = join(dir, 'toolgate', 'authz.rego');
    // A sign no longer refuses a granted call: the sign tests must fail, the rest still pass.
    writeFileSync(authz, readFileSync(authz, 'utf8').replace('tool_signs.deny == true', 'tool_signs.deny == "never"'));
    const opa = opaTestVerdicts(dir);
    const opaFailing = [...opa].filter(([, ok]) => !ok).map(([n]) => n).sort();
    expect(opaFailing.length).toBeGreaterThan(0);
    const ours = await toolgateTestCounts(dir);
    expect(ours.failing).toEqual(opaFailing);
    expect(ours.passed + ours.failed).toBe(opa.size);
    expect(ours.code).toBe(1);
  });

  it('opa check --strict reports nothing on rego/ and the sign policies', () => {
    const r = runOpa(['check', '--strict', 'rego', ...SIGN_POLICIES]);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('opa fmt --list reports nothing on rego/ and the sign policies', () => {
    const r = runOpa(['fmt', '--list', 'rego', ...SIGN_POLICIES]);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });
});
