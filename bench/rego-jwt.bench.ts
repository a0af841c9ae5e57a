/**
 * JWT-identity decision: the builtin Rego engine against the pinned `opa`, in the same run.
 * The policy verifies an RS256 token (io.jwt.decode_verify against a public key in data, exp checked
 * against a fixed time so results do not depend on the clock) and looks up data.grants[sub][tool].
 * DECISIONS (default 10,000) inputs, each with its own token (no token is asked twice, so OPA's
 * inter-query token cache never hits): some expired, some signed with a stranger key, some for
 * unknown agents, about half the rest for granted tools.
 * - builtin: one evalRule per decision, input converted from plain JSON each time.
 * - opa: `opa run --server` on loopback, one sequential keep-alive POST per decision (HTTP included),
 *   and `opa bench` on one allowed input for OPA's evaluation alone (`opa bench` gives its queries no
 *   inter-query cache, so it verifies the token every round).
 * Both engines' decisions are compared on every input; the mismatch count must be 0.
 * Figures only; nothing here asserts on speed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, OPA_BINARY } from '../test/helpers/loopback.ts';
import { compileModules, fromJSON } from '../src/rego/index.ts';
import { rng } from './synthetic-estate.ts';

const DECISIONS = Number(process.env.DECISIONS ?? 10_000);
const AGENTS = 500;
const TOOLS = 40;
const GRANTED_PER_AGENT = 20;
/** Warm-up tokens of their own, so every measured token is first seen when measured. */
const WARM = 200;
/** The fixed "now" of every verification, in seconds (2025-11-24) and in ns for the `time` constraint. */
const NOW_S = 1_764_000_000;

const POLICY = `package jwtbench

default allow := false

allow if {
	[valid, _, payload] := io.jwt.decode_verify(input.token, {"cert": data.jwt.public_key, "time": ${NOW_S}000000000})
	valid
	data.grants[payload.sub][input.tool]
}
`;

type Input = { token: string; tool: string };

const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');
function jwt(payload: object, key: KeyObject): string {
  const signed = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(payload)}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), key).toString('base64url')}`;
}

function quantiles(ms: number[]): { p50: number; p99: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length * 0.5)]!, p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))]! };
}
const us = (ms: number): string => `${(ms * 1000).toFixed(0).padStart(6)} µs`;

function workload(): { warm: Input[]; inputs: Input[]; data: object } {
  const rand = rng(16);
  const issuer = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const grants: Record<string, Record<string, boolean>> = {};
  for (let a = 0; a < AGENTS; a++) {
    const g: Record<string, boolean> = {};
    for (let t = 0; t < GRANTED_PER_AGENT; t++) g[`tool-${(a + t) % TOOLS}`] = true;
    grants[`agent-${a}`] = g;
  }
  const inputs: Input[] = [];
  for (let i = 0; i < WARM + DECISIONS; i++) {
    const r = rand();
    const sub = `agent-${Math.floor(rand() * (AGENTS + 25))}`; // a few unknown agents
    const exp = r < 0.05 ? NOW_S - 60 : NOW_S + 3600; // 5% expired
    const key = r > 0.95 ? stranger.privateKey : issuer.privateKey; // 5% signed by a stranger
    // `jti` keeps every token distinct even for the same agent.
    inputs.push({ token: jwt({ sub, exp, jti: i }, key), tool: `tool-${Math.floor(rand() * TOOLS)}` });
  }
  const publicKey = issuer.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  return { warm: inputs.slice(0, WARM), inputs: inputs.slice(WARM), data: { jwt: { public_key: publicKey }, grants } };
}

function builtin(warm: Input[], inputs: Input[], data: object): { decisions: boolean[]; q: { p50: number; p99: number } } {
  const policy = compileModules([{ name: 'jwtbench.rego', text: POLICY }]);
  const dataValue = fromJSON(data);
  const ask = (i: Input): boolean => policy.evalRule('data.jwtbench.allow', { input: fromJSON(i), data: dataValue }) === true;
  for (const i of warm) ask(i);
  const decisions: boolean[] = [];
  const ms: number[] = [];
  for (const i of inputs) {
    const t0 = performance.now();
    decisions.push(ask(i));
    ms.push(performance.now() - t0);
  }
  return { decisions, q: quantiles(ms) };
}

async function served(dir: string, warm: Input[], inputs: Input[]): Promise<{ decisions: boolean[]; q: { p50: number; p99: number } }> {
  const port = await freePort();
  const child = spawn(OPA_BINARY, ['run', '--server', '--addr', `127.0.0.1:${port}`, '--log-level', 'error', '--disable-telemetry', join(dir, 'policy.rego'), join(dir, 'data.json')], { stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${url}/health`)).status === 200) break;
      } catch {
        // not up yet
      }
      if (i > 2000) throw new Error('opa did not become healthy');
      await new Promise((r) => setTimeout(r, 25));
    }
    const ask = async (i: Input): Promise<boolean> => {
      const r = await fetch(`${url}/v1/data/jwtbench/allow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: i }) });
      return ((await r.json()) as { result?: unknown }).result === true;
    };
    for (const i of warm) await ask(i);
    const decisions: boolean[] = [];
    const ms: number[] = [];
    for (const i of inputs) {
      const t0 = performance.now();
      decisions.push(await ask(i));
      ms.push(performance.now() - t0);
    }
    return { decisions, q: quantiles(ms) };
  } finally {
    child.kill('SIGTERM');
  }
}

/** `opa bench` on one input: OPA's own evaluation time, ns per decision (mean and p50/p99 of its histogram). */
function opaBench(dir: string, input: Input): { mean: number; p50?: number; p99?: number } {
  writeFileSync(join(dir, 'input.json'), JSON.stringify(input));
  const r = spawnSync(OPA_BINARY, ['bench', '--format', 'json', '-d', join(dir, 'policy.rego'), '-d', join(dir, 'data.json'), '-i', join(dir, 'input.json'), 'data.jwtbench.allow'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`opa bench exited ${r.status}: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as { N: number; T: number; Extra?: Record<string, number> };
  const x = out.Extra ?? {};
  return { mean: out.T / out.N, p50: x['histogram_timer_rego_query_eval_ns_median'], p99: x['histogram_timer_rego_query_eval_ns_99%'] };
}

async function run(): Promise<void> {
  const { warm, inputs, data } = workload();
  const b = builtin(warm, inputs, data);
  const allowed = b.decisions.filter(Boolean).length;
  process.stdout.write(`JWT identity (RS256 decode_verify + grant lookup), ${DECISIONS} distinct tokens, ${AGENTS} agents, ${allowed} allowed\n`);
  process.stdout.write(`builtin  p50 ${us(b.q.p50)}  p99 ${us(b.q.p99)}\n`);
  if (!existsSync(OPA_BINARY)) {
    process.stdout.write(`opa: skipped (no ${OPA_BINARY}; run scripts/install-go-tools.sh)\n`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-jwt-'));
  writeFileSync(join(dir, 'policy.rego'), POLICY);
  writeFileSync(join(dir, 'data.json'), JSON.stringify(data));
  const o = await served(dir, warm, inputs);
  const mismatches = o.decisions.filter((d, i) => d !== b.decisions[i]).length;
  process.stdout.write(`opa http p50 ${us(o.q.p50)}  p99 ${us(o.q.p99)}  (one POST per decision, HTTP included)\n`);
  process.stdout.write(`ratio builtin / opa http: p50 ${(b.q.p50 / o.q.p50).toFixed(2)}x  p99 ${(b.q.p99 / o.q.p99).toFixed(2)}x\n`);
  const ob = opaBench(dir, inputs.find((_, i) => b.decisions[i])!);
  const fmt = (ns: number | undefined): string => (ns === undefined ? '     ?' : us(ns / 1e6));
  process.stdout.write(`opa bench (one allowed input, evaluation only) mean ${fmt(ob.mean)}  p50 ${fmt(ob.p50)}  p99 ${fmt(ob.p99)}\n`);
  if (ob.p50 !== undefined && ob.p99 !== undefined) {
    process.stdout.write(`ratio builtin / opa bench: p50 ${(b.q.p50 / (ob.p50 / 1e6)).toFixed(2)}x  p99 ${(b.q.p99 / (ob.p99 / 1e6)).toFixed(2)}x\n`);
  }
  process.stdout.write(`decision mismatches builtin vs opa: ${mismatches} of ${inputs.length}\n`);
  if (mismatches !== 0) process.exitCode = 1;
}

await run();
