/**
 * The builtin engine against the real OPA on the same programs (test/helpers/rego-differential.ts):
 * the visible conformance corpus (read from /work/shared at run time) and a seeded corpus of
 * generated programs (test/helpers/rego-program-gen.ts). Any disagreement not in ALLOWED fails.
 * TOOLGATE_DIFF_RUNS sets the number of generated programs, TOOLGATE_DIFF_SEED the seed.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseCorpusFile } from '../../../src/cli/rego-conformance/corpus-file.ts';
import { ObjectValue, type Value } from '../../../src/rego/value.ts';
import { fromJSON } from '../../../src/rego/value-json.ts';
import { describeWithOpa } from '../../helpers/opa.ts';
import {
  compareOutcomes,
  engineDataOutcome,
  engineOutcome,
  OpaOracle,
  outcomeClass,
  show,
  type DiffCase,
  type Outcome,
} from '../../helpers/rego-differential.ts';
import { generatePrograms, type GeneratedProgram } from '../../helpers/rego-program-gen.ts';

const CORPUS = process.env.TOOLGATE_CONFORMANCE_DIR ?? '/work/shared/rego-conformance';
const OPA_SET = join(CORPUS, 'opa-v1');

/**
 * Visible-corpus cases where the engine knowingly answers differently from OPA, keyed by
 * `<file relative to opa-v1>#<note>`, each with its reason (also listed in src/rego/README.md).
 */
const SPLIT_N =
  'strings.split_n: this file comes from an OPA commit later than the pinned v1.22.3 (SOURCES-opa-v1.tsv: fce3c83), where a positive limit splits as Go strings.SplitN ("a.b.c.d", ".", 2 -> ["a", "b.c.d"]); v1.22.3 returns the first n pieces (["a", "b"]). The engine follows the corpus';
const ALLOWED_CORPUS: ReadonlyMap<string, string> = new Map([
  ['strings/test-splitn.yaml#strings/split_n: basic split with limit', SPLIT_N],
  ['strings/test-splitn.yaml#strings/split_n: limit of 1 returns whole string', SPLIT_N],
  ['strings/test-splitn.yaml#strings/split_n: empty delimiter', SPLIT_N],
  ['strings/test-splitn.yaml#strings/split_n: multi-char delimiter', SPLIT_N],
  [
    'withkeyword/test-with-builtin-mock.yaml#withkeyword/builtin-builtin: arity 0',
    "opa.runtime() under `opa run --server` reports the server's config and environment; OPA's test runner, like the engine, has no runtime and answers {}",
  ],
]);

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e)) out.push(p);
  }
  return out;
}

/** An OPA-format corpus case as a differential case; `input_term` (Rego syntax, may hold sets) becomes `with input as`. */
function corpusCase(c: Record<string, unknown>): DiffCase {
  const mods = Array.isArray(c.modules) ? (c.modules as unknown[]) : [];
  let query = String(c.query);
  let input: Value | undefined;
  if (typeof c.input_term === 'string') query = `${query} with input as ${c.input_term}`;
  else if ('input' in c && c.input !== undefined) input = fromJSON(c.input);
  const data = c.data === undefined || c.data === null ? undefined : fromJSON(c.data);
  return { modules: mods.map((m, i) => ({ name: `test-${i}.rego`, text: String(m) })), data: data ?? new ObjectValue(), input, query, strict: c.strict_error === true };
}

/**
 * Generated-corpus disagreements accepted, each a predicate over the program and both outcomes with
 * its reason (also listed in src/rego/README.md). Keep this tiny: fix the engine instead.
 */
interface AllowedGenerated {
  readonly reason: string;
  /** The disagreement may be this one. */
  readonly applies: (p: GeneratedProgram, engine: Outcome, opa: Outcome) => boolean;
  /** The program without the construct; it is accepted only when both then agree (none: accepted as is). */
  readonly rewrite?: (text: string) => string;
  /** Run the (rewritten) program without strict builtin errors for the check. */
  readonly nonStrict?: boolean;
  /** What OPA must answer for the check as well. */
  readonly expect?: (opa: Outcome) => boolean;
}
/** A `replace(s, "", x)` call (its first operand may hold one level of parentheses). */
const EMPTY_REPLACE = /(replace\((?:[^()]|\([^()]*\))*?), "", /;
const ALLOWED_GENERATED: readonly AllowedGenerated[] = [
  {
    reason:
      'OPA v1.22.3 bug: a rule whose body has the literal `not true` and whose value holds a ref or a call is defined (`q := data.x if { not true }` is data.x, `q := [data.x] if { not true }` is [data.x]; `q := 1 if { not true }` is undefined as it should be), so it can also conflict with another definition. The engine leaves it undefined',
    applies: (p) => /\tnot true\n/.test(p.text),
    rewrite: (t) => t.replace(/\tnot true\n/g, '\tfalse\n'),
  },
  {
    reason:
      "OPA's type checker infers the types of calls, comprehensions, rules and `some` vars and refuses what can never match (rego_type_error: match error, undefined ref, invalid argument); the engine checks only literal shapes (src/rego/typecheck.ts). The generator keeps static types right, but its `any` picks still make a few",
    applies: (_p, e, o) => o.kind === 'error' && o.codes.every((c) => c === 'rego_type_error') && !(e.kind === 'error' && e.codes[0] === 'rego_type_error'),
  },
  {
    reason:
      "strict mode, a conflict and a builtin error in one package: OPA continues the caller on a complete rule's first value (topdown evalVirtualComplete calls the iterator before evaluating the remaining definitions), so a builtin error raised later in the package, or in the expression using the rule, comes before the conflict among the rule's definitions; the engine computes a rule's whole value (and its conflict) first. Accepted only when, without strict builtin errors, both report the conflict",
    applies: (p, e, o) => {
      if (!p.strict || e.kind !== 'error' || o.kind !== 'error') return false;
      const strictErr = (c: string | undefined) => c === 'eval_type_error' || c === 'eval_builtin_error';
      return (e.codes[0] === 'eval_conflict_error' && o.codes.some(strictErr)) || (strictErr(e.codes[0]) && o.codes.includes('eval_conflict_error'));
    },
    rewrite: (t) => t,
    nonStrict: true,
    expect: (o) => o.kind === 'error' && o.codes.includes('eval_conflict_error'),
  },
  {
    reason:
      'replace(s, "", x) on a multi-byte string: OPA (strings.NewReplacer) inserts x between the bytes of each UTF-8 sequence, and its JSON shows each broken byte as U+FFFD ("ä" -> "b\\ufffdb\\ufffdb"); a JavaScript string cannot hold the invalid UTF-8, so the engine inserts between characters. Accepted only when the program agrees once the empty old string is one that never occurs',
    applies: (p, e, o) => e.kind === 'results' && o.kind === 'results' && EMPTY_REPLACE.test(p.text) && o.results.some((r) => r.includes('\\ufffd') || r.includes('\ufffd')),
    rewrite: (t) => t.replace(new RegExp(EMPTY_REPLACE.source, 'g'), '$1, "\\u0001", '),
  },
];

const DEFAULT_RUNS = 10_000;
const DEFAULT_SEED = 20261201;
/** Unexplained disagreements of the default corpus (10,000 programs, seed 20261201). */
const OPEN_CEILING = 0;

interface GeneratedReport {
  readonly summary: string;
  readonly unexpected: string[];
}

/**
 * Runs `runs` generated programs: data of a batch in one PUT, then per program one PUT of its module
 * (always the same policy id, so OPA never holds more than one) and one POST of its package. When the
 * two answers are errors with different codes, or one side errs, each rule is asked alone as well: a
 * package with several failing rules may report any of them first, and that order is not semantics.
 */
async function runGeneratedCorpus(oracle: OpaOracle, opts: { runs: number; seed: number }): Promise<GeneratedReport> {
  const BATCH = 250;
  const t0 = performance.now();
  let agree = 0;
  let byRule = 0;
  let allowed = 0;
  const classes = new Map<string, number>();
  const allowedWhy = new Map<string, number>();
  const unexpected: string[] = [];
  for (let first = 0; first < opts.runs; first += BATCH) {
    const progs = generatePrograms(opts.seed, first, Math.min(BATCH, opts.runs - first));
    await oracle.putData(['d'], fromJSON(Object.fromEntries(progs.map((p) => [p.name, p.data]))));
    for (const p of progs) {
      const modules = [{ name: 'gen.rego', text: p.text }];
      const input = p.input === undefined ? undefined : fromJSON(p.input);
      const data = fromJSON({ d: { [p.name]: p.data } });
      const path = ['gen', p.name];
      const compileErr = await oracle.putPolicy('gen', p.text);
      const opa = compileErr ?? (await oracle.dataOutcome(path, input, p.strict));
      const engine = engineDataOutcome(modules, path, { input, data, strict: p.strict });
      classes.set(outcomeClass(opa), (classes.get(outcomeClass(opa)) ?? 0) + 1);
      let diff = compareOutcomes(engine, opa);
      if (diff !== undefined && !compileErr && (engine.kind === 'error' || opa.kind === 'error')) {
        const perRule: string[] = [];
        for (const r of p.rules) {
          const e1 = engineDataOutcome(modules, [...path, r], { input, data, strict: p.strict });
          const o1 = await oracle.dataOutcome([...path, r], input, p.strict);
          const d1 = compareOutcomes(e1, o1);
          if (d1 !== undefined) perRule.push(`rule ${r}: ${d1}`);
        }
        const bothErr = engine.kind === 'error' && opa.kind === 'error';
        if (perRule.length === 0 && bothErr) {
          byRule++;
          diff = undefined;
        } else if (perRule.length > 0) diff = `${diff}\n${perRule.join('\n')}`;
      }
      if (diff === undefined) {
        agree++;
        continue;
      }
      let excused = false;
      for (const a of ALLOWED_GENERATED) {
        if (!a.applies(p, engine, opa)) continue;
        if (!a.rewrite) {
          excused = true;
          allowedWhy.set(a.reason, (allowedWhy.get(a.reason) ?? 0) + 1);
          break;
        }
        const text = a.rewrite(p.text);
        const strict = a.nonStrict ? false : p.strict;
        const m2 = [{ name: 'gen.rego', text }];
        const err2 = await oracle.putPolicy('gen', text);
        const o2 = err2 ?? (await oracle.dataOutcome(path, input, strict));
        if (compareOutcomes(engineDataOutcome(m2, path, { input, data, strict }), o2) === undefined && (a.expect?.(o2) ?? true)) {
          excused = true;
          allowedWhy.set(a.reason, (allowedWhy.get(a.reason) ?? 0) + 1);
          break;
        }
      }
      if (excused) {
        allowed++;
        continue;
      }
      unexpected.push(`${p.name} (seed ${opts.seed}, strict ${p.strict}) ${diff}\n--- program\n${p.text}--- input ${JSON.stringify(p.input, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n--- data ${JSON.stringify(p.data, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
    }
  }
  await oracle.deletePolicy('gen');
  const s = (performance.now() - t0) / 1000;
  const cls = [...classes].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  const summary =
    `generated corpus: ${agree}/${opts.runs} agree (${((100 * agree) / opts.runs).toFixed(2)}%; ${byRule} of them only rule by rule), ` +
    `${allowed} allowed (${[...allowedWhy.values()].join(' + ')}), ${unexpected.length} unexplained; ${s.toFixed(1)} s (${Math.round((opts.runs / s) * 60)} programs/min); OPA outcomes: ${cls}`;
  return { summary, unexpected };
}

describeWithOpa('differential: builtin engine vs OPA', () => {
  let oracle: OpaOracle;
  beforeAll(async () => {
    oracle = await OpaOracle.start();
  });
  afterAll(async () => {
    await oracle?.stop();
  });

  const corpusThere = existsSync(OPA_SET);
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  it.skipIf(!corpusThere && !ci)(`visible corpus ${OPA_SET}${corpusThere ? '' : ' (skipped outside CI: the corpus folder is missing)'}`, async () => {
    expect(corpusThere, `${OPA_SET} is missing`).toBe(true);
    let total = 0;
    let agree = 0;
    const bad: string[] = [];
    const allowedSeen: string[] = [];
    const t0 = performance.now();
    for (const file of yamlFiles(OPA_SET)) {
      const rel = relative(OPA_SET, file);
      const cases = parseCorpusFile(readFileSync(file, 'utf8'));
      for (const [i, raw] of cases.entries()) {
        const note = typeof raw.note === 'string' ? raw.note : `case ${i}`;
        const c = corpusCase(raw);
        total++;
        const opa = await oracle.caseOutcome(c);
        const diff = compareOutcomes(engineOutcome(c), opa);
        if (diff === undefined) agree++;
        else if (ALLOWED_CORPUS.has(`${rel}#${note}`)) allowedSeen.push(`${rel}#${note}`);
        else bad.push(`${rel}#${note}: ${diff}`);
      }
    }
    const ms = performance.now() - t0;
    console.log(`visible corpus: ${agree}/${total} agree (${((100 * agree) / total).toFixed(1)}%), ${allowedSeen.length} allowed, ${(ms / 1000).toFixed(1)} s`);
    if (process.env.TOOLGATE_DIFF_REPORT) writeFileSync(`${process.env.TOOLGATE_DIFF_REPORT}.corpus`, bad.join('\n\n'));
    expect(bad).toEqual([]);
  }, 300_000);

  it('generated corpus', async () => {
    const runs = Number(process.env.TOOLGATE_DIFF_RUNS ?? DEFAULT_RUNS);
    const seed = Number(process.env.TOOLGATE_DIFF_SEED ?? DEFAULT_SEED);
    const r = await runGeneratedCorpus(oracle, { runs, seed });
    console.log(r.summary);
    if (process.env.TOOLGATE_DIFF_REPORT) writeFileSync(process.env.TOOLGATE_DIFF_REPORT, r.unexpected.join('\n\n'));
    for (const u of r.unexpected.slice(0, 5)) console.log(u);
    // Open disagreements not yet explained (src/rego/README.md, "Differential"): the seeded corpus has a
    // fixed number of them, so any new one fails; fix the engine and lower the ceiling.
    const ceiling = runs === DEFAULT_RUNS && seed === DEFAULT_SEED ? OPEN_CEILING : Number(process.env.TOOLGATE_DIFF_MAX_OPEN ?? 0);
    expect(r.unexpected.length, r.unexpected.slice(0, 3).join('\n\n')).toBeLessThanOrEqual(ceiling);
  }, 600_000);
});
