import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.ts';
import type { CliIo } from '../../../src/cli/command.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-rego-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = { stdout: (t) => (out += t), stderr: (t) => (err += t), cwd: dir, env: {}, stdin: async () => '' };
  const code = await main(argv, io);
  return { code, out, err };
}

mkdirSync(join(dir, 'pol'));
writeFileSync(join(dir, 'pol', 'authz.rego'), 'package authz\ndefault allow := false\nallow if data.grants[input.agent][input.tool]\n');
writeFileSync(
  join(dir, 'pol', 'authz_test.rego'),
  'package authz\ntest_allow if allow with input as {"agent": "a", "tool": "t"} with data.grants as {"a": {"t": true}}\ntest_deny if not allow with input as {"agent": "b", "tool": "t"}\n',
);
writeFileSync(join(dir, 'input.json'), '{"agent": "a", "tool": "t"}');
writeFileSync(join(dir, 'data.json'), '{"grants": {"a": {"t": true}}}');
mkdirSync(join(dir, 'bad'));
writeFileSync(join(dir, 'bad', 'x_test.rego'), 'package x\ntest_fails if 1 == 2\ntest_ok if true\n');
mkdirSync(join(dir, 'corpus'));
writeFileSync(
  join(dir, 'corpus', 'cases.yaml'),
  `cases:
  - note: ok
    query: data.p.x = x
    modules: ["package p\\nx := 1 + 1"]
    want_result: [{x: 2}]
  - note: wrong
    query: data.p.x = x
    modules: ["package p\\nx := 1"]
    want_result: [{x: 2}]
  - note: error expected
    query: data.p.x = x
    modules: ["package p\\nx := 1 / 0"]
    strict_error: true
    want_error_code: eval_builtin_error
`,
);
// An error case passes only on the error it names: a different code, or a text the message lacks, fails.
writeFileSync(
  join(dir, 'corpus', 'errors.yaml'),
  `cases:
  - note: wrong code
    query: data.p.x = x
    modules: ["package p\\nx := 1 / 0"]
    strict_error: true
    want_error_code: eval_type_error
  - note: wrong text
    query: data.p.x = x
    modules: ["package p\\nx := 1 / 0"]
    strict_error: true
    want_error_code: eval_builtin_error
    want_error: "not what OPA says"
  - note: right code and text
    query: data.p.x = x
    modules: ["package p\\nx := 1 / 0"]
    strict_error: true
    want_error_code: eval_builtin_error
    want_error: "div: divide by zero"
  - note: nothing expected
    query: data.p.x = x
    modules: ["package p\\nx := 1"]
`,
);

describe('toolgate rego eval', () => {
  it('prints OPA-shaped results', async () => {
    const r = await cli(['rego', 'eval', '-d', 'pol/authz.rego', '-i', 'input.json', '--data', 'data.json', 'data.authz.allow']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ result: [{ expressions: [{ value: true, text: 'data.authz.allow', location: { row: 1, col: 1 } }] }] });
    // Each expression's text and start, as opa eval prints them; a term under `with` keeps its value.
    const w = await cli(['rego', 'eval', '-d', 'pol/authz.rego', '--data', 'data.json', 'x := 1;  data.authz.allow with input as {"agent": "a", "tool": "t"}\n  not false']);
    expect(JSON.parse(w.out).result[0].expressions.map((e: { text: string; location: unknown }) => [e.text, e.location])).toEqual([
      ['x := 1', { row: 1, col: 1 }],
      ['data.authz.allow with input as {"agent": "a", "tool": "t"}', { row: 1, col: 10 }],
      ['not false', { row: 2, col: 3 }],
    ]);
    const value = async (q: string) => JSON.parse((await cli(['rego', 'eval', '-d', 'pol/authz.rego', '--data', 'data.json', q])).out).result[0].expressions[0].value;
    expect(await value('[input.n, 2] with input as {"n": 1}')).toEqual([1, 2]);
    const b = await cli(['rego', 'eval', 'x := [1, 2][_]']);
    expect(JSON.parse(b.out).result.map((x: { bindings: { x: number } }) => x.bindings.x)).toEqual([1, 2]);
  });

  it('prints {} when undefined and refuses bad Rego with a located error', async () => {
    expect((await cli(['rego', 'eval', '1 == 2'])).out).toBe('{}\n');
    writeFileSync(join(dir, 'broken.rego'), 'package b\np := [1,\n');
    const r = await cli(['rego', 'eval', '-d', 'broken.rego', 'data.b.p']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/REGO_PARSE_ERROR at .*broken\.rego:3/);
  });
});

describe('toolgate rego eval edge inputs', () => {
  it('keeps integers beyond 2^53 exact and refuses absurdly nested source cleanly', async () => {
    writeFileSync(join(dir, 'big.json'), '{"n": 123456789012345678901234}');
    const r = await cli(['rego', 'eval', '--data', 'big.json', 'x := data.n + 1']);
    expect(r.out).toContain('"x":123456789012345678901235');
    writeFileSync(join(dir, 'deep.rego'), `package p\nx := ${'['.repeat(50000)}${']'.repeat(50000)}\n`);
    const d = await cli(['rego', 'eval', '-d', 'deep.rego', 'data.p.x']);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/REGO_PARSE_ERROR/);
  });
});

describe('toolgate rego test', () => {
  it('runs test_ rules and prints the summary line', async () => {
    const ok = await cli(['rego', 'test', 'pol']);
    expect(ok.code).toBe(0);
    expect(ok.out.trim().split('\n').pop()).toBe('2 passed, 0 failed');
    const bad = await cli(['rego', 'test', 'bad']);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/FAIL x\.test_fails/);
    expect(bad.out.trim().split('\n').pop()).toBe('1 passed, 1 failed');
  });
});

describe('toolgate rego conformance', () => {
  it('reports failing cases and counts', async () => {
    const r = await cli(['rego', 'conformance', 'corpus/cases.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL .*cases\.yaml: wrong\n {2}want: \[\{"x":2\}\]\n {2}got: {2}\[\{"x":1\}\]/);
    expect(r.out.trim().split('\n').pop()).toBe('2 passed, 1 failed, 0 skipped, 0 unchecked');
  });

  it('passes an error case only on its code and text, and counts a case without expectation as unchecked', async () => {
    const r = await cli(['rego', 'conformance', 'corpus/errors.yaml']);
    expect(r.code).toBe(1);
    expect(r.out).toContain('FAIL corpus/errors.yaml: wrong code\n  want: error eval_type_error\n  got:  error eval_builtin_error: test-0.rego:2: eval_builtin_error: div: divide by zero');
    expect(r.out).toMatch(/FAIL .*: wrong text\n {2}want: error eval_builtin_error containing "not what OPA says"/);
    expect(r.out).toMatch(/UNCHECKED .*: nothing expected: /);
    expect(r.out.trim().split('\n').pop()).toBe('1 passed, 2 failed, 0 skipped, 1 unchecked');
  });

  it('prints per-case results as JSON with --format json', async () => {
    const r = await cli(['rego', 'conformance', 'corpus', '--format', 'json']);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { cases: { file: string; note: string; status: string; want?: string; got?: string }[]; passed: number; failed: number; unchecked: number };
    expect(doc.cases.map((c) => `${c.file}#${c.note}=${c.status}`)).toEqual([
      'cases.yaml#ok=pass',
      'cases.yaml#wrong=fail',
      'cases.yaml#error expected=pass',
      'errors.yaml#wrong code=fail',
      'errors.yaml#wrong text=fail',
      'errors.yaml#right code and text=pass',
      'errors.yaml#nothing expected=unchecked',
    ]);
    expect(doc.cases[1]).toMatchObject({ want: '[{"x":2}]', got: '[{"x":1}]' });
    expect({ passed: doc.passed, failed: doc.failed, unchecked: doc.unchecked }).toEqual({ passed: 3, failed: 3, unchecked: 1 });
  });
});
