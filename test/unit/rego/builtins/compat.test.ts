/**
 * net.cidr_contains_matches, trace, OPA's old names (re_match, set_diff, net.cidr_overlap) and regex
 * parse errors
 * against opa eval on generated arguments, valid and invalid: values, and strict errors by code
 * and message.
 */
import { it, expect } from 'vitest';
import { describeWithOpa, runOpa } from '../../../helpers/opa.ts';
import { compileModules, toJSON } from '../../../../src/rego/index.ts';
import { RegoError } from '../../../../src/rego/errors.ts';
import { mulberry32 } from '../../../../src/rego/prng.ts';

const rnd = mulberry32(20261201);
const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const CIDRS = ['10.0.0.0/8', '10.1.0.0/16', '192.168.0.0/16', '192.168.1.0/24', '2001:db8::/32', '0.0.0.0/0', '10.1.2.3', '192.168.1.7', '2001:db8::1', '172.16.0.1', 'bad', '10.0.0.0/33', ''];
const ELEMS = [...CIDRS.map((c) => JSON.stringify(c)), '[]', '1', 'null', '["10.0.0.0/8", "x"]', '["192.168.1.7"]', '[1]'];

function collection(): string {
  const n = 1 + Math.floor(rnd() * 3);
  const xs = Array.from({ length: n }, () => pick(ELEMS));
  switch (pick(['string', 'array', 'set', 'object', 'number'] as const)) {
    case 'string':
      return JSON.stringify(pick(CIDRS));
    case 'array':
      return `[${xs.join(', ')}]`;
    case 'set':
      return `{${xs.join(', ')}}`;
    case 'object':
      return `{${xs.map((x, i) => `"k${i}": ${x}`).join(', ')}}`;
    case 'number':
      return '7';
  }
}

/** Hides an argument's type from OPA's compile-time check, so the builtin's own check answers. */
const dyn = (x: string) => `object.get({"v": ${x}}, "v", null)`;

function cases(): string[] {
  const out: string[] = [];
  for (let i = 0; i < 120; i++) out.push(`net.cidr_contains_matches(${dyn(collection())}, ${dyn(collection())})`);
  for (let i = 0; i < 20; i++) out.push(`net.cidr_overlap(${dyn(pick(ELEMS))}, ${dyn(pick(ELEMS))})`);
  for (const [p, s] of [['a+', 'caat'], ['^x', 'y'], ['(', 'a'], ['[a-', 'b']] as const) out.push(`re_match(${JSON.stringify(p)}, ${JSON.stringify(s)})`);
  out.push(`re_match(${dyn('1')}, "a")`, `re_match("a", ${dyn('2')})`);
  out.push('set_diff({1, 2, 3}, {2})', 'set_diff({1}, set())', `set_diff(${dyn('[1]')}, {1})`, `set_diff({1}, ${dyn('"x"')})`, 'set_diff({"a", [1]}, {[1]})');
  out.push('trace("note")', `trace(${dyn('1')})`);
  // parse errors of RE2 in Go's regexp/syntax wording
  for (const p of ['(', '[a-', 'a)', '\\x', 'a**', '*', '[z-a]', 'a{2,1}', '(?P<n', '\\8', 'x{1001}', '(?i', '\\pX', '[[:foo:]]', 'a+b']) out.push(`regex.match(${JSON.stringify(p)}, "aab")`);
  return out;
}

type Outcome = { value: unknown } | { error: { code: string; message: string } } | { undefined: true };

function opaOutcome(expr: string): Outcome {
  // a variable holds the value so the builtin's own type check runs at eval time, not compile time
  const r = runOpa(['eval', '--format', 'json', '--strict-builtin-errors', '--stdin-input', `x := ${expr}`], { input: '{}' });
  const j = JSON.parse(r.stdout) as { result?: { bindings: { x: unknown } }[]; errors?: { code: string; message: string }[] };
  if (j.errors?.length) return { error: { code: j.errors[0]!.code, message: j.errors[0]!.message } };
  if (!j.result?.length) return { undefined: true };
  return { value: j.result[0]!.bindings.x };
}

function engineOutcome(expr: string): Outcome {
  try {
    const q = compileModules([]).prepareQuery(`x := ${expr}`);
    const rs = q.evaluate({ strict: true });
    if (rs.length === 0) return { undefined: true };
    return { value: toJSON(rs[0]!.bindings.get('x')!) };
  } catch (e) {
    if (e instanceof RegoError) return { error: { code: e.regoCode, message: e.regoMessage } };
    throw e;
  }
}

/** Sets come back as arrays in each side's order: compare them sorted. */
function norm(o: Outcome): string {
  const sortDeep = (v: unknown): unknown => (Array.isArray(v) ? v.map(sortDeep).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)) : v);
  if ('value' in o) return JSON.stringify(sortDeep(o.value));
  return JSON.stringify(o);
}

describeWithOpa('compat builtins against opa eval', () => {
  it('agree on every generated call', () => {
    const all = cases();
    const diffs: string[] = [];
    let errors = 0;
    for (const expr of all) {
      const want = opaOutcome(expr);
      const got = engineOutcome(expr);
      if ('error' in want) errors++;
      if (norm(want) !== norm(got)) diffs.push(`${expr}\n  opa    ${norm(want)}\n  engine ${norm(got)}`);
    }
    expect(diffs).toEqual([]);
    expect(errors).toBeGreaterThan(10);
    expect(all.length - errors).toBeGreaterThan(60);
  }, 120_000);
});
