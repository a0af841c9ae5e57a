/**
 * re2js (pure JavaScript, what the regex builtins use) against the native `re2` addon (C++ RE2, which
 * they used before) in the same run: compile time, `test` and find-all throughput on patterns of the
 * kind policies hold, and matching time on pathological pattern/subject pairs (where a backtracking
 * engine goes exponential). The native side is skipped, saying so, when `re2` is not installed
 * (it is no longer a dependency: it needs a C++ toolchain at install time). Never asserted.
 *
 * Measured (`npm run bench -- regex`, Node 20, 2 cores shared with other work, load ~3; medians of 5
 * rounds, the range over two runs; re2 1.27.1 still installed then):
 *   compile, fresh pattern        re2js 44-254 µs                  native 10-21 µs (1.4-2.4 ms for \p{L} with (?i))
 *   test, compiled                re2js 0.35-3.6 µs                native 0.19-0.44 µs
 *   find-all [0-9]+ in 2.3 KB     re2js 127-268 µs                 native 275-542 µs (JS exec loop over the addon)
 *   (a|aa)+$ on a^5000 b          re2js 38-40 µs                   native 0.23 µs
 *   ^(\w+\s?)*$ on w^5000 !        re2js 37-44 µs                   native 8.6-9.4 µs
 *   (.*a){12}$ on a^11 x 100 KB   re2js 0.8-1.6 ms                 native 0.21 µs (RE2 runs the $-anchored pattern backwards)
 * So re2js is 2-10x slower per call on short subjects and still linear on the pathological ones; the
 * builtins cache compiled patterns, so the compile cost is paid once per pattern.
 */
import { RE2JS } from 're2js';
import { compileRegexp, findAllString, matchString } from '../src/rego/builtins/lib/re2.ts';

interface Engine {
  readonly name: string;
  compile(source: string): unknown;
  test(re: unknown, s: string): boolean;
  findAll(re: unknown, s: string): number;
}

const re2js: Engine = {
  name: 're2js',
  compile: (source) => RE2JS.compile(source),
  test: (re, s) => (re as RE2JS).test(s),
  findAll: (re, s) => ((re as RE2JS).re2().findAllIndex(s, -1) as unknown[] | null)?.length ?? 0,
};

const viaLib: Engine = {
  name: 'lib/re2.ts (re2js, cached)',
  compile: (source) => compileRegexp(source),
  test: (re, s) => matchString(re as ReturnType<typeof compileRegexp>, s),
  findAll: (re, s) => findAllString(re as ReturnType<typeof compileRegexp>, s, -1).length,
};

interface NativeRE2 {
  lastIndex: number;
  test(s: string): boolean;
  exec(s: string): unknown;
}

async function nativeEngine(): Promise<Engine | string> {
  try {
    const mod = (await import('re2' as string)) as { default: new (source: string, flags: string) => NativeRE2 };
    const RE2 = mod.default;
    return {
      name: 're2 (native)',
      compile: (source) => new RE2(source, 'gu'),
      test: (re, s) => {
        (re as NativeRE2).lastIndex = 0;
        return (re as NativeRE2).test(s);
      },
      findAll: (re, s) => {
        const r = re as NativeRE2;
        r.lastIndex = 0;
        let n = 0;
        let last = -1;
        while (r.exec(s) !== null) {
          n++;
          if (r.lastIndex === last) r.lastIndex++;
          last = r.lastIndex;
        }
        return n;
      },
    };
  } catch (e) {
    return `native re2 not installed (${(e as Error).message.split('\n')[0]})`;
  }
}

const LOG_LINE = Array.from({ length: 40 }, (_, i) => `req=${1000 + i} user=u${i * 7} path=/api/v1/tools/${i} ms=${i * 13}`).join(' ');

const REALISTIC: readonly { name: string; pattern: string; subject: string; findAll?: boolean }[] = [
  { name: 'tool name', pattern: '^(github|gitlab)\\.(issues|pulls|repos)\\.(read|write|admin)$', subject: 'gitlab.pulls.write' },
  { name: 'email', pattern: '^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$', subject: 'alice.smith+mcp@example.co.uk' },
  { name: 'AWS role ARN', pattern: '^arn:aws:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_-]+$', subject: 'arn:aws:iam::123456789012:role/mcp-gateway_reader' },
  { name: 'unicode words (?i)', pattern: '(?i)\\b\\p{L}+sch\\p{L}*\\b', subject: 'Die Straße führt zum Fluss, sagt der Schäfer.' },
  { name: 'find-all numbers in 2.3 KB', pattern: '[0-9]+', subject: LOG_LINE, findAll: true },
];

/** Each fails only after reading the whole subject, and none has a literal a prefilter can look for. */
const PATHOLOGICAL: readonly { name: string; pattern: string; subject: string }[] = [
  { name: '(a|aa)+$ on a^5000 b', pattern: '(a|aa)+$', subject: `${'a'.repeat(5000)}b` },
  { name: '^(\\w+\\s?)*$ on w^5000 !', pattern: '^(\\w+\\s?)*$', subject: `${'w'.repeat(5000)}!` },
  { name: '(.*a){12}$ on a^11 x 100 KB', pattern: '(.*a){12}$', subject: `${'a'.repeat(11)}${'x'.repeat(100_000)}` },
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Median over 5 rounds of the time per operation, in microseconds. */
function perOp(ops: number, body: () => void): number {
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) body();
    rounds.push(Number(process.hrtime.bigint() - t0) / 1000 / ops);
  }
  return median(rounds);
}

function fmt(us: number): string {
  return us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(us < 10 ? 2 : 1)} µs`;
}

async function main(): Promise<void> {
  const native = await nativeEngine();
  const engines = [re2js, viaLib, ...(typeof native === 'string' ? [] : [native])];
  if (typeof native === 'string') console.log(`(${native}: only re2js is measured)`);

  let fresh = 0;
  console.log('\ncompile (fresh pattern each time, µs/op)');
  for (const p of REALISTIC) {
    const cells = engines
      .filter((e) => e !== viaLib)
      .map((e) => `${e.name} ${fmt(perOp(200, () => e.compile(`${p.pattern}|z${fresh++}`)))}`);
    console.log(`  ${p.name.padEnd(28)} ${cells.join('   ')}`);
  }

  console.log('\nmatch (compiled once; test, or find-all where marked; per call)');
  for (const p of REALISTIC) {
    const cells = engines.map((e) => {
      const re = e.compile(p.pattern);
      const us = perOp(p.findAll === true ? 200 : 20_000, () => (p.findAll === true ? e.findAll(re, p.subject) : e.test(re, p.subject)));
      return `${e.name} ${fmt(us)}`;
    });
    console.log(`  ${p.name.padEnd(28)} ${cells.join('   ')}`);
  }

  console.log('\npathological (compiled once; test; per call)');
  for (const p of PATHOLOGICAL) {
    const cells = engines.map((e) => {
      const re = e.compile(p.pattern);
      return `${e.name} ${fmt(perOp(5, () => e.test(re, p.subject)))}`;
    });
    console.log(`  ${p.name.padEnd(28)} ${cells.join('   ')}`);
  }
}

await main();
