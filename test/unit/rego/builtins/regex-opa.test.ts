/**
 * The regex.* builtins, regex.globs_match and glob.match against the real OPA on generated patterns
 * (valid and invalid RE2, glob and glob-intersection syntax) and Unicode subjects: values, and errors
 * by message.
 *
 * One `opa eval` answers a whole batch: each case is one rule on its own line of a generated module,
 * its arguments taken from `input[i]` (so nothing is folded at compile time and no string is quoted
 * into Rego), and `--show-builtin-errors` returns every builtin error with the row that raised it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { describeWithOpa, runOpa } from '../../../helpers/opa.ts';
import { BuiltinError } from '../../../../src/rego/builtins/registry.ts';
import { toJSON } from '../../../../src/rego/value-json.ts';
import { call, j } from './call.ts';

type Json = string | number | boolean | null | Json[];

interface Case {
  readonly fn: string;
  readonly args: readonly Json[];
}

type Outcome = { readonly value: unknown } | { readonly error: string } | { readonly undefined: true };

// ---------------------------------------------------------------- generators

/** Characters where Go's and JavaScript's string models, case folding and classes could part. */
const SUBJECT_CHARS = ['a', 'b', 'c', 'A', 'B', 'x', 'y', '0', '1', '9', '_', '-', '.', '/', ' ', '\n', '\t', '$', 'é', 'É', 'ß', 'ẞ', 'k', 'K', '\u212a', 'ſ', 's', 'S', 'Ω', 'ω', 'Σ', 'σ', 'ς', '😀', '𝒜', '中', '\u0301', '{', '}'];

const subject = fc.string({ unit: fc.constantFrom(...SUBJECT_CHARS), maxLength: 12 });

const ATOMS = [
  'a', 'b', 'x', 'A', 'é', 'ß', 'k', 'σ', '😀', '中', '.', '\\.', '\\$', '\\d', '\\D', '\\w', '\\W', '\\s', '\\S', '\\pL', '\\PL',
  '\\p{Greek}', '\\p{Lu}', '\\pN', '\\p{Han}', '[a-c]', '[^a]', '[[:alpha:]]', '[[:^digit:]]', '[\\d-]', '[é-ÿ]', '[😀-😂]',
  '\\x{1F600}', '\\x41', '\\Q.*\\E', '^', '$', '\\A', '\\z', '\\b', '\\B', '(?i:k)', '(?s:.)', '',
  // Go canonicalises class names: these are accepted by Go and spelled otherwise for re2js
  '\\p{greek}', '\\p{Letter}', '\\pl', '\\p{ASCII}', '\\P{ascii}', '\\p{^Greek}', '\\p{cased letter}', '[\\p{digit}x]', '[\\P{Lu}]',
];
/** Fragments Go's parser rejects (or that look invalid but are not), mixed into valid patterns. */
const BREAKERS = [
  '(', ')', '[', ']', '*', '+', '?', '{2}', '{1001}', '{2,1}', '\\', '\\1', '\\8', '\\C', '\\Z', '\\e', '(?<=a)', '(?!a)',
  '(?P<n>', '(?P<>a)', '(?<1a>x)', '(?P<n>a)(?P<n>b)', '[z-a]', '\\p{Foo}', '[[:foo:]]', '(?z)', '(?i', 'x**', 'x++',
  '\\x{110000}', '[]a]', '[^]', '(?U)', '(?m)', '(?-s)', 'a{,3}', '{',
  '\\p{Old_Italic}', '\\P{L&}', '\\p{Nag_Mundari}', '[\\p{SignWriting}]', '\\p{', '\\p', '\\p{}',
];

const regexPattern: fc.Arbitrary<string> = fc.letrec<{ re: string; piece: string }>((tie) => ({
  piece: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...ATOMS) },
    { weight: 2, arbitrary: fc.tuple(tie('re'), fc.constantFrom('(', '(?:', '(?P<g>', '(?<h>', '(?i)(', '(?U:')).map(([r, open]) => `${open}${r})`) },
    { weight: 3, arbitrary: fc.tuple(tie('piece'), fc.constantFrom('*', '+', '?', '*?', '+?', '??', '{2}', '{1,3}', '{0,}', '{2,}?')).map(([p, q]) => (p === '' ? q : `(?:${p})${q}`)) },
    { weight: 1, arbitrary: fc.constantFrom(...BREAKERS) },
  ),
  re: fc.oneof(
    { weight: 3, arbitrary: fc.array(tie('piece'), { minLength: 0, maxLength: 4 }).map((ps) => ps.join('')) },
    { weight: 1, arbitrary: fc.tuple(tie('re'), tie('re')).map(([a, b]) => `${a}|${b}`) },
  ),
})).re;

const count = fc.oneof(fc.constantFrom(-1, 0, 1, 2), fc.integer({ min: -3, max: 20 }));

/** Go's Expand syntax, bad references included. */
const replacement = fc.string({ unit: fc.constantFrom('$', '$$', '$1', '${1}', '$0', '$01', '$g', '${g}', '$h', '${g', '${}', '$1x', '$é', 'x', '-', '{', '}', '\\'), maxLength: 5 });

const template = fc
  .array(fc.oneof(fc.constantFrom('a', '/', '.', '-', 'é', '{', '}', '*'), regexPattern.map((r) => `{${r}}`)), { maxLength: 4 })
  .map((xs) => xs.join(''));
const delimiter = fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constantFrom('<', '>', 'é', '', '{{', '/') });

const GLOB_TOKENS = [
  'a', 'b', 'é', '😀', '.', '/', '!', '-', '*', '**', '***', '?', '[a-c]', '[!a]', '[ab]', '[a-cx]', '[]', '[!]', '[\\]]', '[-a]', '[a-]',
  '[!!]', '[a--]', '[é-😀]', '[!.]', '{a,b}', '{*.,}', '{a,{b,c}}', '{}', '{,}', '\\*', '\\{', '\\', '[', '[c-a]', '{', '}', ',', ']',
];
const glob = fc.array(fc.constantFrom(...GLOB_TOKENS), { maxLength: 5 }).map((xs) => xs.join(''));
const globSubject = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', '😀', '.', '/', '*', ','), maxLength: 6 });
const globDelimiters = fc.constantFrom<Json>(null, [], ['.'], ['.', '/'], ['/'], ['😀'], ['ab'], [''], [1]);

const INTERSECT_TOKENS = ['a', 'b', 'c', 'é', '😀', '.', '[a-c]', '[bc]', '[x]', '[]', '\\.', '\\*', '+', '*', '.*', '.+', 'a*', 'b+', '[a-c]*', ']', '[', '-', '[-a]', '[a-]', '[c-a]', '[a-\\]]', '%', '\\'];
const intersectGlob = fc.array(fc.constantFrom(...INTERSECT_TOKENS), { maxLength: 5 }).map((xs) => xs.join(''));

const cases: fc.Arbitrary<Case> = fc.oneof(
  fc.tuple(regexPattern, subject).map(([p, s]) => ({ fn: 'regex.match', args: [p, s] })),
  fc.oneof(regexPattern, fc.constant<Json>(1)).map((p) => ({ fn: 'regex.is_valid', args: [p] })),
  fc.tuple(regexPattern, subject, count).map(([p, s, n]) => ({ fn: 'regex.find_n', args: [p, s, n] })),
  fc.tuple(regexPattern, subject, count).map(([p, s, n]) => ({ fn: 'regex.find_all_string_submatch_n', args: [p, s, n] })),
  fc.tuple(regexPattern, subject).map(([p, s]) => ({ fn: 'regex.split', args: [p, s] })),
  fc.tuple(subject, regexPattern, replacement).map(([s, p, r]) => ({ fn: 'regex.replace', args: [s, p, r] })),
  fc.tuple(template, subject, delimiter, delimiter).map(([t, s, o, c]) => ({ fn: 'regex.template_match', args: [t, s, o ?? '{', c ?? '}'] })),
  fc.tuple(glob, globDelimiters, globSubject).map(([p, d, s]) => ({ fn: 'glob.match', args: [p, d, s] })),
  fc.tuple(intersectGlob, intersectGlob).map(([a, b]) => ({ fn: 'regex.globs_match', args: [a, b] })),
);

// ---------------------------------------------------------------- the two answers

function engineOutcome(c: Case): Outcome {
  try {
    const v = call(c.fn, ...c.args.map((a) => j(a)));
    return v === undefined ? { undefined: true } : { value: toJSON(v) };
  } catch (e) {
    if (e instanceof BuiltinError) return { error: e.message };
    return { error: `engine crash: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` };
  }
}

interface EvalOutput {
  result?: { expressions: { value: Record<string, unknown> }[] }[];
  errors?: { message: string; location?: { row: number } }[];
}

const dir = mkdtempSync(join(tmpdir(), 'toolgate-regex-opa-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** OPA's answers for a batch, from one `opa eval`. */
function opaOutcomes(batch: readonly Case[]): Outcome[] {
  const lines = ['package d'];
  batch.forEach((c, i) => lines.push(`r${i} := ${c.fn}(${c.args.map((_, k) => `input[${i}][${k}]`).join(', ')})`));
  const file = join(dir, 'cases.rego');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const r = runOpa(['eval', '--format', 'json', '--show-builtin-errors', '--stdin-input', '-d', file, 'data.d'], {
    input: JSON.stringify(batch.map((c) => c.args)),
  });
  const out = JSON.parse(r.stdout) as EvalOutput;
  const values = out.result?.[0]?.expressions[0]?.value ?? {};
  const errors = new Map<number, string>();
  for (const e of out.errors ?? []) {
    // Row 1 is the package line, so case i sits on row i + 2.
    if (e.location === undefined) throw new Error(`opa error without a location: ${e.message}`);
    errors.set(e.location.row - 2, e.message);
  }
  return batch.map((_, i) => {
    const err = errors.get(i);
    if (err !== undefined) return { error: err };
    return `r${i}` in values ? { value: values[`r${i}`] } : { undefined: true };
  });
}

/**
 * Disagreements that are understood, each with its reason. glob-intersection formats its error
 * message with the pattern as part of a Go format string, so a `%` in the pattern is read as a verb
 * (`%!d(MISSING)` and the like); the engine writes the pattern as it is.
 */
function explained(c: Case, engine: Outcome, opa: Outcome): string | undefined {
  if (c.fn === 'regex.globs_match' && 'error' in engine && 'error' in opa && c.args.some((a) => typeof a === 'string' && a.includes('%'))) {
    return 'globs_match error text: Go reads % in the pattern as a format verb';
  }
  return undefined;
}

const BATCH = 400;
const BATCHES = Number(process.env.TOOLGATE_REGEX_OPA_BATCHES ?? 6);
const SEED = Number(process.env.TOOLGATE_FC_SEED ?? 20261201);

describeWithOpa('regex.*, regex.globs_match and glob.match against opa eval', () => {
  it(`agree on ${BATCH * BATCHES} generated calls (seed ${SEED}), errors by message`, () => {
    const all = fc.sample(cases, { seed: SEED, numRuns: BATCH * BATCHES });
    const unexplained: string[] = [];
    const understood = new Map<string, number>();
    const kinds = new Map<string, number>();
    for (let b = 0; b < BATCHES; b++) {
      const batch = all.slice(b * BATCH, (b + 1) * BATCH);
      const theirs = opaOutcomes(batch);
      batch.forEach((c, i) => {
        const ours = engineOutcome(c);
        const opa = theirs[i]!;
        const kind = `${c.fn} ${'error' in opa ? 'error' : 'value'}`;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        if (JSON.stringify(ours) === JSON.stringify(opa)) return;
        const why = explained(c, ours, opa);
        if (why !== undefined) understood.set(why, (understood.get(why) ?? 0) + 1);
        else unexplained.push(`${c.fn}(${c.args.map((a) => JSON.stringify(a)).join(', ')})\n  engine: ${JSON.stringify(ours)}\n  opa:    ${JSON.stringify(opa)}`);
      });
    }
    // Both valid and invalid inputs must have been reached for the check to mean anything.
    for (const fn of ['regex.match', 'regex.find_n', 'regex.replace', 'regex.template_match', 'glob.match', 'regex.globs_match']) {
      expect(kinds.get(`${fn} value`) ?? 0, `${fn} values`).toBeGreaterThan(10);
      expect(kinds.get(`${fn} error`) ?? 0, `${fn} errors`).toBeGreaterThan(3);
    }
    expect(unexplained.slice(0, 15).join('\n')).toBe('');
  }, 120_000);
});
