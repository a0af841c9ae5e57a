/**
 * Runner for the Rego conformance corpus (`rego-conformance/`, formats described in its README):
 * OPA's topdown case format and regorus's interpreter case format. Takes file text, returns one outcome
 * per case; never throws for a case (every case is guarded by a step budget and a deadline).
 * Local decisions (skips, known differences) are listed in SKIPS, keyed by file + note.
 */
import { parseDocument } from 'yaml';
import { compileModules, parseValueTerm, RegoError, type QueryResult } from './index.ts';
import {
  ObjectValue,
  SetValue,
  type Value,
  compareValues,
  fromJSON,
  toJSON,
  toJSONText,
  valueEquals,
} from './value.ts';

export type CorpusFormat = 'opa' | 'regorus';

export interface CaseOutcome {
  readonly file: string;
  readonly note: string;
  readonly status: 'pass' | 'fail' | 'skip';
  /** For failures: what was expected and what came out; for skips: the reason. */
  readonly want?: string;
  readonly got?: string;
  readonly reason?: string;
}

export interface RunOptions {
  readonly maxSteps?: number;
  readonly deadlineMs?: number;
}

/**
 * Known differences, keyed by `<file suffix>#<note>` (file paths relative to the corpus set folder).
 * Each entry says why the case is not run: either the case's expectation contradicts OPA (OPA's answer is
 * the reference), or a known gap of this engine. Skipped cases count against the pass rate.
 */
export const SKIPS: ReadonlyMap<string, string> = new Map([
  // regorus expectations that contradict OPA (checked against OPA's source semantics)
  ['import/tests.yaml#import alias shadowed by rule', "regorus-specific expectation: OPA reports the rule as undefined when an import alias shadows it (the file's own comment says so)"],
  ['import/tests.yaml#overload error does not leak callee module imports', 'regorus swallows a function conflict in non-strict mode; OPA raises eval_conflict_error in both modes'],
  ['arithmetic/tests.yaml#float-precision', 'regorus computes with IEEE doubles (0.1 + 0.2 = 0.30000000000000004); OPA (and this engine) round to 64-bit-mantissa floats: 0.3, 0.10000000000000000001, 0.020000000000000000001, 3'],
  ['builtins/numbers/div.yaml#div', 'regorus computes with IEEE doubles (15.3 / 3 = 5.1000000000000005); OPA gives 5.1'],
  ['builtins/comparison/tests.yaml#order', "regorus orders sets before objects; OPA's total order is arrays < objects < sets"],
  ['data/tests.yaml#overriding refs in data produces no error', 'regorus lets the base document win over a rule at the same path; OPA refuses to compile ("conflicting rule for data path"); this engine gives the rule'],
  ['default/basic.yaml#invalid-var-in-some-in-collection', 'regorus expects []; in OPA `x` is an unsafe variable (compile error). Marked skip upstream'],
  ['default/basic.yaml#valid-every', 'regorus expects [5] for `[5 | every x in [1,2,3] { true }]`; OPA refuses to compile it (`declared var x unused`, rego_compile_error). Marked skip upstream'],
  ['negation/tests.yaml#not-more-undefined-OPA-INCOMPATIBLE', 'the note says it: OPA moves the operand `[p]` of `not [p]` out of the negation (without `import future.keywords.not`), so q3 is undefined and q4 true; regorus expects q3'],
  ['builtins/semver/compare.yaml#semver.compare passing', 'regorus expects [0, 1, -1, 1]; the fourth pair compares 1.8.15 with itself, 0 in OPA. Marked skip upstream'],
  ['builtins/semver/is_valid.yaml#semver.is_valid passing', 'regorus expects three results for four versions; "1.1.12-rc1+foo" is valid SemVer (true in OPA). Marked skip upstream'],
  ['builtins/semver/is_valid.yaml#semver.compare wrong arg1 type', 'semver.is_valid takes any value in OPA and returns false for a non-string; regorus raises an error'],
  ['builtins/strings/indexof.yaml#base', 'OPA raises "empty search character" for indexof(s, ""); regorus returns -1'],
  ['builtins/strings/sprintf.yaml#numeric formatting', 'OPA formats with Go fmt: %f of 3.14 is "3.140000" and %o of 64 is "100"; regorus prints "3.14" and "0O100"'],
  ['builtins/strings/sprintf.yaml#error cases', 'OPA formats a missing argument as Go does ("%!d(MISSING)"); regorus raises an error'],
  ['builtins/time/format.yaml#without-timezone-and-format', "OPA's default layout is RFC 3339 with nanoseconds, which trims trailing zeros (.73439Z); regorus keeps .734390Z"],
  ['builtins/time/format.yaml#with-timezone-and-no-format', "OPA's default layout is RFC 3339 with nanoseconds, which trims trailing zeros (.73439Z); regorus keeps .734390Z"],
  ['builtins/units/parse.yaml#all', 'units beyond exa (Q, R, Y, Z, h, da, d, c, µ, n, f, a, z, y, r, q) are regorus extensions (the file says "Not supported by OPA")'],
  ['builtins/units/parse_bytes.yaml#all', 'byte units beyond exa (zi, yi, ...) are regorus extensions; OPA reports them as not recognized'],
  ['builtins/units/parse.yaml#b suffix not supported', 'regorus leaves units.parse("1mb") undefined in strict mode; OPA raises "unit mb not recognized"'],
  ['builtins/arrays/slice.yaml#all', 'array.slice with a non-integer index: OPA raises an operand error (strict mode, as the case runs); regorus leaves it undefined'],
  ['builtins/numbers/intn.yaml#undefined', 'rand.intn with a non-integer bound: OPA raises an operand error (strict mode); regorus leaves it undefined'],
  ['builtins/numbers/mod.yaml#integral float too large to convert', 'OPA converts 100000000000000000e-1 exactly to the integer 10^16 and answers 0; regorus raises an error'],
  // known gaps of this engine (OPA's answer would pass)
  ['builtins/objects/json.patch.yaml#array-form path rejects an integral float index', 'OPA keeps a number written 1.0 apart from 1 and refuses it as an array index (undefined); this engine has one canonical form per number'],
]);

/** The corpus format for a path: regorus when a path segment is `regorus`, else OPA's. */
export function formatForPath(path: string): CorpusFormat {
  return path.split(/[\\/]/).includes('regorus') ? 'regorus' : 'opa';
}

interface RawCase {
  [k: string]: unknown;
}

/**
 * Parses a corpus file with `yaml` (integers as BigInt). `keepKeys` keeps mapping keys that are not
 * strings (`null:`, `true:`, `7:` in a regorus expected value are Rego keys of those types, as
 * regorus's harness reads them); they come back as `Map`s. A file `yaml` rejects is re-read once with
 * under-indented flow collections re-indented (PyYAML and older js-yaml accept those; the upstream file
 * `regorus/loop/chained.yaml` has one), then leniently (duplicate keys and other errors the YAML
 * spec lets a reader skip are tolerated), and otherwise the first parse error is thrown.
 */
export function parseCorpusFile(text: string, keepKeys = false): RawCase[] {
  const read = (t: string, lenient = false): unknown | undefined => {
    const d = parseDocument(t, { intAsBigInt: true, ...(lenient ? { strict: false, uniqueKeys: false } : {}) });
    if (d.errors.length > 0) return undefined;
    return keepKeys ? plainStringMaps(d.toJS({ mapAsMap: true })) : d.toJS();
  };
  let doc = read(text);
  if (doc === undefined) doc = read(reindentFlowCollections(text));
  if (doc === undefined) doc = read(text, true);
  if (doc === undefined) throw parseDocument(text).errors[0]!;
  const cases = (doc as { cases?: unknown } | null)?.cases;
  return Array.isArray(cases) ? (cases as RawCase[]) : [];
}

/** Maps whose keys are all strings become plain objects; others stay `Map`s (recursively). */
function plainStringMaps(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(plainStringMaps);
  if (x instanceof Map) {
    const entries = [...x.entries()].map(([k, v]) => [k, plainStringMaps(v)] as const);
    if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries);
    return new Map(entries);
  }
  return x;
}

/**
 * Indents the continuation lines of a flow collection (`[ ... ]`, `{ ... }` spanning lines) deeper than
 * the line that opened it. Block scalars (`key: |`) are left alone; quotes and comments are respected.
 */
export function reindentFlowCollections(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let flowIndent = 0;
  let blockParent = -1;
  for (let line of text.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (blockParent >= 0) {
      if (line.trim() === '' || indent > blockParent) {
        out.push(line);
        continue;
      }
      blockParent = -1;
    }
    if (depth > 0 && line.trim() !== '' && indent <= flowIndent) line = ' '.repeat(flowIndent + 2 - indent) + line;
    const before = depth;
    let quote = '';
    for (let i = 0; i < line.length; i++) {
      const c = line[i] as string;
      if (quote) {
        if (c === '\\' && quote === '"') i++;
        else if (c === quote) quote = '';
        continue;
      }
      if (c === '"' || c === "'") quote = c;
      else if (c === '#' && (i === 0 || /\s/.test(line[i - 1] as string))) break;
      else if (c === '[' || c === '{') depth++;
      else if (c === ']' || c === '}') depth = Math.max(0, depth - 1);
    }
    if (before === 0 && depth > 0) flowIndent = indent;
    if (depth === 0 && /(^|:|-)\s*[|>][-+0-9]*\s*(#.*)?$/.test(line)) blockParent = indent;
    out.push(line);
  }
  return out.join('\n');
}

/** OPA's result comparison form: sets to sorted arrays, non-string keys to JSON text. */
function normalizeOpa(v: Value): Value {
  return fromJSON(toJSON(v));
}

function sortedArray(v: Value): Value {
  if (!Array.isArray(v)) return v;
  return [...v].sort(compareValues);
}

/** Decodes regorus's special encodings (`set!`, `object!`) in expected values. */
function fromRegorus(x: unknown): Value {
  if (Array.isArray(x)) return x.map(fromRegorus);
  if (x instanceof Map) {
    const out = new ObjectValue();
    for (const [k, v] of x) out.set(fromRegorus(k), fromRegorus(v));
    return out;
  }
  if (x !== null && typeof x === 'object') {
    const o = x as Record<string, unknown>;
    const keys = Object.keys(o);
    if (keys.length === 1 && keys[0] === 'set!' && Array.isArray(o['set!'])) return new SetValue((o['set!'] as unknown[]).map(fromRegorus));
    if (keys.length === 1 && keys[0] === 'object!' && Array.isArray(o['object!'])) {
      const out = new ObjectValue();
      for (const e of o['object!'] as { key: unknown; value: unknown }[]) out.set(fromRegorus(e.key), fromRegorus(e.value));
      return out;
    }
    const out = new ObjectValue();
    for (const k of keys) out.set(k, fromRegorus(o[k]));
    return out;
  }
  return fromJSON(x);
}

function show(v: unknown): string {
  if (v instanceof Error) return `error: ${v.message}`;
  if (v === undefined) return 'undefined';
  try {
    return toJSONText(v as Value);
  } catch {
    return String(v);
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Runs every case of one corpus file. */
export function runCorpusFile(file: string, text: string, format: CorpusFormat, opts: RunOptions = {}): CaseOutcome[] {
  let cases: RawCase[];
  try {
    cases = parseCorpusFile(text, format === 'regorus');
  } catch (e) {
    return [{ file, note: '(file)', status: 'fail', want: 'a readable YAML file', got: errorText(e) }];
  }
  return cases.map((c, i) => {
    const note = typeof c.note === 'string' ? c.note : `case ${i}`;
    const skipKey = [...SKIPS.keys()].find((k) => {
      const [f, n] = k.split('#') as [string, string];
      return file.endsWith(f) && n === note;
    });
    if (skipKey) return { file, note, status: 'skip', reason: SKIPS.get(skipKey) as string };
    // Cases marked `skip` upstream are run too: they count against the pass rate either way, and several hold OPA's answer.
    try {
      return format === 'opa' ? runOpaCase(file, note, c, opts) : runRegorusCase(file, note, c, opts);
    } catch (e) {
      return { file, note, status: 'fail', want: 'no crash', got: `harness error: ${errorText(e)}` };
    }
  });
}

function limits(opts: RunOptions) {
  return { maxSteps: opts.maxSteps ?? 5_000_000, deadlineMs: opts.deadlineMs ?? 5_000 };
}

function moduleList(c: RawCase, prefix: (i: number) => string): { name: string; text: string }[] {
  const mods = Array.isArray(c.modules) ? (c.modules as unknown[]) : [];
  return mods.map((m, i) => ({ name: prefix(i), text: String(m) }));
}

function runOpaCase(file: string, note: string, c: RawCase, opts: RunOptions): CaseOutcome {
  const wantError = typeof c.want_error === 'string' ? c.want_error : undefined;
  const wantCode = typeof c.want_error_code === 'string' ? c.want_error_code : undefined;
  const expectError = wantError !== undefined || wantCode !== undefined;
  let results: QueryResult[];
  let vars: readonly string[];
  try {
    const policy = compileModules(moduleList(c, (i) => `test-${i}.rego`), { regoVersion: 'v1' });
    const q = policy.prepareQuery(String(c.query));
    vars = q.vars;
    let input: Value | undefined;
    if (typeof c.input_term === 'string') input = parseValueTerm(c.input_term);
    else if ('input' in c && c.input !== undefined) input = fromJSON(c.input);
    const data = c.data === undefined || c.data === null ? undefined : fromJSON(c.data);
    results = q.evaluate({ input, data, strict: c.strict_error === true, now: 1_700_000_000_000_000_000n, ...limits(opts) });
  } catch (e) {
    if (!expectError) return { file, note, status: 'fail', want: show(c.want_result), got: `error: ${errorText(e)}` };
    const code = e instanceof RegoError ? e.regoCode : undefined;
    const msg = errorText(e);
    if (wantCode !== undefined && code !== wantCode) return { file, note, status: 'fail', want: `error code ${wantCode}`, got: `${code}: ${msg}` };
    if (wantError !== undefined && !msg.includes(wantError)) return { file, note, status: 'fail', want: `error containing ${JSON.stringify(wantError)}`, got: msg };
    return { file, note, status: 'pass' };
  }
  if (expectError) return { file, note, status: 'fail', want: `error ${wantCode ?? ''} ${wantError ?? ''}`.trim(), got: `${results.length} result(s)` };
  const want = Array.isArray(c.want_result) ? (c.want_result as unknown[]) : [];
  const sortB = c.sort_bindings === true;
  const key = (o: ObjectValue): string => toJSONText(o);
  const norm = (o: ObjectValue): ObjectValue => {
    const out = new ObjectValue();
    for (const [k, v] of o.entries()) out.set(k, sortB ? sortedArray(normalizeOpa(v)) : normalizeOpa(v));
    return out;
  };
  const gotSet = new Map<string, ObjectValue>();
  for (const r of results) {
    const o = new ObjectValue();
    for (const name of vars) {
      const v = r.bindings.get(name);
      if (v !== undefined) o.set(name, v);
    }
    const n = norm(o);
    gotSet.set(key(n), n);
  }
  const wantSet = new Map<string, ObjectValue>();
  for (const w of want) {
    const n = norm(fromJSON(w) as ObjectValue);
    wantSet.set(key(n), n);
  }
  const ok =
    gotSet.size === wantSet.size &&
    [...wantSet.values()].every((w) => [...gotSet.values()].some((g) => valueEquals(g, w)));
  if (ok) return { file, note, status: 'pass' };
  return {
    file,
    note,
    status: 'fail',
    want: `[${[...wantSet.keys()].join(', ')}]`,
    got: `[${[...gotSet.keys()].join(', ')}]`,
  };
}

function runRegorusCase(file: string, note: string, c: RawCase, opts: RunOptions): CaseOutcome {
  const expectError = 'error' in c && c.error !== undefined;
  const strict = c.strict === undefined ? true : c.strict === true;
  const v1 = file.endsWith('binding/bindings.yaml');
  const actual: Value[] = [];
  try {
    const policy = compileModules(moduleList(c, (i) => `rego_${i}`), { regoVersion: v1 ? 'v1' : 'v0' });
    const q = policy.prepareQuery(String(c.query));
    const data = c.data === undefined || c.data === null ? undefined : fromJSON(c.data);
    const rawInput = c.input;
    const inputs: (Value | undefined)[] =
      rawInput !== null && typeof rawInput === 'object' && !Array.isArray(rawInput) && 'many!' in (rawInput as object)
        ? ((rawInput as { 'many!': unknown[] })['many!'] ?? []).map((x) => fromJSON(x))
        : [rawInput === undefined ? undefined : fromJSON(rawInput)];
    for (const input of inputs) {
      const results = q.evaluate({ input, data, strict, keepSingleFalse: true, now: 1_700_000_000_000_000_000n, ...limits(opts) });
      for (const r of results) {
        if (r.bindings.size > 0 && results.length >= 1 && q.vars.length > 0) {
          const o = new ObjectValue();
          for (const [k, v] of r.bindings) o.set(k, v);
          actual.push(o);
        } else if (results.length === 1) {
          for (const e of r.expressions) actual.push(e);
        } else {
          actual.push(r.expressions.length === 1 ? (r.expressions[0] as Value) : r.expressions);
        }
      }
    }
  } catch (e) {
    if (expectError) return { file, note, status: 'pass' };
    return { file, note, status: 'fail', want: 'want_result' in c ? show(fromRegorus(c.want_result)) : 'no error', got: `error: ${errorText(e)}` };
  }
  if (expectError) return { file, note, status: 'fail', want: `error ${JSON.stringify(c.error)}`, got: show(actual) };
  if (!('want_result' in c)) {
    if (c.no_result === true && actual.length > 0) return { file, note, status: 'fail', want: 'no result', got: show(actual) };
    return { file, note, status: 'pass' };
  }
  const wr = c.want_result;
  const want: Value[] =
    wr !== null && typeof wr === 'object' && !Array.isArray(wr) && 'many!' in (wr as object)
      ? ((wr as { 'many!': unknown[] })['many!'] ?? []).map(fromRegorus)
      : [fromRegorus(wr)];
  const ok = want.length === actual.length && want.every((w, i) => valueEquals(w, actual[i] as Value));
  if (ok) return { file, note, status: 'pass' };
  return { file, note, status: 'fail', want: show(want), got: show(actual) };
}
