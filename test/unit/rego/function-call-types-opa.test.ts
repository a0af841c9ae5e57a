/**
 * Calls of a policy's own functions with an argument of a type the function's definitions rule out,
 * against the real OPA (typecheck.ts checkFunctionCalls): generated functions of one to three
 * definitions, some with an `else`, whose parameters go to builtins directly, through another
 * variable, inside a comprehension or nowhere, called with constants, literals and input. The
 * engine finds a subset of OPA's errors: it never refuses a module OPA compiles, the error it gives
 * is one of OPA's (code and message), and it finds most of the modules OPA refuses here.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithOpa } from '../../helpers/opa.ts';
import { engineOutcome, OpaOracle, show, type Outcome } from '../../helpers/rego-differential.ts';

/** One use of parameter `x` in a body that binds `r`: a builtin operand of a known type, or none the checker counts. */
const use = fc.constantFrom(
  'r := x + 1',
  'r := abs(x)',
  'r := upper(x)',
  'startswith(x, "a")\n\tr := 1',
  'not startswith(x, "a")\n\tr := 2',
  'r := count(x)',
  'r := sum(x)',
  'r := object.get(x, "k", 0)',
  'r := is_string(x)',
  'r := to_number(x)',
  'r := [v | v := x + 1]',
  'z := x\n\tr := z + 1',
  'r := concat(",", [x, "b"])',
  'r := x',
  'r := 7',
);

const argument = fc.constantFrom('1', '2.5', '"a"', 'true', 'null', '[1]', '["a"]', '{"k": 1}', '{1, 2}', 'input.q', '"ab" + 1');

/** Where the call is: a head value, a body, a comprehension, another call's argument, a literal with `with`. */
const site = fc.constantFrom(
  (call: string) => `p := ${call}`,
  (call: string) => `p if {\n\t${call}\n}`,
  (call: string) => `p := [y | y := ${call}]`,
  (call: string) => `p := count([${call}])`,
  (call: string) => `p if {\n\tx := ${call} with input.q as 1\n\tx\n}`,
);

/** `f(x)` or `f(x, w)`, `w` used as `x` is (the second use's `x` renamed). */
const module = fc
  .record({
    defs: fc.array(fc.tuple(use, fc.option(use, { nil: undefined }), use), { minLength: 1, maxLength: 3 }),
    args: fc.array(argument, { minLength: 1, maxLength: 2 }),
    site,
  })
  .map(({ defs, args, site }) => {
    const two = args.length === 2;
    const body = (first: string, second: string) => (two ? `${first}\n\t${second.replace(/\bx\b/g, 'w').replace(/\br\b/g, 'r2').replace(/\bz\b/g, 'z2').replace(/\bv\b/g, 'v2')}` : first);
    const head = two ? 'f(x, w)' : 'f(x)';
    const rules = defs.map(([first, otherwise, second]) => `${head} := r if {\n\t${body(first, second)}\n}${otherwise === undefined ? '' : ` else := r if {\n\t${body(otherwise, second)}\n}`}`);
    return `package t\n\n${rules.join('\n\n')}\n\n${site(`f(${args.join(', ')})`)}\n`;
  });

/** The messages of an outcome's errors, each without the location and code in front (OPA lists them all, the engine its first). */
function messagesOf(o: Outcome): string[] {
  if (o.kind !== 'error') return [];
  return o.message.split('\n').map((line) => {
    const m = /\b(rego_[a-z_]+): (.*)$/.exec(line);
    return m ? `${m[1]}: ${m[2]}` : line;
  });
}

describeWithOpa('calls of own functions against OPA', () => {
  let opa: OpaOracle;
  beforeAll(async () => {
    opa = await OpaOracle.start();
  });
  afterAll(async () => {
    await opa?.stop();
  });

  it('generated functions and calls: no refusal OPA does not give, each refusal as OPA words it, most of its refusals found', async () => {
    const texts = fc.sample(module, { numRuns: 500, seed: 20261202 });
    const wrong: string[] = [];
    let opaRefused = 0;
    let found = 0;
    for (const [i, text] of texts.entries()) {
      const theirs = (await opa.putPolicy(`m${i}`, text)) ?? ({ kind: 'results', results: [] } as Outcome);
      await opa.deletePolicy(`m${i}`);
      const ours = engineOutcome({ modules: [{ name: 'm.rego', text }], query: 'x := data.t.p' });
      const oursRefused = ours.kind === 'error' && ours.phase === 'compile';
      if (theirs.kind === 'error') opaRefused++;
      if (!oursRefused) continue;
      if (theirs.kind !== 'error') wrong.push(`${text}\n  engine: ${show(ours)}\n  opa:    compiles`);
      // the engine finds a subset, so its first error may be OPA's second, where OPA finds one before it
      else if (!messagesOf(theirs).includes(messagesOf(ours)[0] ?? '')) wrong.push(`${text}\n  engine: ${show(ours)}\n  opa:    ${show(theirs)}`);
      else found++;
    }
    expect(wrong).toEqual([]);
    // the generator keeps to what the engine counts (no parameter typed through another variable,
    // no `with` of data or of a function): there it finds every refusal OPA gives
    expect(opaRefused).toBeGreaterThan(100);
    expect(found / opaRefused).toBeGreaterThan(0.95);
    process.stdout.write(`own-function calls: OPA refused ${opaRefused} of ${texts.length} modules, the engine ${found} of them, with OPA's message\n`);
  }, 120_000);
});
