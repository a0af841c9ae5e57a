/**
 * Differential harness: the same modules, data, input and query evaluated by the builtin Rego engine
 * (src/rego) and by the real OPA (`opa run --server`, REST API), each answer normalised to one
 * comparable form.
 *
 * - Results: each solution as canonical JSON (object keys sorted; sets as arrays in the order the
 *   engine or OPA prints them, which is OPA's value order; non-string keys as their JSON text, as
 *   OPA's REST API writes them; numbers by value, so OPA's `3.50` equals the engine's `3.5`), the
 *   solutions sorted, duplicates kept.
 * - Errors: the phase (compile or eval) and OPA's error codes. An engine error agrees with an OPA
 *   error when its code is one of the codes OPA reported (OPA reports every compile error of a
 *   module; the engine stops at the first).
 *
 * Why the server and not `opa eval`: one `opa eval` costs ~40 ms of process start; a PUT of a policy
 * and a POST of a query on a kept-alive connection cost ~3 ms. Two REST details shape the harness:
 * POST /v1/query ignores `?strict-builtin-errors` (OPA 1.22.3 answers `{}` for a failing builtin
 * there), while POST /v1/data/{path} honours it; so strict cases are asked through /v1/data when the
 * query is `data.a.b = x` (or a bare data ref) and through `opa eval --strict-builtin-errors`
 * otherwise. Non-strict is OPA's default on both APIs (a builtin error makes the expression
 * undefined), which is also the engine's default. Eval errors come back as HTTP 500 with
 * `errors[].code` (eval_conflict_error, eval_builtin_error, eval_type_error), compile and parse
 * errors as HTTP 400 with the same shape as `opa eval --format json`'s `errors`.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileModules, RegoError } from '../../src/rego/index.ts';
import { ObjectValue, SetValue, type Value } from '../../src/rego/value.ts';
import { parseNumber } from '../../src/rego/number-value.ts';
import { scalarText, toJSONText } from '../../src/rego/value-json.ts';
import { runOpa, startOpaServer, type OpaServer } from './opa.ts';

export interface DiffModule {
  readonly name: string;
  readonly text: string;
}

export interface DiffCase {
  readonly modules: readonly DiffModule[];
  /** Base document; must be an object (or absent). */
  readonly data?: Value;
  /** Must be JSON-representable (no sets, string keys only): it is sent to OPA as JSON. */
  readonly input?: Value;
  readonly query: string;
  readonly strict?: boolean;
}

export type Outcome =
  | { readonly kind: 'results'; readonly results: readonly string[] }
  | { readonly kind: 'error'; readonly phase: 'compile' | 'eval'; readonly codes: readonly string[]; readonly message: string };

// ---------------------------------------------------------------- normal form

/** Canonical JSON text of a value as OPA's REST API writes it, object keys sorted. */
export function canonicalText(v: Value): string {
  const scalar = scalarText(v, (s) => JSON.stringify(s));
  if (scalar !== undefined) return scalar;
  if (Array.isArray(v)) return `[${v.map(canonicalText).join(',')}]`;
  if (v instanceof SetValue) return `[${v.values().map(canonicalText).join(',')}]`;
  const entries: [string, string][] = [];
  for (const [k, x] of (v as ObjectValue).entries()) entries.push([typeof k === 'string' ? k : canonicalText(k), canonicalText(x)]);
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${x}`).join(',')}}`;
}

/** Parses JSON text into a Value keeping every number exact (OPA writes `1e400`, `3.50`, 2^64). */
export function parseExactJSON(text: string): Value {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  const value = (): Value => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const o = new ObjectValue();
      ws();
      if (text[i] === '}') return i++, o;
      for (;;) {
        ws();
        const k = str();
        ws();
        if (text[i++] !== ':') throw new SyntaxError(`expected : at ${i}`);
        o.set(k, value());
        ws();
        const d = text[i++];
        if (d === '}') return o;
        if (d !== ',') throw new SyntaxError(`expected , or } at ${i}`);
      }
    }
    if (c === '[') {
      i++;
      const a: Value[] = [];
      ws();
      if (text[i] === ']') return i++, a;
      for (;;) {
        a.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return a;
        if (d !== ',') throw new SyntaxError(`expected , or ] at ${i}`);
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) return (i += 4), true;
    if (text.startsWith('false', i)) return (i += 5), false;
    if (text.startsWith('null', i)) return (i += 4), null;
    // sticky, not a slice: an RSA modulus is a number of 600+ digits
    const num = /-?\d+(\.\d+)?([eE][-+]?\d+)?/y;
    num.lastIndex = i;
    const m = num.exec(text);
    if (!m) throw new SyntaxError(`unexpected ${c} at ${i}`);
    i += m[0].length;
    const n = parseNumber(m[0]);
    if (n === undefined) throw new SyntaxError(`number out of range: ${m[0]}`);
    return n;
  };
  const str = (): string => {
    if (text[i] !== '"') throw new SyntaxError(`expected string at ${i}`);
    let j = i + 1;
    while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    const s = JSON.parse(text.slice(i, j + 1)) as string;
    i = j + 1;
    return s;
  };
  const v = value();
  ws();
  if (i !== text.length) throw new SyntaxError(`trailing text at ${i}`);
  return v;
}

function resultsOutcome(solutions: Value[]): Outcome {
  return { kind: 'results', results: solutions.map(canonicalText).sort() };
}

/** Why two outcomes differ, or undefined when they agree. */
export function compareOutcomes(engine: Outcome, opa: Outcome): string | undefined {
  if (engine.kind === 'results' && opa.kind === 'results') {
    const a = engine.results.join('\n');
    const b = opa.results.join('\n');
    return a === b ? undefined : `results differ:\n  engine: ${show(engine)}\n  opa:    ${show(opa)}`;
  }
  if (engine.kind === 'error' && opa.kind === 'error') {
    return opa.codes.includes(engine.codes[0] ?? '') ? undefined : `error codes differ:\n  engine: ${show(engine)}\n  opa:    ${show(opa)}`;
  }
  return `error vs no error:\n  engine: ${show(engine)}\n  opa:    ${show(opa)}`;
}

export function show(o: Outcome): string {
  if (o.kind === 'results') return `[${o.results.join(', ')}]`;
  return `${o.phase} error ${o.codes.join('|')}: ${o.message.split('\n')[0]}`;
}

/** Short class of an outcome for statistics: `results:N`, `undefined`, or the error code. */
export function outcomeClass(o: Outcome): string {
  if (o.kind === 'error') return o.codes[0] ?? 'error';
  if (o.results.length === 0) return 'undefined';
  return 'defined';
}

// ---------------------------------------------------------------- the engine's answer

function engineError(e: unknown, phase: 'compile' | 'eval'): Outcome {
  if (e instanceof RegoError) return { kind: 'error', phase: e.regoCode.startsWith('rego_') ? 'compile' : phase, codes: [e.regoCode], message: e.message };
  return { kind: 'error', phase, codes: ['engine_crash'], message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

const LIMITS = { maxSteps: 5_000_000, deadlineMs: 5_000 };
const NOW = 1_700_000_000_000_000_000n;

/** The builtin engine's answer: each solution's bindings of the query's variables. */
export function engineOutcome(c: DiffCase): Outcome {
  let q;
  try {
    q = compileModules(c.modules, { regoVersion: 'v1' }).prepareQuery(c.query);
  } catch (e) {
    return engineError(e, 'compile');
  }
  try {
    const rs = q.evaluate({ input: c.input, data: c.data, strict: c.strict === true, now: NOW, ...LIMITS });
    return resultsOutcome(
      rs.map((r) => {
        const o = new ObjectValue();
        for (const name of q.vars) {
          const v = r.bindings.get(name);
          if (v !== undefined) o.set(name, v);
        }
        return o;
      }),
    );
  } catch (e) {
    return engineError(e, 'eval');
  }
}

/** The engine's value of one data path (a package or a rule), as a one-solution outcome `{"x": value}`. */
export function engineDataOutcome(modules: readonly DiffModule[], path: readonly string[], opts: { data?: Value; input?: Value; strict?: boolean }): Outcome {
  let policy;
  try {
    policy = compileModules(modules, { regoVersion: 'v1' });
  } catch (e) {
    return engineError(e, 'compile');
  }
  try {
    const v = policy.evalRule(`data.${path.join('.')}`, { ...opts, now: NOW, ...LIMITS });
    return resultsOutcome(v === undefined ? [] : [ObjectValue.ofDistinctKeys(['x'], [v])]);
  } catch (e) {
    return engineError(e, 'eval');
  }
}

// ---------------------------------------------------------------- OPA's answer

interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

interface OpaErrorBody {
  message?: string;
  errors?: { code?: string; message?: string; location?: { file?: string; row?: number } }[];
}

function opaError(body: string, phase: 'compile' | 'eval'): Outcome {
  let parsed: OpaErrorBody;
  try {
    parsed = JSON.parse(body) as OpaErrorBody;
  } catch {
    return { kind: 'error', phase, codes: ['opa_unreadable'], message: body };
  }
  const errs = parsed.errors ?? [];
  const codes = errs.map((e) => e.code ?? 'unknown');
  const message = errs.map((e) => `${e.location?.file ?? ''}:${e.location?.row ?? ''}: ${e.code}: ${e.message}`).join('\n') || (parsed.message ?? body);
  const first = codes[0] ?? '';
  return { kind: 'error', phase: first.startsWith('rego_') ? 'compile' : phase, codes: codes.length ? codes : ['unknown'], message };
}

/** `data.a.b = x`, `x = data.a.b` or a bare `data.a.b`: the path and the binding name (if any). */
export function dataRefQuery(query: string): { path: string[]; binding?: string } | undefined {
  const q = query.trim();
  const ref = String.raw`data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`;
  let m = new RegExp(`^${ref}\\s*(?:=|:=)\\s*([A-Za-z_][A-Za-z0-9_]*)$`).exec(q);
  if (m) return { path: m[1]!.slice(1).split('.'), binding: m[2]! };
  m = new RegExp(`^([A-Za-z_][A-Za-z0-9_]*)\\s*(?:=|:=)\\s*${ref}$`).exec(q);
  if (m) return { path: m[2]!.slice(1).split('.'), binding: m[1]! };
  m = new RegExp(`^${ref}$`).exec(q);
  if (m) return { path: m[1]!.slice(1).split('.') };
  return undefined;
}

/** A running `opa run --server` and the requests the harness makes of it. */
export class OpaOracle {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  private readonly host: string;
  private readonly port: number;
  private nextId = 0;

  private constructor(readonly server: OpaServer) {
    const u = new URL(server.url);
    this.host = u.hostname;
    this.port = Number(u.port);
  }

  static async start(): Promise<OpaOracle> {
    return new OpaOracle(await startOpaServer([], { waitBundles: false }));
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    await this.server.stop();
  }

  request(method: string, path: string, body?: string): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      const r = http.request(
        { host: this.host, port: this.port, method, path, agent: this.agent, headers: { 'content-type': 'application/json' } },
        (res) => {
          let d = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (d += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: d }));
        },
      );
      r.on('error', reject);
      r.end(body);
    });
  }

  /** Replaces the whole base document. */
  async putData(path: readonly string[], data: Value): Promise<void> {
    const r = await this.request('PUT', `/v1/data${path.map((p) => `/${encodeURIComponent(p)}`).join('')}`, toJSONText(data));
    if (r.status !== 204) throw new Error(`opa PUT data answered ${r.status}: ${r.body}`);
  }

  /** Installs a policy; undefined when OPA accepted it, else its compile error. */
  async putPolicy(id: string, text: string): Promise<Outcome | undefined> {
    const r = await this.request('PUT', `/v1/policies/${encodeURIComponent(id)}`, text);
    if (r.status === 200) return undefined;
    if (r.status === 400) return opaError(r.body, 'compile');
    throw new Error(`opa PUT policy answered ${r.status}: ${r.body}`);
  }

  async deletePolicy(id: string): Promise<void> {
    const r = await this.request('DELETE', `/v1/policies/${encodeURIComponent(id)}`);
    if (r.status !== 200 && r.status !== 404) throw new Error(`opa DELETE policy answered ${r.status}: ${r.body}`);
  }

  /** POST /v1/data/PATH: the document's value as a one-solution outcome `{"x": value}` (none when undefined). */
  async dataOutcome(path: readonly string[], input: Value | undefined, strict: boolean, binding = 'x'): Promise<Outcome> {
    const body = input === undefined ? '{}' : `{"input":${toJSONText(input)}}`;
    const r = await this.request('POST', `/v1/data/${path.map(encodeURIComponent).join('/')}${strict ? '?strict-builtin-errors=true' : ''}`, body);
    if (r.status === 400) return opaError(r.body, 'compile');
    if (r.status !== 200) return opaError(r.body, 'eval');
    const res = parseExactJSON(r.body) as ObjectValue;
    const v = res.get('result');
    return resultsOutcome(v === undefined ? [] : [ObjectValue.ofDistinctKeys([binding], [v])]);
  }

  /** POST /v1/query (non-strict only, see the file comment). */
  async queryOutcome(query: string, input: Value | undefined): Promise<Outcome> {
    const body = `{"query":${JSON.stringify(query)}${input === undefined ? '' : `,"input":${toJSONText(input)}`}}`;
    const r = await this.request('POST', '/v1/query', body);
    if (r.status === 400) return opaError(r.body, 'compile');
    if (r.status !== 200) return opaError(r.body, 'eval');
    const res = parseExactJSON(r.body) as ObjectValue;
    const v = res.get('result');
    return resultsOutcome(v === undefined ? [] : (v as Value[]));
  }

  /**
   * OPA's answer for a whole case: base data replaced, the modules installed (retried until no more
   * install, since a module may call a function another module defines), the query asked, the modules
   * removed again.
   */
  async caseOutcome(c: DiffCase): Promise<Outcome> {
    const ref = dataRefQuery(c.query);
    if (c.strict && !ref) return evalOutcome(c);
    await this.putData([], c.data ?? new ObjectValue());
    const ids = c.modules.map(() => `case-${this.nextId++}`);
    try {
      let pending = c.modules.map((m, i) => ({ id: ids[i]!, text: m.text }));
      let failure: Outcome | undefined;
      for (;;) {
        const left: typeof pending = [];
        failure = undefined;
        for (const p of pending) {
          const err = await this.putPolicy(p.id, p.text);
          if (err) {
            left.push(p);
            failure ??= err;
          }
        }
        if (left.length === 0 || left.length === pending.length) break;
        pending = left;
      }
      // Modules that call each other's functions only compile together, which one PUT each cannot do.
      if (failure && c.modules.length > 1) return evalOutcome(c);
      if (failure) return failure;
      if (c.strict && ref) return await this.dataOutcome(ref.path, c.input, true, ref.binding);
      return await this.queryOutcome(c.query, c.input);
    } finally {
      for (const id of ids) await this.deletePolicy(id);
    }
  }
}

/** `opa eval --format json` for one case (strict queries that are not a plain data ref). */
export function evalOutcome(c: DiffCase): Outcome {
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-diff-'));
  try {
    const args = ['eval', '--format', 'json'];
    c.modules.forEach((m, i) => {
      const f = join(dir, `m${i}.rego`);
      writeFileSync(f, m.text);
      args.push('-d', f);
    });
    if (c.data !== undefined) {
      writeFileSync(join(dir, 'data.json'), toJSONText(c.data));
      args.push('-d', join(dir, 'data.json'));
    }
    if (c.input !== undefined) {
      writeFileSync(join(dir, 'input.json'), toJSONText(c.input));
      args.push('-i', join(dir, 'input.json'));
    }
    if (c.strict) args.push('--strict-builtin-errors');
    args.push(c.query);
    const r = runOpa(args);
    const out = parseExactJSON(r.stdout) as ObjectValue;
    if (out.get('errors') !== undefined) {
      const body = JSON.parse(r.stdout) as OpaErrorBody;
      const first = body.errors?.[0]?.code ?? '';
      return opaError(r.stdout, first.startsWith('rego_') ? 'compile' : 'eval');
    }
    const res = out.get('result');
    const sols = res === undefined ? [] : (res as Value[]).map((s) => (s as ObjectValue).get('bindings') ?? new ObjectValue());
    return resultsOutcome(sols);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}


/**
 * An outcome's first error line from its code on, with a module location naming the file alone
 * (`opa eval` is handed the modules from a temp folder); '' for results.
 */
export function firstErrorLine(o: Outcome): string {
  if (o.kind !== 'error') return '';
  const first = o.message.split('\n')[0] ?? '';
  return first.slice(first.indexOf(`${o.codes[0]}: `)).replace(/[^\s,]*\/(m0\.rego)/g, '$1');
}

/**
 * Each module body (after `package t`, as m0.rego) against `opa eval` on `query`: the ones where the
 * engine and OPA differ, a refusal by its code and first line, an answer by its results.
 */
export function formDisagreements(bodies: readonly string[], query: string): string[] {
  const disagree: string[] = [];
  for (const body of bodies) {
    const c: DiffCase = { modules: [{ name: 'm0.rego', text: `package t\n${body}\n` }], query };
    const [ours, opa] = [engineOutcome(c), evalOutcome(c)];
    const same = ours.kind === 'error' || opa.kind === 'error' ? firstErrorLine(ours) !== '' && firstErrorLine(ours) === firstErrorLine(opa) : ours.results.join('\n') === opa.results.join('\n');
    if (!same) disagree.push(`${body}\n  engine: ${show(ours)}\n  opa:    ${show(opa)}`);
  }
  return disagree;
}
