/**
 * The real `opa` binary for tests: found at $TOOLGATE_OPA, else at .cache/bin/opa (built by
 * scripts/install-go-tools.sh at the version pinned in scripts/go-tools.txt). In CI (CI=true) a
 * missing binary fails the suite that needs it; elsewhere the suite skips and its name says why.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { freePort, OPA_BINARY } from './loopback.ts';

export { freePort } from './loopback.ts';

export type OpaStatus = { ok: true; path: string; version: string } | { ok: false; reason: string };

function findOpa(): OpaStatus {
  const path = OPA_BINARY;
  if (!existsSync(path)) return { ok: false, reason: `no opa at ${path} (run scripts/install-go-tools.sh, or set TOOLGATE_OPA)` };
  const r = spawnSync(path, ['version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.error || r.status !== 0) return { ok: false, reason: `${path} version failed: ${r.error?.message ?? r.stderr}` };
  return { ok: true, path, version: /Version:\s*(\S+)/.exec(r.stdout)?.[1] ?? 'unknown' };
}

export const opa: OpaStatus = findOpa();

/** The binary's path; only call inside a suite declared with describeWithOpa. */
export function opaPath(): string {
  if (!opa.ok) throw new Error(opa.reason);
  return opa.path;
}

/**
 * A suite that needs the real OPA: runs when it is there, fails in CI when it is not, and
 * otherwise skips with the reason in its name.
 */
export function describeWithOpa(name: string, body: () => void): void {
  if (opa.ok) {
    describe(`${name} (opa ${opa.version})`, body);
  } else if (process.env.CI === 'true' || process.env.CI === '1') {
    const reason = opa.reason;
    describe(name, () => {
      it('needs the real opa binary in CI', () => {
        throw new Error(reason);
      });
    });
  } else {
    describe.skip(`${name} (skipped outside CI: ${opa.reason})`, body);
  }
}

export interface OpaRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `opa ARGS...` to completion. */
export function runOpa(args: readonly string[], options: { cwd?: string; input?: string; timeoutMs?: number } = {}): OpaRun {
  const r = spawnSync(opaPath(), args, { cwd: options.cwd, input: options.input, encoding: 'utf8', timeout: options.timeoutMs ?? 60_000, maxBuffer: 256 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface OpaServer {
  readonly url: string;
  readonly pid: number;
  /** Everything the server printed so far (OPA logs to stderr). */
  log(): string;
  /** POSTs `{input}` to /v1/data/PATH and returns the parsed JSON body. */
  query(path: string, input: unknown): Promise<{ result?: unknown }>;
  stop(): Promise<void>;
}

/**
 * `opa run --server` on a loopback port with ARGS (e.g. `--bundle b.tar.gz`), resolved when
 * /health answers 200 (with `bundles` true it waits for every bundle to be activated). Rejects,
 * with OPA's log, when the process exits first.
 */
export async function startOpaServer(args: readonly string[], options: { waitBundles?: boolean; timeoutMs?: number } = {}): Promise<OpaServer> {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const child: ChildProcess = spawn(opaPath(), ['run', '--server', '--addr', addr, '--log-level', 'error', '--disable-telemetry', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  let exited: number | null | undefined;
  // 'close' (not 'exit'): it comes after the pipes are drained, so the log holds OPA's last words.
  const exit = new Promise<void>((resolve) => child.once('close', (code) => ((exited = code), resolve())));
  const url = `http://${addr}`;
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exit;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const health = `${url}/health${options.waitBundles === false ? '' : '?bundles'}`;
  for (;;) {
    if (exited !== undefined) throw new Error(`opa run exited ${exited} before it was healthy:\n${out}`);
    try {
      const r = await fetch(health);
      if (r.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`opa run was not healthy within the deadline:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    pid: child.pid!,
    log: () => out,
    async query(path, input) {
      const r = await fetch(`${url}/v1/data/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
      const body = await r.text();
      if (r.status !== 200) throw new Error(`opa answered ${r.status}: ${body}`);
      return JSON.parse(body) as { result?: unknown };
    },
    stop,
  };
}
