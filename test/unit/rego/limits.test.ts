/**
 * Untrusted Rego stops: one policy per kind of runaway, run through the real `sign`, `compile --signs`
 * and `decide` paths, each refused with REGO_LIMIT_EXCEEDED naming the policy, the rule and the limit,
 * within the deadline plus 1 s, and writing nothing. Also the library API's limits object and the
 * builtins that charge their own work.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { runCli } from '../../helpers/cli.ts';
import { TOOLGATE } from '../../helpers/toolgate-bin.ts';
import { describeWithOpa, runOpa } from '../../helpers/opa.ts';
import { compileModules, toJSON } from '../../../src/rego/index.ts';
import { RegoLimitError } from '../../../src/rego/limits.ts';
import { globMatch } from '../../../src/rego/builtins/lib/glob.ts';

const env = { SOURCE_DATE_EPOCH: '0' };
let dir: string;

const PKG = 'package toolgate.signs\n\n';

/** Each kind of runaway as a sign policy (`sign` is the rule that runs away). */
const RUNAWAYS: Record<string, { rego: string; limit: RegExp }> = {
  'nested numbers.range comprehensions': {
    rego: `${PKG}sign := "allow" if {\n  count([1 | some i in numbers.range(1, 100000); some j in numbers.range(1, 100000)]) > 0\n}\n`,
    limit: /deadline of \d+ ms|step budget/,
  },
  'numbers.range built again and again': {
    rego: `${PKG}sign := "allow" if {\n  count([n | some i in numbers.range(1, 100000); n := count(numbers.range(1, 5000000))]) > 0\n}\n`,
    limit: /output budget|deadline of|step budget/,
  },
  'deep walk': {
    rego: `${PKG}sign := "allow" if {\n  count([1 | some i in numbers.range(1, 100000); walk(data.deep, [p, _])]) > 0\n}\n`,
    limit: /output budget|deadline of|step budget/,
  },
  'exponential string growth': {
    rego: `${PKG}${Array.from({ length: 40 }, (_, i) => `s${i + 1} := concat("", [s${i}, s${i}])`).join('\n')}\ns0 := "ab"\nsign := "allow" if count(s40) > 0\n`,
    limit: /output budget/,
  },
  'quadratic replace growth': {
    rego: `${PKG}r0 := "aaaaaaaaaaaaaaaa"\n${Array.from({ length: 8 }, (_, i) => `r${i + 1} := replace(r${i}, "a", r${i})`).join('\n')}\nsign := "allow" if count(r8) > 0\n`,
    limit: /output budget/,
  },
  'catastrophic regex': {
    rego: `${PKG}big := concat("", [x | some _ in numbers.range(1, 200000); x := "a"])\nsign := "allow" if {\n  count([1 | some i in numbers.range(1, 100000); regex.match("^(a+)+(a|aa)*(b|c|d)$", big)]) > 0\n}\n`,
    limit: /step budget|deadline of/,
  },
  'catastrophic glob': {
    rego: `${PKG}big := concat("", [x | some _ in numbers.range(1, 200000); x := "a"])\nsign := "allow" if {\n  count([1 | some i in numbers.range(1, 100000); glob.match("*a*a*a*a*a*a*a*a*a*a*b", [], big)]) > 0\n}\n`,
    limit: /step budget|deadline of/,
  },
  'sprintf with huge widths': {
    rego: `${PKG}sign := "allow" if {\n  f := concat("", ["%09999999d" | some _ in numbers.range(1, 20)])\n  count(sprintf(f, [1 | some _ in numbers.range(1, 20)])) > 0\n}\n`,
    limit: /output budget/,
  },
};

const DEADLINE = 1500;

function deepData(n: number): string {
  const t = readFileSync(join(dir, 'base/data.json'), 'utf8').trimEnd();
  return `${t.slice(0, -1)},"deep":${'['.repeat(n)}1${']'.repeat(n)}}`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'toolgate-limits-'));
  const r = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'base')], { env });
  expect(r.code, r.stderr).toBe(0);
  // as deep as the strict JSON reader takes a data file (128 levels, the document's own included)
  writeFileSync(join(dir, 'deep.json'), deepData(120));
}, 120_000);

function expectRefused(r: { code: number; stderr: string }, policy: string, limit: RegExp): void {
  expect(r.code, r.stderr).not.toBe(0);
  expect(r.stderr).toContain('REGO_LIMIT_EXCEEDED');
  expect(r.stderr).toContain(policy);
  expect(r.stderr).toMatch(/evaluating data\.toolgate\.(signs\.sign|signs\.\w+|authz\.\w+)/);
  expect(r.stderr).toMatch(limit);
}

describe('sign: every kind of runaway is refused within the deadline plus 1 s, writing nothing', () => {
  for (const [kind, { rego, limit }] of Object.entries(RUNAWAYS)) {
    it(kind, async () => {
      const policy = join(dir, `${kind.replace(/\W+/g, '-')}.rego`);
      writeFileSync(policy, rego);
      const out = join(dir, `${kind.replace(/\W+/g, '-')}.json`);
      const t0 = Date.now();
      const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', policy, '--data', join(dir, 'deep.json'), '--out', out, '--deadline-ms', String(DEADLINE)]);
      const took = Date.now() - t0;
      expectRefused(r, policy, limit);
      expect(took).toBeLessThan(DEADLINE + 1000);
      expect(existsSync(out)).toBe(false);
    }, 30_000);
  }

  it('the default deadline applies without --deadline-ms (5 s), and --max-steps overrides the step budget', async () => {
    const policy = join(dir, 'default.rego');
    // evaluator work only: the range is built once and the loop keeps nothing, so no byte budget
    // fills and the deadline is what stops it
    writeFileSync(policy, `${PKG}xs := numbers.range(1, 100000)\n\nsign := "allow" if {\n  some i in xs\n  some j in xs\n  i + j < 0\n}\n`);
    const out = join(dir, 'default.json');
    const t0 = Date.now();
    const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', policy, '--data', join(dir, 'base/data.json'), '--out', out, '--max-steps', '100000000000']);
    const took = Date.now() - t0;
    expectRefused(r, policy, /deadline of 5000 ms/);
    expect(took).toBeLessThan(6000);
    expect(existsSync(out)).toBe(false);
    const steps = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', policy, '--data', join(dir, 'base/data.json'), '--out', out, '--max-steps', '1000']);
    expectRefused(steps, policy, /step budget of 1000 steps/);
  }, 30_000);

  it('an ordinary policy signs as before under the default limits', async () => {
    const out = join(dir, 'quickstart-signed.json');
    const r = await runCli(['sign', '--graph', join(dir, 'base/connectome.json'), '--policy', 'examples/quickstart/signs.rego', '--data', join(dir, 'base/data.json'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
  }, 30_000);

  it('the usage documents the limits', async () => {
    for (const cmd of ['sign', 'decide']) {
      const r = await runCli([cmd, '--help']);
      expect(r.stdout + r.stderr).toMatch(/--deadline-ms N[\s\S]*default 5000[\s\S]*--max-steps N/);
    }
  });
});

describe('compile --signs: a runaway sign policy is refused and no artifact is written', () => {
  it('exponential string growth', async () => {
    const policy = join(dir, 'compile-runaway.rego');
    writeFileSync(policy, RUNAWAYS['nested numbers.range comprehensions']!.rego);
    const out = join(dir, 'compile-out');
    const t0 = Date.now();
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', policy, '--out', out, '--deadline-ms', String(DEADLINE)], { env });
    const took = Date.now() - t0;
    expectRefused(r, policy, /deadline of 1500 ms/);
    // compiling the estate itself takes its own time; the sign evaluation is bounded by the deadline
    expect(took).toBeLessThan(DEADLINE + 1000 + 10_000);
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});

async function tarGz(files: Record<string, string>): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve());
  });
  for (const [name, text] of Object.entries(files)) {
    const body = Buffer.from(text);
    p.entry({ name, type: 'file', size: body.length, mode: 0o644, mtime: new Date(0) }, body);
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

describe('decide: a bundle whose decision runs away', () => {
  it('is refused naming the bundle, the rule and the limit, in-process and as a spawned CLI', async () => {
    const rego = 'package toolgate.authz\n\ndecision := {"allow": true} if {\n  count([1 | some i in numbers.range(1, 100000); some j in numbers.range(1, 100000)]) > 0\n}\n';
    const bundle = join(dir, 'runaway.tar.gz');
    writeFileSync(bundle, await tarGz({ '.manifest': '{"revision":"r1","roots":["toolgate"]}', 'toolgate/authz.rego': rego }));
    const t0 = Date.now();
    const r = await runCli(['decide', 'a', 'b', '--bundle', bundle, '--deadline-ms', String(DEADLINE)]);
    const took = Date.now() - t0;
    expectRefused(r, bundle, /deadline of 1500 ms/);
    expect(r.stderr).toContain('authz.rego');
    expect(took).toBeLessThan(DEADLINE + 1000);
    // the process itself ends (startup of the CLI is not part of the bound)
    const s = spawnSync(process.execPath, [TOOLGATE, 'decide', 'a', 'b', '--bundle', bundle, '--deadline-ms', '500'], { encoding: 'utf8', timeout: 60_000 });
    expect(s.status).not.toBe(0);
    expect(s.stderr).toContain('REGO_LIMIT_EXCEEDED');
    expect(s.stderr).toContain('data.toolgate.authz.decision');
  }, 90_000);
});

describe('the limits object of the library API', () => {
  const run = (body: string, limits: object) => {
    const p = compileModules([{ name: 'l.rego', text: `package l\n\n${body}` }]);
    return p.evalRule('data.l.p', { limits });
  };
  const err = (fn: () => unknown): RegoLimitError => {
    try {
      fn();
    } catch (e) {
      return e as RegoLimitError;
    }
    throw new Error('expected a limit error');
  };

  it('names the rule, its file and line, and the limit', () => {
    const e = err(() => run('q := count(numbers.range(1, 1000000))\np := q', { maxBytes: 1000 }));
    expect(e).toBeInstanceOf(RegoLimitError);
    expect(e.code).toBe('REGO_LIMIT_EXCEEDED');
    expect(e.regoCode).toBe('eval_cancel_error');
    expect(e.limit).toBe('bytes');
    expect(e.rule).toBe('data.l.q');
    expect(e.message).toMatch(/^l\.rego:3: eval_cancel_error: evaluating data\.l\.q: evaluation exceeded the output budget of 1000 bytes/);
  });

  it('counts builtin work as steps: walk paths, ranges, regex and glob subjects', () => {
    expect(err(() => run('p := count([x | walk([[[[[[1]]]]]], x)])', { maxSteps: 10 })).limit).toBe('steps');
    expect(run('p := count([x | walk([[[[[[1]]]]]], x)])', { maxSteps: 1000 })).toBe(7);
    expect(err(() => run('p := count(numbers.range(1, 100000))', { maxSteps: 1000 })).limit).toBe('steps');
    const big = 'big := concat("", [x | some _ in numbers.range(1, 20000); x := "a"])\n';
    expect(err(() => run(`${big}p := regex.match("a+b", big)`, { maxSteps: 25_000 })).limit).toBe('steps');
    expect(err(() => run(`${big}p := glob.match("*b", [], big)`, { maxSteps: 25_000 })).limit).toBe('steps');
    expect(run(`${big}p := glob.match("*b", [], big)`, { maxSteps: 200_000 })).toBe(false);
  });

  it('a shared absolute deadline ends the evaluation', () => {
    const e = err(() => run('p := count([1 | some i in numbers.range(1, 10000); some j in numbers.range(1, 10000)])', { deadlineAt: Date.now() + 50 }));
    expect(e.limit).toBe('deadline');
  });

  it("with no limits given, a value past the engine's own ceiling is a limit error naming it, never an undefined answer", () => {
    const range = err(() => run('p := count(numbers.range(1, 100000000))', {}));
    expect([range.limit, range.rule]).toEqual(['bytes', 'data.l.p']);
    expect(range.message).toMatch(/larger than this engine holds \(numbers\.range: a range of 100000000 elements, past 10000000\)/);
    const doubled = err(() => run('s := concat("", [x | some _ in numbers.range(1, 100000); x := "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"])\nt := concat("", [s | some _ in numbers.range(1, 10000)])\np := count(t)', {}));
    expect(doubled.limit).toBe('bytes');
    expect(doubled.message).toMatch(/larger than this engine holds \(past JavaScript's largest string or array\)/);
  });

  it('maxSteps and deadlineMs given separately still apply', () => {
    const p = compileModules([{ name: 'l.rego', text: 'package l\n\np := count([1 | some i in numbers.range(1, 100000)])' }]);
    expect(() => p.evalRule('data.l.p', { maxSteps: 100 })).toThrow(/step budget of 100 steps/);
  });
});

describe('glob.match is linear time', () => {
  it('a pattern that makes a backtracking matcher explode answers at once', () => {
    const subject = 'a'.repeat(100_000);
    // A backtracking matcher takes longer than the universe's age here; a linear one well under a second, even on a loaded CI machine.
    const t0 = Date.now();
    expect(globMatch('*a*a*a*a*a*a*a*a*a*a*a*a*b', [], subject)).toBe(false);
    expect(globMatch('{*a,*a}{*a,*a}{*a,*a}{*a,*a}{*a,*a}b', ['.'], subject)).toBe(false);
    expect(globMatch('*a*a*a*a*a*a*a*a*a*a*a*a', [], subject)).toBe(true);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
  it('keeps newlines and code points as single characters', () => {
    expect(globMatch('a?b', [], 'a\nb')).toBe(true);
    expect(globMatch('a*b', [], 'a\n\nb')).toBe(true);
    expect(globMatch('a?b', [], 'a😀b')).toBe(true);
    expect(globMatch('a.*', ['.'], 'a.b.c')).toBe(false);
    expect(globMatch('a.**', ['.'], 'a.b.c')).toBe(true);
  });
});

describeWithOpa('sprintf widths as OPA formats them', () => {
  it('widths and precisions past Go\'s limit, and large ones within it, agree with opa eval', () => {
    const formats = ['%0999999999d', '%999999999s', '%.999999999f', '%*d', '%.*d', '%01000000d', '%1000001d', '%10000000x', '%-1000002s', '%.1000001d'];
    const args = (f: string) => (f.includes('*') ? '[99999999, 1]' : '[1]');
    const query = formats.map((f, i) => `x${i} := count(sprintf(${JSON.stringify(f)}, ${args(f)})); y${i} := substring(sprintf(${JSON.stringify(f)}, ${args(f)}), 0, 40)`).join('; ');
    const r = runOpa(['eval', '--format', 'json', query]);
    expect(r.code, r.stderr).toBe(0);
    const want = JSON.parse(r.stdout).result[0].bindings as Record<string, unknown>;
    const q = compileModules([]).prepareQuery(query);
    const got = q.evaluate()[0]!.bindings;
    const gotJson = Object.fromEntries([...got].map(([k, v]) => [k, toJSON(v)]));
    expect(gotJson).toEqual(want);
  });
});
