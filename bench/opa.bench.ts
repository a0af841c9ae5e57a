/**
 * toolgate against the real OPA binary on the same bundles (`npm run bench -- opa`):
 * (1) `toolgate decide` and `opa eval -b` agree on the quickstart (whole-process start-up is the
 *     startup bench's, which times the compiled bin).
 * (2) Decisions per second in-process: the builtin engine through bundleDecider (as `toolgate decide`
 *     loads a bundle) over N mixed inputs, against OPA on the same bundle: `opa bench` per input class
 *     (ns/op), one `opa eval` over the same N inputs (`with input as`), and an `opa run --server` loop
 *     over loopback with the HTTP cost measured apart (interleaved requests for a constant document).
 * (3) OPA serving the synthetic estate (bench/synthetic-estate.ts) at 1/10 and full scale: peak RSS
 *     (VmHWM) against the size of data.json, time from spawn to /health?bundles answering, and decision
 *     latency p50/p99 (client side and OPA's own ?metrics timers). The same for candidate data layouts
 *     written by this bench (variant data.json + matching authz.rego, checked to answer identically on
 *     a sample of pairs); the shipped layout is not changed here.
 * OPA comes from TOOLGATE_OPA or .cache/bin/opa; without it the bench says why and exits 0.
 * Servers listen on 127.0.0.1 only and are stopped by pid; temp dirs are removed. Figures only.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { freePort, OPA_BINARY } from '../test/helpers/loopback.ts';
import { TOOLGATE } from '../test/helpers/toolgate-bin.ts';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleDecider, readTarball } from '../src/bundle/index.ts';
import { emitTarGz, type TarEntry } from '../src/emit/opa-tarball.ts';
import { rng, writeSyntheticEstate } from './synthetic-estate.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const OPA = OPA_BINARY;
const BIN = TOOLGATE;
const QUERY = 'data.toolgate.authz.decision';
const INPROC_INPUTS = 20_000;
const HTTP_REQUESTS = 2_000;
const ACTIVATIONS = 3;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Pair {
  readonly agent: string;
  readonly tool: string;
  readonly kind: 'granted' | 'not-granted' | 'unknown-agent';
}
interface Grant {
  allow: boolean;
  decision: string;
  reason: string | null;
  risk_score: number;
}
interface DataDoc {
  agents: Record<string, { tools: Record<string, Grant> }>;
  tools: Record<string, unknown>;
  [k: string]: unknown;
}

// ------------------------------------------------------------------ small helpers
const median = (xs: readonly number[]): number => quantile(xs, 0.5);
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
const mib = (kb: number): string => `${(kb / 1024).toFixed(0)} MiB`;
const us = (ms: number): string => `${(ms * 1000).toFixed(0)} µs`;
const perSec = (n: number): string => (n >= 1e5 ? `${(n / 1e3).toFixed(0)}k/s` : `${n.toFixed(0)}/s`);

/** JSON with object keys sorted, to compare decisions from different engines. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): void {
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string => `    ${r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')}`;
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

function run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): { ms: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, ...env } });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

function compileBundle(args: readonly string[], out: string): string {
  run(process.execPath, [BIN, 'compile', ...args, '--out', out], { SOURCE_DATE_EPOCH: '0' });
  return join(out, 'bundle.tar.gz');
}

// ------------------------------------------------------------------ OPA server
function vm(pid: number): { hwmKiB: number; rssKiB: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? Number.NaN);
  return { hwmKiB: kib('VmHWM'), rssKiB: kib('VmRSS') };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Served {
  readonly child: ChildProcess;
  readonly port: number;
  readonly activationMs: number;
  readonly agent: Agent;
}

function http(s: { port: number; agent?: Agent }, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: s.port, method, path, agent: s.agent ?? false, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Spawns `opa run --server` on a free loopback port; resolves once /health?bundles answers 200 and the server is ours. */
async function serve(bundle: string, expectInstance: string, extra: readonly string[] = []): Promise<Served> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(OPA, ['run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'error', '--skip-version-check', ...extra, '-b', bundle], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`opa exited before it was healthy: ${stderr}`);
    try {
      if ((await http({ port }, 'GET', '/health?bundles')).status === 200) break;
    } catch {
      // not listening yet
    }
    if (performance.now() - t0 > 120_000) throw new Error('opa did not become healthy in 120 s');
    await sleep(5);
  }
  const activationMs = performance.now() - t0;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const s = { child, port, activationMs, agent };
  // Someone else's server on a port we just found free would answer with another graph_state.
  const gs = await http(s, 'GET', '/v1/data/toolgate/graph_state/instance_id');
  if (exited || (JSON.parse(gs.text) as { result?: string }).result !== expectInstance) {
    await stop(s);
    throw new Error(`the server on 127.0.0.1:${port} is not the one this bench started`);
  }
  return s;
}

async function stop(s: Served): Promise<void> {
  s.agent.destroy();
  if (s.child.exitCode !== null || s.child.signalCode !== null) return;
  const done = new Promise<void>((r) => s.child.once('exit', () => r()));
  s.child.kill('SIGTERM');
  const t = setTimeout(() => s.child.kill('SIGKILL'), 5000);
  await done;
  clearTimeout(t);
}

interface Latency {
  clientMs: number[];
  handlerMs: number[];
  evalMs: number[];
  baseClientMs: number[];
  baseHandlerMs: number[];
  decisions: string[];
}

/** Sequential keep-alive POSTs, each decision followed by a request for a constant document with the same body. */
async function latency(s: Served, pairs: readonly Pair[], baseline: boolean): Promise<Latency> {
  const out: Latency = { clientMs: [], handlerMs: [], evalMs: [], baseClientMs: [], baseHandlerMs: [], decisions: [] };
  const warm = Math.min(200, pairs.length);
  for (let i = -warm; i < pairs.length; i++) {
    const p = pairs[(i + pairs.length) % pairs.length]!;
    const body = JSON.stringify({ input: { agent: p.agent, tool: p.tool } });
    let t0 = performance.now();
    const r = await http(s, 'POST', '/v1/data/toolgate/authz/decision?metrics', body);
    const ms = performance.now() - t0;
    const j = JSON.parse(r.text) as { result?: unknown; metrics?: Record<string, number> };
    if (baseline) {
      t0 = performance.now();
      const b = await http(s, 'POST', '/v1/data/toolgate/default?metrics', body);
      const bms = performance.now() - t0;
      if (i >= 0) {
        out.baseClientMs.push(bms);
        out.baseHandlerMs.push(((JSON.parse(b.text) as { metrics?: Record<string, number> }).metrics?.timer_server_handler_ns ?? Number.NaN) / 1e6);
      }
    }
    if (i < 0) continue;
    out.clientMs.push(ms);
    out.handlerMs.push((j.metrics?.timer_server_handler_ns ?? Number.NaN) / 1e6);
    out.evalMs.push((j.metrics?.timer_rego_query_eval_ns ?? Number.NaN) / 1e6);
    out.decisions.push(canonical(j.result));
  }
  return out;
}

// ------------------------------------------------------------------ inputs
function mixedPairs(data: DataDoc, n: number, seed: number): Pair[] {
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const agents = Object.keys(data.agents);
  const withGrants = agents.filter((a) => Object.keys(data.agents[a]!.tools).length > 0);
  const tools = Object.keys(data.tools);
  const out: Pair[] = [];
  while (out.length < n) {
    const r = rand();
    if (r < 0.45 && withGrants.length > 0) {
      const agent = pick(withGrants);
      out.push({ agent, tool: pick(Object.keys(data.agents[agent]!.tools)), kind: 'granted' });
    } else if (r < 0.85) {
      const agent = pick(agents);
      const tool = pick(tools);
      if (data.agents[agent]!.tools[tool] === undefined) out.push({ agent, tool, kind: 'not-granted' });
    } else {
      out.push({ agent: `agent-unknown-${out.length}`, tool: pick(tools), kind: 'unknown-agent' });
    }
  }
  return out;
}

// ------------------------------------------------------------------ candidate layouts
const HEADER = `package toolgate.authz

import rego.v1

decision := {
	"allow": allow,
	"reason": reason,
	"profile": data.toolgate.profile,
	"graph_state": data.toolgate.graph_state,
}

default allow := false

allow if {
	entry == true
	not sign_reason
}
`;
const TAIL = `
reason := "AGENT_NOT_FOUND" if {
	not data.toolgate.agents[input.agent]
} else := "NOT_GRANTED" if {
	not entry
} else := entry if {
	entry != true
} else := sign_reason if {
	sign_reason
} else := null

sign_reason := "SIGN_DENY" if {
	tool_signs.deny == true
} else := "SIGN_HOLD" if {
	tool_signs.hold == true
}

tool_signs := data.toolgate.signs_by_tool[input.tool]
`;
/** entry: true for an eligible grant, the reason string for a rejected one, undefined if not granted. */
const FLAT_REGO = `${HEADER}
entry := data.toolgate.agents[input.agent][input.tool]
${TAIL}`;
const INTERNED_REGO = `${HEADER}
entry := data.toolgate.agents[input.agent][data.toolgate.tool_ids[input.tool]]
${TAIL}`;
const ARRAYS_REGO = `${HEADER}
tool_id := data.toolgate.tool_ids[input.tool]

agent_doc := data.toolgate.agents[input.agent]

entry := true if {
	tool_id in agent_doc.ok
} else := data.toolgate.reasons[agent_doc.why[i]] if {
	some i
	agent_doc.no[i] == tool_id
}
${TAIL}`;

interface Layout {
  readonly name: string;
  readonly note: string;
  readonly data: Record<string, unknown>;
  readonly rego: string | null; // null: the shipped authz.rego
}

const DECISION_ROOTS = ['profile', 'graph_state', 'default', 'signs_by_tool'] as const;

/** A grant as the flat layouts hold it: true (eligible, reason null) or the rejection reason. */
function flatGrant(g: Grant, where: string): true | string {
  if (g.allow === true && g.reason === null) return true;
  if (g.allow === false && typeof g.reason === 'string') return g.reason;
  throw new Error(`${where}: grant ${JSON.stringify(g)} has no flat form`);
}

/** The shipped layout and the candidates; only the shipped one (with a note why) if the data has another shape. */
function layouts(d: DataDoc): Layout[] {
  const shipped: Layout = { name: 'shipped', note: 'as compiled', data: d, rego: null };
  try {
    return [shipped, ...candidateLayouts(d)];
  } catch (e) {
    console.log(`    candidate layouts skipped: ${(e as Error).message}`);
    return [shipped];
  }
}

function candidateLayouts(d: DataDoc): Layout[] {
  const decisionOnly = (): Record<string, unknown> => Object.fromEntries(DECISION_ROOTS.map((k) => [k, d[k]]));
  const flatAgents: Record<string, Record<string, true | string>> = {};
  for (const [a, v] of Object.entries(d.agents)) {
    if (typeof v?.tools !== 'object' || v.tools === null) throw new Error(`agents.${a} has no tools object`);
    const m: Record<string, true | string> = {};
    for (const [t, g] of Object.entries(v.tools)) m[t] = flatGrant(g, `${a} ${t}`);
    flatAgents[a] = m;
  }
  const toolIds = new Map(Object.keys(d.tools).map((t, i) => [t, i] as const));
  const idOf = (t: string): number => {
    let i = toolIds.get(t);
    if (i === undefined) toolIds.set(t, (i = toolIds.size));
    return i;
  };
  const internedAgents: Record<string, Record<string, true | string>> = {};
  const reasons: string[] = [];
  const arrayAgents: Record<string, { ok: number[]; no: number[]; why: number[] }> = {};
  for (const [a, m] of Object.entries(flatAgents)) {
    const im: Record<string, true | string> = {};
    const arr = { ok: [] as number[], no: [] as number[], why: [] as number[] };
    for (const [t, g] of Object.entries(m)) {
      const id = idOf(t);
      im[String(id)] = g;
      if (g === true) arr.ok.push(id);
      else {
        let r = reasons.indexOf(g);
        if (r < 0) r = reasons.push(g) - 1;
        arr.no.push(id);
        arr.why.push(r);
      }
    }
    internedAgents[a] = im;
    arrayAgents[a] = arr;
  }
  const ids = Object.fromEntries([...toolIds].map(([t, i]) => [t, i]));
  const idStrings = Object.fromEntries([...toolIds].map(([t, i]) => [t, String(i)]));
  return [
    { name: 'A decision roots', note: 'only agents + profile, graph_state, default, signs_by_tool; same Rego', data: { ...decisionOnly(), agents: d.agents }, rego: null },
    { name: 'B flat grants', note: 'all roots; agents[a][tool] = true | "REASON"', data: { ...d, agents: flatAgents }, rego: FLAT_REGO },
    { name: 'C = A + B', note: 'decision roots, flat grants', data: { ...decisionOnly(), agents: flatAgents }, rego: FLAT_REGO },
    { name: 'D C + interned', note: 'tool_ids {tool: "n"}, agents[a]["n"] = true | "REASON"', data: { ...decisionOnly(), tool_ids: idStrings, agents: internedAgents }, rego: INTERNED_REGO },
    { name: 'E C + index arrays', note: 'tool_ids {tool: n}, agents[a] = {ok: [n], no: [n], why: [r]}', data: { ...decisionOnly(), tool_ids: ids, reasons, agents: arrayAgents }, rego: ARRAYS_REGO },
  ];
}

/**
 * A layout's bundle: the shipped .manifest, the layout's data.json, and either every shipped module
 * (layouts that keep the shipped Rego) or only the variant authz.rego (modules written for the shipped
 * layout, such as gateway entrypoints, would read the wrong shape). No .signatures.json.
 */
async function writeLayout(dir: string, shipped: readonly TarEntry[], l: Layout): Promise<{ path: string; dataBytes: number }> {
  const enc = new TextEncoder();
  const dataBytes = enc.encode(JSON.stringify(l.data));
  const entries: TarEntry[] = [{ name: 'toolgate/data.json', bytes: dataBytes }];
  for (const f of shipped) {
    if (f.name === '.manifest') entries.push(f);
    else if (f.name.endsWith('.rego') && l.rego === null) entries.push(f);
  }
  if (l.rego !== null) entries.push({ name: 'toolgate/authz.rego', bytes: enc.encode(l.rego) });
  const path = join(dir, `${l.name.replace(/[^a-z0-9]+/gi, '-')}.tar.gz`);
  writeFileSync(path, await emitTarGz(entries));
  return { path, dataBytes: dataBytes.length };
}

/**
 * The estates carry no signs, so the sign branch of the variant Rego is checked apart: the quickstart's
 * data with a deny sign and a hold sign injected on granted tools, every layout asked every agent x tool
 * pair (and an unknown agent) in one `opa eval`, answers compared with the shipped layout's.
 */
async function checkLayoutsWithSigns(bundle: string, tmp: string): Promise<string> {
  const files = await readTarball(readFileSync(bundle), bundle);
  const data = JSON.parse(new TextDecoder().decode(files.find((f) => f.name === 'toolgate/data.json')!.bytes)) as DataDoc;
  const granted = Object.values(data.agents).flatMap((a) => Object.entries(a.tools));
  const allowed = granted.filter(([, g]) => g.allow).map(([t]) => t);
  const rejected = granted.filter(([, g]) => !g.allow).map(([t]) => t);
  const signs: Record<string, { deny: boolean; hold: boolean }> = {};
  if (allowed[0]) signs[allowed[0]] = { deny: true, hold: false };
  if (allowed[1]) signs[allowed[1]] = { deny: false, hold: true };
  if (rejected[0]) signs[rejected[0]] = { deny: true, hold: true };
  const signed: DataDoc = { ...data, signs_by_tool: signs };
  const cases = [...Object.keys(data.agents), 'nobody'].flatMap((agent) => Object.keys(data.tools).map((tool) => ({ agent, tool })));
  const casesPath = join(tmp, 'sign-cases.json');
  writeFileSync(casesPath, JSON.stringify({ cases }));
  let reference = '';
  let ok = 0;
  const ls = layouts(signed);
  for (const l of ls) {
    const { path } = await writeLayout(tmp, files, l);
    const r = run(OPA, ['eval', '-b', path, '--input', casesPath, '--format', 'json', `[d | some x in input.cases; d := ${QUERY} with input as x]`]);
    rmSync(path, { force: true });
    const v = canonical((JSON.parse(r.stdout) as { result: { expressions: { value: unknown }[] }[] }).result[0]!.expressions[0]!.value);
    if (reference === '') reference = v;
    if (v === reference) ok++;
    else console.log(`    layout ${l.name} answers differently from the shipped layout with signs injected`);
  }
  const n = (reference.match(/SIGN_/g) ?? []).length;
  return `${ok}/${ls.length} layouts answer ${cases.length} quickstart pairs identically with ${Object.keys(signs).length} signs injected (${n} SIGN_* answers)`;
}

/** The builtin engine loading a layout's bundle, and its rate over the same pairs. */
async function builtinOnBundle(bytes: Uint8Array, pairs: readonly Pair[]): Promise<{ loadMs: number; perSec: number; answers: string[] }> {
  const t0 = performance.now();
  const decider = await bundleDecider(bytes, 'layout.tar.gz', { maxTotalBytes: 1 << 30, maxEntryBytes: 1 << 30 });
  const loadMs = performance.now() - t0;
  const answers = pairs.map((p) => canonical(decider.decide(p.agent, p.tool)));
  let bestMs = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    for (const p of pairs) decider.decide(p.agent, p.tool);
    bestMs = Math.min(bestMs, performance.now() - t);
  }
  return { loadMs, perSec: (pairs.length / bestMs) * 1000, answers };
}

// ------------------------------------------------------------------ (1) one decision, both engines
/**
 * The quickstart bundle, with one granted pair answered alike by `toolgate decide` and `opa eval -b`.
 * Whole-process start-up is the startup bench's (`npm run bench -- startup`): it times the compiled
 * bin, where this bench's CLI runs src/ through tsx.
 */
function quickstartBundle(tmp: string): string {
  const out = join(tmp, 'quickstart');
  const bundle = compileBundle(['--example', 'quickstart'], out);
  const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { toolgate: DataDoc };
  let agent = '';
  let tool = '';
  for (const [a, v] of Object.entries(data.toolgate.agents)) {
    const t = Object.entries(v.tools).find(([, g]) => g.allow);
    if (t) [agent, tool] = [a, t[0]];
    if (agent) break;
  }
  const input = join(tmp, 'input.json');
  writeFileSync(input, JSON.stringify({ agent, tool }));
  const tg = canonical((JSON.parse(run(process.execPath, [BIN, 'decide', agent, tool, '--bundle', bundle]).stdout) as { decision: unknown }).decision);
  const opa = canonical(
    (JSON.parse(run(OPA, ['eval', '-b', bundle, '--format', 'json', QUERY, '--input', input]).stdout) as { result: { expressions: { value: unknown }[] }[] }).result[0]!.expressions[0]!.value,
  );
  if (tg !== opa) throw new Error('toolgate decide and opa eval disagree');
  console.log(`(1) quickstart, input ${JSON.stringify({ agent, tool })}: toolgate decide and opa eval -b agree (whole-process start-up: npm run bench -- startup)`);
  return bundle;
}

// ------------------------------------------------------------------ (2) decisions per second
interface OpaBench {
  nsPerOp: number;
  evalMedianNs: number;
}
function opaBench(bundle: string, tmp: string, p: Pair): OpaBench {
  const input = join(tmp, 'bench-input.json');
  writeFileSync(input, JSON.stringify({ agent: p.agent, tool: p.tool }));
  const r = run(OPA, ['bench', '-b', bundle, '--input', input, '--format', 'json', QUERY]);
  const j = JSON.parse(r.stdout) as { N: number; T: number; Extra?: Record<string, number> };
  return { nsPerOp: j.T / j.N, evalMedianNs: j.Extra?.['histogram_timer_rego_query_eval_ns_median'] ?? Number.NaN };
}

async function benchInProcess(label: string, bundle: string, tmp: string): Promise<{ data: DataDoc; pairs: Pair[]; builtin: Map<string, string> }> {
  const bytes = readFileSync(bundle);
  const files = await readTarball(bytes, bundle, { maxTotalBytes: 1 << 30, maxEntryBytes: 1 << 30 });
  const data = JSON.parse(new TextDecoder().decode(files.find((f) => f.name === 'toolgate/data.json')!.bytes)) as DataDoc;
  const pairs = mixedPairs(data, INPROC_INPUTS, 11);
  const kinds = { granted: 0, 'not-granted': 0, 'unknown-agent': 0 };
  for (const p of pairs) kinds[p.kind]++;

  // The builtin engine as `toolgate decide` loads a bundle; a bundle it cannot load still gets OPA's figures.
  const builtin = new Map<string, string>();
  let builtinPerSec = Number.NaN;
  let builtinNote = '';
  try {
    const b = await builtinOnBundle(bytes, pairs);
    pairs.forEach((p, i) => builtin.set(`${p.agent}\u0000${p.tool}`, b.answers[i]!));
    builtinPerSec = b.perSec;
    builtinNote = `builtin load (bundleDecider): ${b.loadMs.toFixed(0)} ms`;
  } catch (e) {
    builtinNote = `builtin engine could not load the bundle: ${(e as Error).message.split('\n')[0]}`;
  }
  const vs = (perS: number): string => (Number.isFinite(builtinPerSec) ? `${(perS / builtinPerSec).toFixed(2)}x` : '-');

  // opa bench: one input per class (it takes a single input); the mix weights them as the N inputs do.
  const first = (k: Pair['kind']): Pair => pairs.find((p) => p.kind === k)!;
  const benches = (['granted', 'not-granted', 'unknown-agent'] as const).map((k) => ({ k, b: opaBench(bundle, tmp, first(k)) }));
  const mixNs = benches.reduce((s, { k, b }) => s + (b.nsPerOp * kinds[k]) / pairs.length, 0);
  const mixEvalNs = benches.reduce((s, { k, b }) => s + (b.evalMedianNs * kinds[k]) / pairs.length, 0);

  // opa eval over the same N inputs in one query.
  const casesPath = join(tmp, 'cases.json');
  writeFileSync(casesPath, JSON.stringify({ cases: pairs.map((p) => ({ agent: p.agent, tool: p.tool })) }));
  const ev = run(OPA, ['eval', '-b', bundle, '--input', casesPath, '--metrics', '--format', 'json', `n := count([d | some x in input.cases; d := ${QUERY} with input as x])`]);
  const evj = JSON.parse(ev.stdout) as { result: { bindings: { n: number } }[]; metrics: Record<string, number> };
  if (evj.result[0]!.bindings.n !== pairs.length) throw new Error('opa eval over the cases counted the wrong number of decisions');
  const withNs = evj.metrics['timer_rego_query_eval_ns']! / pairs.length;

  // opa run --server over loopback, HTTP cost apart.
  const instance = (data.graph_state as { instance_id: string }).instance_id;
  const s = await serve(bundle, instance);
  let lat: Latency;
  try {
    lat = await latency(s, pairs.slice(0, HTTP_REQUESTS), true);
  } finally {
    await stop(s);
  }
  let mismatches = 0;
  lat.decisions.forEach((d, i) => {
    const p = pairs[i]!;
    if (builtin.get(`${p.agent}\u0000${p.tool}`) !== d) mismatches++;
  });
  const httpNet = median(lat.clientMs) - median(lat.baseClientMs);

  console.log(`\n(2) decisions per second in-process, ${label}: ${pairs.length} inputs (${kinds.granted} granted pairs, ${kinds['not-granted']} not granted, ${kinds['unknown-agent']} unknown agents)`);
  table(
    ['engine', 'per decision', 'decisions/s', 'vs builtin'],
    [
      ['builtin (bundleDecider), best of 3 passes', us((1 / builtinPerSec) * 1000), perSec(builtinPerSec), vs(builtinPerSec)],
      ...benches.map(({ k, b }) => [`opa bench, one ${k} input (ns/op)`, us(b.nsPerOp / 1e6), perSec(1e9 / b.nsPerOp), vs(1e9 / b.nsPerOp)]),
      ['opa bench, weighted by the mix (ns/op)', us(mixNs / 1e6), perSec(1e9 / mixNs), vs(1e9 / mixNs)],
      ['opa bench, weighted, eval timer median only', us(mixEvalNs / 1e6), perSec(1e9 / mixEvalNs), vs(1e9 / mixEvalNs)],
      [`opa eval, all ${pairs.length} via \`with input as\``, us(withNs / 1e6), perSec(1e9 / withNs), vs(1e9 / withNs)],
      [`opa server, eval timer (mean of ${lat.evalMs.length})`, us(mean(lat.evalMs)), perSec(1000 / mean(lat.evalMs)), vs(1000 / mean(lat.evalMs))],
      ['opa server, handler timer (median)', us(median(lat.handlerMs)), perSec(1000 / median(lat.handlerMs)), vs(1000 / median(lat.handlerMs))],
      ['opa server, client round trip (median)', us(median(lat.clientMs)), perSec(1000 / median(lat.clientMs)), vs(1000 / median(lat.clientMs))],
      ['  same, constant document (HTTP baseline)', us(median(lat.baseClientMs)), perSec(1000 / median(lat.baseClientMs)), ''],
      ['  round trip minus HTTP baseline', us(httpNet), httpNet > 0 ? perSec(1000 / httpNet) : '-', httpNet > 0 ? vs(1000 / httpNet) : ''],
    ],
  );
  console.log(`    ${builtinNote}; server decisions equal to builtin: ${builtin.size > 0 ? `${lat.decisions.length - mismatches}/${lat.decisions.length}` : 'not checked'}`);
  return { data, pairs, builtin };
}

// ------------------------------------------------------------------ (3) serving the estate
interface ServeFigures {
  activationMs: number;
  activationMinMs: number;
  hwmKiB: number;
  hwmAfterKiB: number;
  rssKiB: number;
  lat: Latency;
}
async function measureServe(bundle: string, instance: string, pairs: readonly Pair[], extra: readonly string[] = []): Promise<ServeFigures> {
  const acts: number[] = [];
  let hwm = 0;
  let last: ServeFigures | null = null;
  for (let i = 0; i < ACTIVATIONS; i++) {
    const s = await serve(bundle, instance, extra);
    try {
      acts.push(s.activationMs);
      const m = vm(s.child.pid!);
      hwm = Math.max(hwm, m.hwmKiB);
      if (i === ACTIVATIONS - 1) {
        const lat = await latency(s, pairs, false);
        const after = vm(s.child.pid!);
        last = { activationMs: 0, activationMinMs: 0, hwmKiB: 0, hwmAfterKiB: after.hwmKiB, rssKiB: after.rssKiB, lat };
      }
    } finally {
      await stop(s);
    }
  }
  return { ...last!, activationMs: median(acts), activationMinMs: Math.min(...acts), hwmKiB: hwm };
}

async function benchServe(tmp: string, estates: { scale: number; bundle: string }[], idleKiB: number): Promise<void> {
  console.log(`\n(3) opa run --server on the synthetic estate: activation = spawn to /health?bundles 200 (min and median of ${ACTIVATIONS} starts); peak RSS = VmHWM after activation; latency over ${HTTP_REQUESTS} keep-alive POSTs (mixed pairs)`);
  console.log(`    idle OPA serving the quickstart (layout C, authz.rego only): VmHWM ${mib(idleKiB)}; "net" = peak RSS minus that (shown when over 4 MiB)`);
  const rows: string[][] = [];
  const growth: Record<string, Record<number, { ms: number; netKiB: number; bytes: number; evalP50: number }>> = {};
  let builtinLines: string[][] = [];
  for (const { scale, bundle } of estates) {
    const files = await readTarball(readFileSync(bundle), bundle, { maxTotalBytes: 1 << 30, maxEntryBytes: 1 << 30 });
    const data = JSON.parse(new TextDecoder().decode(files.find((f) => f.name === 'toolgate/data.json')!.bytes)) as DataDoc;
    const instance = (data.graph_state as { instance_id: string }).instance_id;
    const pairs = mixedPairs(data, HTTP_REQUESTS, 23);
    const ls = layouts(data);
    const configs: { name: string; layout: Layout; extra: string[] }[] = ls.map((l) => ({ name: l.name, layout: l, extra: [] }));
    if (scale === 1) configs.splice(1, 0, { name: 'shipped, read-opt store', layout: ls[0]!, extra: ['--optimize-store-for-read-speed'] });
    let reference: string[] | null = null;
    for (const c of configs) {
      const { path, dataBytes } = c.layout.rego === null && c.layout.data === data ? { path: bundle, dataBytes: files.find((f) => f.name === 'toolgate/data.json')!.bytes.length } : await writeLayout(tmp, files, c.layout);
      const f = await measureServe(path, instance, pairs, c.extra);
      if (path !== bundle) rmSync(path, { force: true });
      reference ??= f.lat.decisions;
      const same = f.lat.decisions.filter((d, i) => d === reference![i]).length;
      const net = f.hwmKiB - idleKiB;
      (growth[c.name] ??= {})[scale] = { ms: f.activationMinMs, netKiB: net, bytes: dataBytes, evalP50: median(f.lat.evalMs) };
      rows.push([
        `${scale}x ${c.name}`,
        mb(dataBytes),
        `${f.activationMinMs.toFixed(0)} / ${f.activationMs.toFixed(0)} ms`,
        mib(f.hwmKiB),
        net > 4096 ? `${((net * 1024) / dataBytes).toFixed(1)}x` : '-',
        mib(f.rssKiB),
        us(median(f.lat.clientMs)),
        us(quantile(f.lat.clientMs, 0.99)),
        us(median(f.lat.handlerMs)),
        us(quantile(f.lat.handlerMs, 0.99)),
        us(median(f.lat.evalMs)),
        us(quantile(f.lat.evalMs, 0.99)),
        `${same}/${f.lat.decisions.length}`,
      ]);
    }
    if (scale === 1) {
      for (const l of ls) console.log(`    layout ${l.name}: ${l.note}`);
      const builtinRows: string[][] = [];
      for (const l of ls) {
        let bytes: Uint8Array = readFileSync(bundle);
        if (l.data !== data) {
          const { path } = await writeLayout(tmp, files, l);
          bytes = readFileSync(path);
          rmSync(path, { force: true });
        }
        try {
          const b = await builtinOnBundle(bytes, pairs);
          const same = b.answers.filter((a, i) => a === reference![i]).length;
          builtinRows.push([`builtin ${l.name}`, `${b.loadMs.toFixed(0)} ms`, perSec(b.perSec), `${same}/${b.answers.length}`]);
        } catch (e) {
          builtinRows.push([`builtin ${l.name}`, `failed: ${(e as Error).message.split('\n')[0]!.slice(0, 80)}`, '-', '-']);
        }
      }
      builtinLines = builtinRows;
    }
  }
  table(['bundle', 'data.json', 'activate min / median', 'peak RSS', 'net/JSON', 'RSS after', 'p50 rtt', 'p99 rtt', 'p50 handler', 'p99 handler', 'p50 eval', 'p99 eval', 'same answers'], rows);
  if (builtinLines.length > 0) {
    console.log(`    the builtin engine (bundleDecider) on the same layouts at 1x, same ${HTTP_REQUESTS} pairs:`);
    table(['bundle', 'load', 'decisions/s', 'same as OPA shipped'], builtinLines);
  }
  const scales = estates.map((e) => e.scale).sort((a, b) => a - b);
  if (scales.length === 2) {
    const [lo, hi] = scales as [number, number];
    const g = Object.entries(growth)
      .filter(([, v]) => v[lo] && v[hi])
      .map(([k, v]) => `${k} ${(v[hi]!.ms / v[lo]!.ms).toFixed(1)}x time, ${v[lo]!.netKiB > 4096 ? `${(v[hi]!.netKiB / v[lo]!.netKiB).toFixed(1)}x` : '- (1/10 scale within 4 MiB of idle)'} net RSS`);
    console.log(`    growth ${lo}x -> ${hi}x (${(hi / lo).toFixed(0)}x the estate; activation min): ${g.join('; ')}`);
  }
  const base = growth['shipped']?.[1];
  if (base) {
    console.log(`    against shipped at 1x (net RSS ${mib(base.netKiB)}, activation min ${base.ms.toFixed(0)} ms, p50 eval ${us(base.evalP50)}):`);
    for (const [k, v] of Object.entries(growth)) {
      const c = v[1];
      if (!c || k === 'shipped') continue;
      console.log(`      ${k.padEnd(24)} net RSS ${(c.netKiB / base.netKiB).toFixed(2)}x, activation ${(c.ms / base.ms).toFixed(2)}x, p50 eval ${(c.evalP50 / base.evalP50).toFixed(2)}x, data.json ${(c.bytes / base.bytes).toFixed(2)}x`);
    }
  }
}

// ------------------------------------------------------------------ main
async function main(): Promise<void> {
  try {
    accessSync(OPA, constants.X_OK);
  } catch {
    console.log(`skipped: no executable OPA at ${OPA} (set TOOLGATE_OPA, or run scripts/install-go-tools.sh)`);
    return;
  }
  const version = /Version: (\S+)/.exec(run(OPA, ['version']).stdout)?.[1] ?? '?';
  console.log(`opa ${version} (${OPA})`);
  const tmp = mkdtempSync(join(tmpdir(), 'tg-bench-opa-'));
  try {
    const t0 = performance.now();
    const quickstart = quickstartBundle(tmp);
    const qs = await benchInProcess('quickstart', quickstart, tmp);
    console.log(`\n    layouts with signs: ${await checkLayoutsWithSigns(quickstart, tmp)}`);
    // Idle OPA: the quickstart's smallest layout with only authz.rego (no gateway modules), so "net" is the data's share.
    const qsFiles = await readTarball(readFileSync(quickstart), quickstart);
    const qsLayouts = layouts(qs.data);
    const idleBundle = (await writeLayout(tmp, qsFiles, qsLayouts.find((l) => l.name === 'C = A + B') ?? qsLayouts[0]!)).path;
    const idle = await measureServe(idleBundle, (qs.data.graph_state as { instance_id: string }).instance_id, qs.pairs.slice(0, 50));

    const estates: { scale: number; bundle: string }[] = [];
    for (const scale of [0.1, 1]) {
      const e = writeSyntheticEstate(join(tmp, `estate-${scale}`), scale);
      const tc = performance.now();
      const bundle = compileBundle(['--manifest', e.manifest, '--catalog', e.catalog], join(tmp, `out-${scale}`));
      console.log(`\nsynthetic estate ${scale}x: ${JSON.stringify(e.counts)}; compiled in ${((performance.now() - tc) / 1000).toFixed(1)} s, bundle.tar.gz ${mb(statSync(bundle).size)}`);
      estates.push({ scale, bundle });
    }
    await benchInProcess('synthetic estate 1x', estates[1]!.bundle, tmp);
    await benchServe(tmp, estates, idle.hwmKiB);
    console.log(`\nbench time ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
