/**
 * Gateway entrypoints: decision latency through each of data.toolgate.gateways.*
 * (Envoy ext_authz, Kong, ContextForge, Docker interceptor) and through the plain
 * data.toolgate.authz.decision for {agent, tool}, on the synthetic estate (bench/synthetic-estate.ts,
 * scale TOOLGATE_BENCH_SCALE, default 0.1: 2,000 tools, 200 agents, 20,000 grants) plus an identity
 * section. DECISIONS (default 10,000) random (agent, tool) pairs, about half granted. Every figure is
 * a ratio to the plain decision measured in the same section of the same run (target <= 1.5x).
 * Figures only, no assertion. Three sections:
 *
 * - builtin: toolgate's own engine, one evaluation per call (input converted from plain JSON each
 *   time), every pair asked of every entrypoint, the entrypoints taking turns pair by pair; p50/p99.
 * - opa: `opa run --server`, one REST POST per call, sequential, keep-alive (the request body
 *   serialised before the clock starts), interleaved the same way; p50/p99.
 * - opa in-process: `opa bench` (OPA's own evaluator on a prepared query, no HTTP) on the first
 *   IN_PROCESS_PAIRS (default 2) allowed and as many refused pairs, per entrypoint, taking turns pair
 *   by pair; the mean of its ns/op over those inputs, and allocs/op. The server's ratio includes the
 *   HTTP round trip, a fixed cost of several hundred microseconds that every entrypoint pays alike and
 *   that brings its ratio under 1.5x; an evaluator without it shows the extra work each entrypoint
 *   does (decoding its input, resolving the caller, shaping its answer), which is what the builtin
 *   ratio shows too.
 *
 * The two opa sections run when the pinned opa is in .cache/bin or $TOOLGATE_OPA, else say why not.
 * Every input (and every request body) is built before its section starts and the heap is collected
 * then (bench/run.ts passes --expose-gc): the harness's own garbage (an Envoy input's base64 and JSON
 * text) is not collected inside the calls being timed, where it landed mostly on the entrypoints
 * whose inputs made it. What a call allocates itself is still collected inside calls, as it should be.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort, OPA_BINARY } from '../test/helpers/loopback.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../src/cli/main.ts';
import { enforcementRego } from '../src/cli/commands/compile.ts';
import { compileModules, fromJSON, toJSON } from '../src/rego/index.ts';
import { rng, writeSyntheticEstate } from './synthetic-estate.ts';

const SCALE = Number(process.env.TOOLGATE_BENCH_SCALE ?? 0.1);
const DECISIONS = Number(process.env.DECISIONS ?? 10_000);
const IN_PROCESS_PAIRS = Number(process.env.IN_PROCESS_PAIRS ?? 2);

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const bearer = (sub: string) => `Bearer ${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ sub })}.c2ln`;
const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { path: '/srv/x' } } });

type Pair = { agent: string; tool: string };
const ENTRYPOINTS: Record<string, { path: string; input: (p: Pair) => unknown }> = {
  plain: { path: 'toolgate/authz/decision', input: (p) => p },
  envoy: {
    path: 'toolgate/gateways/envoy/response',
    input: (p) => {
      const body = call(p.tool);
      return {
        attributes: { request: { http: { method: 'POST', path: '/mcp', headers: { ':path': '/mcp', 'content-type': 'application/json', authorization: bearer(p.agent), 'mcp-method': 'tools/call', 'mcp-name': p.tool }, body: JSON.stringify(body) } } },
        parsed_body: body,
        truncated_body: false,
      };
    },
  },
  kong: {
    path: 'toolgate/gateways/kong/response',
    input: (p) => ({ request: { http: { method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', 'mcp-method': 'tools/call', 'mcp-name': p.tool }, parsed_body: call(p.tool) } }, consumer: { id: 'c', username: p.agent } }),
  },
  contextforge: { path: 'toolgate/gateways/contextforge/allow_tool_pre_invoke', input: (p) => ({ kind: 'tool_pre_invoke', user: p.agent, payload: { name: p.tool, args: {} }, context: {}, request_ip: 'none', headers: {}, mode: 'input' }) },
  docker: { path: 'toolgate/gateways/docker/decision', input: (p) => ({ agent: p.agent, request: { Session: {}, Params: { name: p.tool, arguments: {}, _meta: {} }, Extra: null } }) },
};

const IDENTITY = `
identity:
  sources:
    - {kind: jwt, verified_by: gateway, gateways: [envoy]}
    - {kind: kong_consumer, gateways: [kong]}
    - {kind: contextforge_user, gateways: [contextforge]}
    - {kind: docker_interceptor, gateways: [docker]}
`;

const NAMES = Object.keys(ENTRYPOINTS);

/**
 * Each pair is asked of every entrypoint in turn, the first one rotating from pair to pair, so a
 * change of load during the run reaches every entrypoint alike (one block per entrypoint, one
 * after the other, let a busy minute land on one of them).
 */
async function interleaved(time: (k: number, i: number) => number | Promise<number>, count: number): Promise<Record<string, { p50: number; p99: number }>> {
  const ms: number[][] = NAMES.map(() => []);
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < NAMES.length; j++) {
      const k = (i + j) % NAMES.length;
      ms[k]!.push(await time(k, i));
    }
  }
  return Object.fromEntries(NAMES.map((name, k) => [name, quantiles(ms[k]!)]));
}

/** A full collection before a timed section, when the process runs with --expose-gc (bench/run.ts). */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function quantiles(ms: number[]): { p50: number; p99: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)]!, p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]! };
}

/** Milliseconds as microseconds, with a decimal below 100 (a builtin decision takes a few). */
function micros(ms: number): string {
  const us = ms * 1000;
  return (us < 100 ? us.toFixed(1) : us.toFixed(0)).padStart(6);
}

function report(engine: string, results: Record<string, { p50: number; p99: number }>): void {
  const base = results.plain!;
  for (const [name, q] of Object.entries(results)) {
    const r50 = (q.p50 / base.p50).toFixed(2);
    const r99 = (q.p99 / base.p99).toFixed(2);
    process.stdout.write(`${engine.padEnd(8)} ${name.padEnd(13)} p50 ${micros(q.p50)} µs  p99 ${micros(q.p99)} µs  x plain: p50 ${r50}  p99 ${r99}\n`);
  }
}

/**
 * `opa bench` on one entrypoint and one input: Go's benchmark loop around a prepared query's Eval
 * (the bundle loaded and the input parsed before it). Its JSON is Go's BenchmarkResult: N
 * evaluations in T nanoseconds, MemAllocs over all of them. Per-evaluation metrics are off (they add
 * timers to every evaluation); an undefined answer fails the run (--fail), so nothing is measured
 * that does not answer.
 */
function opaBench(opa: string, bundle: string, inputFile: string, query: string): { nsPerOp: number; allocsPerOp: number } {
  const r = spawnSync(opa, ['bench', '--format', 'json', '--metrics=false', '--benchmem', '--count', '1', '--bundle', bundle, '--input', inputFile, query], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`opa bench ${query} exited ${r.status}: ${r.stdout}${r.stderr}`);
  const result = JSON.parse(r.stdout) as { N: number; T: number; MemAllocs: number };
  return { nsPerOp: result.T / result.N, allocsPerOp: result.MemAllocs / result.N };
}

/**
 * The in-process section: every chosen pair asked of every entrypoint, the first one rotating as in
 * `interleaved`, and per entrypoint the mean over the pairs (each input weighs the same).
 */
function benchInProcess(opa: string, bundle: string, dir: string, inputs: unknown[][], chosen: number[]): void {
  const ns: number[][] = NAMES.map(() => []);
  const allocs: number[][] = NAMES.map(() => []);
  const files = NAMES.map((name, k) =>
    chosen.map((i) => {
      const file = join(dir, `input-${name}-${i}.json`);
      writeFileSync(file, JSON.stringify(inputs[k]![i]));
      return file;
    }),
  );
  for (let c = 0; c < chosen.length; c++) {
    for (let j = 0; j < NAMES.length; j++) {
      const k = (c + j) % NAMES.length;
      const r = opaBench(opa, bundle, files[k]![c]!, `data.${ENTRYPOINTS[NAMES[k]!]!.path.split('/').join('.')}`);
      ns[k]!.push(r.nsPerOp);
      allocs[k]!.push(r.allocsPerOp);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = mean(ns[0]!);
  const baseAllocs = mean(allocs[0]!);
  for (let k = 0; k < NAMES.length; k++) {
    const t = mean(ns[k]!);
    const a = mean(allocs[k]!);
    process.stdout.write(
      `${'opa-proc'.padEnd(8)} ${NAMES[k]!.padEnd(13)} mean ${micros(t / 1e6)} µs  allocs/op ${a.toFixed(0).padStart(5)}  x plain: mean ${(t / base).toFixed(2)}  allocs ${(a / baseAllocs).toFixed(2)}\n`,
    );
  }
}

async function benchServer(opa: string, bundle: string, inputs: unknown[][]): Promise<void> {
  const port = await freePort();
  const child = spawn(opa, ['run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'error', '--disable-telemetry', '--bundle', bundle], { stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/health?bundles`)).status === 200) break;
      } catch {
        // not up yet
      }
      if (i > 2000) throw new Error('opa did not become healthy');
      await new Promise((r) => setTimeout(r, 25));
    }
    // the request bodies are serialised before the section starts: the client's JSON is not OPA's latency
    const bodies = inputs.map((byPair) => byPair.map((input) => JSON.stringify({ input })));
    const urls = NAMES.map((name) => `${url}/v1/data/${ENTRYPOINTS[name]!.path}`);
    const ask = async (k: number, i: number): Promise<number> => {
      const body = bodies[k]![i]!;
      const t0 = performance.now();
      const r = await fetch(urls[k]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await r.text();
      return performance.now() - t0;
    };
    for (let k = 0; k < NAMES.length; k++) for (let i = 0; i < 200; i++) await ask(k, i);
    collectGarbage();
    report('opa', await interleaved(ask, bodies[0]!.length));
  } finally {
    child.kill('SIGTERM');
  }
}

async function run(dir: string): Promise<void> {
  const files = writeSyntheticEstate(join(dir, 'estate'), SCALE);
  appendFileSync(files.manifest, IDENTITY);
  const out = join(dir, 'out');
  const code = await main(['compile', '--manifest', files.manifest, '--catalog', files.catalog, '--profile', 'review', '--out', out], {
    stdout: () => {},
    stderr: () => {},
    cwd: process.cwd(),
    env: { SOURCE_DATE_EPOCH: '0' },
    stdin: async () => '',
  });
  if (code !== 0) throw new Error(`compile exited ${code}`);
  const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8'));
  const agents = Object.keys(data.toolgate.agents);
  const tools = Object.keys(data.toolgate.tools);
  const rand = rng(7);
  const pairs: Pair[] = [];
  for (let i = 0; i < DECISIONS; i++) {
    const agent = agents[Math.floor(rand() * agents.length)]!;
    const granted = Object.keys(data.toolgate.agents[agent].tools);
    const tool = rand() < 0.5 && granted.length > 0 ? granted[Math.floor(rand() * granted.length)]! : tools[Math.floor(rand() * tools.length)]!;
    pairs.push({ agent, tool });
  }
  process.stdout.write(`estate: ${agents.length} agents, ${tools.length} tools, ${DECISIONS} decisions per entrypoint\n`);

  // builtin engine
  const policy = compileModules(enforcementRego().map((m) => ({ name: m.path, text: m.text })));
  const dataValue = fromJSON(data);
  const refs = NAMES.map((name) => `data.${ENTRYPOINTS[name]!.path.split('/').join('.')}`);
  const inputs = NAMES.map((name) => pairs.map((p) => ENTRYPOINTS[name]!.input(p)));
  const evalOne = (k: number, i: number): number => {
    const input = inputs[k]![i];
    const t0 = performance.now();
    policy.evalRule(refs[k]!, { input: fromJSON(input), data: dataValue });
    return performance.now() - t0;
  };
  for (let k = 0; k < NAMES.length; k++) for (let i = 0; i < 200; i++) evalOne(k, i);
  collectGarbage();
  report('builtin', await interleaved(evalOne, pairs.length));

  const opa = OPA_BINARY;
  if (!existsSync(opa)) {
    process.stdout.write(`opa, opa in-process: skipped (no ${opa}; run scripts/install-go-tools.sh)\n`);
    return;
  }
  const bundle = join(out, 'bundle.tar.gz');
  await benchServer(opa, bundle, inputs);

  // the first allowed and refused pairs, as the plain decision answers them, alternating
  const allowed = (i: number): boolean => {
    const answer = policy.evalRule(refs[0]!, { input: fromJSON(pairs[i]), data: dataValue });
    return answer !== undefined && (toJSON(answer) as { allow?: unknown }).allow === true;
  };
  const granted: number[] = [];
  const refused: number[] = [];
  for (let i = 0; i < pairs.length && (granted.length < IN_PROCESS_PAIRS || refused.length < IN_PROCESS_PAIRS); i++) {
    const into = allowed(i) ? granted : refused;
    if (into.length < IN_PROCESS_PAIRS) into.push(i);
  }
  const chosen = Array.from({ length: Math.max(granted.length, refused.length) }, (_, c) => [granted[c], refused[c]]).flat().filter((i) => i !== undefined);
  process.stdout.write(`opa in-process: opa bench on ${granted.length} allowed and ${refused.length} refused pairs per entrypoint\n`);
  benchInProcess(opa, bundle, dir, inputs, chosen);
}

const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-gw-'));
try {
  await run(dir);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
