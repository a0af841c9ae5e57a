/**
 * Runs the cases of a Rego conformance corpus file with the builtin engine and says, for each,
 * whether it passed, failed, was skipped (known-differences.ts) or had nothing to check. Takes file
 * text, returns one outcome per case; never throws for a case (each runs under a step budget and a
 * deadline).
 *
 * An error case passes only on the error asked for: OPA's cases give the code and/or a text the
 * message must contain; regorus's cases word errors regorus's way, so they are held to OPA's code and
 * message for the case (opa-answers.ts), or to regorus's text when the engine's message contains it.
 */
import { compileModules, parseValueTerm, RegoError, type QueryResult } from '../../rego/index.ts';
import { ObjectValue, SetValue, type Value, compareValues, fromJSON, toJSON, toJSONText, valueEquals } from '../../rego/index.ts';
import { parseCorpusFile, type CorpusFormat, type RawCase } from './corpus-file.ts';
import { SKIPS, V1_22_3_ERROR_TEXTS, skipText } from './known-differences.ts';
import { REGORUS_OPA_ANSWERS, type OpaAnswer } from './opa-answers.ts';

export type CaseStatus = 'pass' | 'fail' | 'skip' | 'unchecked';

export interface CaseOutcome {
  readonly file: string;
  /** The case's position in its file (0-based). */
  readonly index: number;
  readonly note: string;
  /** `unchecked`: the case states no expectation (no result, no error), so it proves nothing. */
  readonly status: CaseStatus;
  /** For failures: what was expected and what came out, as text; for skips and unchecked cases: why. */
  readonly want?: string;
  readonly got?: string;
  readonly reason?: string;
}

export interface RunOptions {
  readonly maxSteps?: number;
  readonly deadlineMs?: number;
  /** OPA's answers to the regorus error cases (default: the recorded ones). */
  readonly opaAnswers?: ReadonlyMap<string, { readonly note: string; readonly answer: OpaAnswer }>;
}

/** The key of a case in the recorded OPA answers. */
export function caseKey(file: string, index: number): string {
  return `${file.replace(/\\/g, '/')}:${index}`;
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

/** A plain value read from the corpus YAML (BigInt integers, Maps for non-string keys) as Rego JSON text. */
function showPlain(x: unknown): string {
  try {
    return toJSONText(fromRegorus(x));
  } catch {
    return String(x);
  }
}

function showValue(v: Value): string {
  try {
    return toJSONText(v);
  } catch {
    return String(v);
  }
}

function showValues(vs: readonly Value[]): string {
  return `[${vs.map(showValue).join(', ')}]`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** How an error came out, as the failure line shows it. */
function showError(e: unknown): string {
  return e instanceof RegoError ? `error ${e.regoCode}: ${e.message}` : `error (not a Rego error): ${errorText(e)}`;
}

/** The entry of a map keyed `<file suffix>#<note>` for this case. */
function caseEntry<T>(map: ReadonlyMap<string, T>, file: string, note: string): T | undefined {
  const f = file.replace(/\\/g, '/');
  for (const [k, d] of map) {
    const at = k.lastIndexOf('#');
    if (k.slice(at + 1) === note && (f === k.slice(0, at) || f.endsWith(`/${k.slice(0, at)}`))) return d;
  }
  return undefined;
}

function skipReason(file: string, note: string): string | undefined {
  const d = caseEntry(SKIPS, file, note);
  return d === undefined ? undefined : skipText(d);
}

/** Runs every case of one corpus file. */
export function runCorpusFile(file: string, text: string, format: CorpusFormat, opts: RunOptions = {}): CaseOutcome[] {
  let cases: RawCase[];
  try {
    cases = parseCorpusFile(text, format === 'regorus');
  } catch (e) {
    return [{ file, index: 0, note: '(file)', status: 'fail', want: 'a readable YAML file', got: errorText(e) }];
  }
  return cases.map((c, index) => {
    const note = typeof c.note === 'string' ? c.note : `case ${index}`;
    const reason = skipReason(file, note);
    if (reason !== undefined) return { file, index, note, status: 'skip', reason };
    // Cases marked `skip` upstream are run too: they count against the pass rate either way, and several hold OPA's answer.
    try {
      const v = format === 'opa' ? runOpaCase(c, opts, caseEntry(V1_22_3_ERROR_TEXTS, file, note)) : runRegorusCase(file, index, note, c, opts);
      return { file, index, note, ...v };
    } catch (e) {
      return { file, index, note, status: 'fail', want: 'no crash', got: `harness error: ${errorText(e)}` };
    }
  });
}

type Verdict = Omit<CaseOutcome, 'file' | 'index' | 'note'>;

function limits(opts: RunOptions) {
  return { maxSteps: opts.maxSteps ?? 5_000_000, deadlineMs: opts.deadlineMs ?? 5_000 };
}

function moduleList(c: RawCase, prefix: (i: number) => string): { name: string; text: string }[] {
  const mods = Array.isArray(c.modules) ? (c.modules as unknown[]) : [];
  return mods.map((m, i) => ({ name: prefix(i), text: String(m) }));
}

/** OPA's check of an expected error: the code must be equal, the text must contain the given part. */
function checkOpaError(e: unknown, wantCode: string | undefined, wantText: string | undefined): Verdict {
  const want = [wantCode !== undefined ? `error ${wantCode}` : 'an error', wantText !== undefined ? `containing ${JSON.stringify(wantText)}` : ''].join(' ').trim();
  if (!(e instanceof RegoError)) return { status: 'fail', want, got: showError(e) };
  if (wantCode !== undefined && e.regoCode !== wantCode) return { status: 'fail', want, got: showError(e) };
  if (wantText !== undefined && !e.message.includes(wantText)) return { status: 'fail', want, got: showError(e) };
  return { status: 'pass' };
}

/** 2025-06-15T15:06:40Z in nanoseconds, the time `time.now_ns` and certificate checks see in an OPA case. */
const OPA_CASE_NOW = 1_750_000_000_000_000_000n;

/** `newerErrorText`: the text v1.22.3's copy of the case expects instead (V1_22_3_ERROR_TEXTS). */
function runOpaCase(c: RawCase, opts: RunOptions, newerErrorText?: string): Verdict {
  const wantError = newerErrorText ?? (typeof c.want_error === 'string' ? c.want_error : undefined);
  const wantCode = typeof c.want_error_code === 'string' ? c.want_error_code : undefined;
  const expectError = wantError !== undefined || wantCode !== undefined;
  const expectResult = Array.isArray(c.want_result);
  if (!expectError && !expectResult) return { status: 'unchecked', reason: 'the case gives neither want_result nor want_error / want_error_code' };
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
    // OPA's runner reads the wall clock; a fixed time after the corpus's certificates begin (2023-11-29) keeps runs repeatable
    results = q.evaluate({ input, data, strict: c.strict_error === true, now: OPA_CASE_NOW, ...limits(opts) });
  } catch (e) {
    if (!expectError) return { status: 'fail', want: showPlain(c.want_result), got: showError(e) };
    return checkOpaError(e, wantCode, wantError);
  }
  const sortB = c.sort_bindings === true;
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
    gotSet.set(toJSONText(n), n);
  }
  if (expectError) return { status: 'fail', want: `error ${wantCode ?? ''} ${wantError !== undefined ? JSON.stringify(wantError) : ''}`.trim(), got: `[${[...gotSet.keys()].join(', ')}]` };
  const wantSet = new Map<string, ObjectValue>();
  for (const w of c.want_result as unknown[]) {
    const n = norm(fromJSON(w) as ObjectValue);
    wantSet.set(toJSONText(n), n);
  }
  const ok = gotSet.size === wantSet.size && [...wantSet.values()].every((w) => [...gotSet.values()].some((g) => valueEquals(g, w)));
  if (ok) return { status: 'pass' };
  return { status: 'fail', want: `[${[...wantSet.keys()].join(', ')}]`, got: `[${[...gotSet.keys()].join(', ')}]` };
}

/** The answer recorded for a case, its file named relative to the set folder or by any longer path. */
function recordedAnswer(answers: NonNullable<RunOptions['opaAnswers']>, file: string, index: number) {
  const parts = file.replace(/\\/g, '/').split('/');
  for (let i = 0; i < parts.length; i++) {
    const r = answers.get(caseKey(parts.slice(i).join('/'), index));
    if (r !== undefined) return r;
  }
  return undefined;
}

/**
 * A regorus error case: regorus's text when the engine's message contains it, else OPA's own answer
 * for the case (the same code and message). Without a recorded answer an error alone proves nothing.
 */
function checkRegorusError(e: unknown, regorusText: string, recorded: OpaAnswer | undefined): Verdict {
  if (!(e instanceof RegoError)) return { status: 'fail', want: `a Rego error (regorus: ${JSON.stringify(regorusText)})`, got: showError(e) };
  if (regorusText !== '' && e.message.includes(regorusText)) return { status: 'pass' };
  if (recorded === undefined) return { status: 'fail', want: `an error containing ${JSON.stringify(regorusText)} (no OPA answer recorded for this case)`, got: showError(e) };
  if (recorded.kind !== 'error') return { status: 'fail', want: `OPA's result ${showPlain(recorded.result)}`, got: showError(e) };
  if (e.regoCode === recorded.code && e.regoMessage === recorded.message) return { status: 'pass' };
  return { status: 'fail', want: `error ${recorded.code}: ${recorded.message} (OPA)`, got: `error ${e.regoCode}: ${e.regoMessage}` };
}

function runRegorusCase(file: string, index: number, note: string, c: RawCase, opts: RunOptions): Verdict {
  const expectError = 'error' in c && c.error !== undefined && c.error !== null;
  const recorded = recordedAnswer(opts.opaAnswers ?? REGORUS_OPA_ANSWERS, file, index);
  const answer = recorded !== undefined && recorded.note === note ? recorded.answer : undefined;
  if (expectError && answer?.kind === 'result') {
    return { status: 'skip', reason: `regorus expects an error (${JSON.stringify(String(c.error))}); OPA answers ${JSON.stringify(answer.result)}` };
  }
  if (!expectError && !('want_result' in c) && c.no_result !== true) return { status: 'unchecked', reason: 'the case gives neither want_result, no_result nor error' };
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
    if (expectError) return checkRegorusError(e, String(c.error), answer);
    return { status: 'fail', want: 'want_result' in c ? showPlain(c.want_result) : 'no result', got: showError(e) };
  }
  if (expectError) {
    const want = answer?.kind === 'error' ? `error ${answer.code}: ${answer.message} (OPA)` : `an error (regorus: ${JSON.stringify(String(c.error))})`;
    return { status: 'fail', want, got: showValues(actual) };
  }
  if (!('want_result' in c)) {
    if (actual.length > 0) return { status: 'fail', want: 'no result', got: showValues(actual) };
    return { status: 'pass' };
  }
  const wr = c.want_result;
  const want: Value[] =
    wr !== null && typeof wr === 'object' && !Array.isArray(wr) && 'many!' in (wr as object)
      ? ((wr as { 'many!': unknown[] })['many!'] ?? []).map(fromRegorus)
      : [fromRegorus(wr)];
  const ok = want.length === actual.length && want.every((w, i) => valueEquals(w, actual[i] as Value));
  if (ok) return { status: 'pass' };
  return { status: 'fail', want: showValues(want), got: showValues(actual) };
}
