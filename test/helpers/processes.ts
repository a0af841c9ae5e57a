/**
 * Long-running processes the publish and fleet tests start themselves: `toolgate bundle serve`,
 * Debian's docker-registry, each on loopback and stopped by its own pid. Every process is also
 * recorded so a failing test cannot leave one running (stopAll in afterAll).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { freePort } from './opa.ts';
import { TOOLGATE } from './toolgate-bin.ts';

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export { TOOLGATE };

export interface Started {
  readonly pid: number;
  log(): string;
  stop(): Promise<void>;
}

const running = new Set<Started>();

/** Stops every process these helpers started and that is still running. */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop()));
}

function track(child: ChildProcess): { started: Started; exited: () => number | null | undefined; exit: Promise<void> } {
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  let code: number | null | undefined;
  const exit = new Promise<void>((resolve) => child.once('exit', (c) => ((code = c), resolve())));
  const started: Started = {
    pid: child.pid!,
    log: () => out,
    async stop() {
      running.delete(started);
      if (code !== undefined) return;
      process.kill(child.pid!, 'SIGTERM');
      const t = setTimeout(() => code === undefined && process.kill(child.pid!, 'SIGKILL'), 3000);
      await exit;
      clearTimeout(t);
    },
  };
  running.add(started);
  return { started, exited: () => code, exit };
}

export interface BundleServer extends Started {
  readonly url: string;
  readonly info: { url: string; bundles: { name: string; revision: string | null; etag: string }[]; receive: { status: string; logs: string } | null };
}

/** `toolgate bundle serve ARGS --port 0`, resolved when it prints its URL. */
export async function startBundleServe(args: readonly string[], env: Record<string, string> = {}): Promise<BundleServer> {
  const child = spawn(process.execPath, [TOOLGATE, 'bundle', 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  const t = track(child);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const line = t.started.log().split('\n').find((l) => l.startsWith('{"url"'));
    if (line) {
      const info = JSON.parse(line) as BundleServer['info'];
      return { ...t.started, url: info.url, info };
    }
    if (t.exited() !== undefined) throw new Error(`bundle serve exited ${t.exited()}:\n${t.started.log()}`);
    if (Date.now() > deadline) {
      await t.started.stop();
      throw new Error(`bundle serve did not start:\n${t.started.log()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Runs the CLI to completion in a child process. */
export function toolgate(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = spawnSync(process.execPath, [TOOLGATE, ...args], {
    cwd: options.cwd ?? REPO,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...(options.env ?? {}) },
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// ---- Debian's docker-registry, unpacked by scripts/install-docker-registry.sh -------------------

export type RegistryStatus = { ok: true; path: string } | { ok: false; reason: string };

export function findRegistry(): RegistryStatus {
  const path = process.env.TOOLGATE_DOCKER_REGISTRY ?? join(REPO, '.cache/docker-registry/usr/bin/docker-registry');
  if (!existsSync(path)) return { ok: false, reason: `no docker-registry at ${path} (run scripts/install-docker-registry.sh)` };
  return { ok: true, path };
}

export function findOras(): RegistryStatus {
  const path = process.env.TOOLGATE_ORAS ?? join(REPO, '.cache/bin/oras');
  if (!existsSync(path)) return { ok: false, reason: `no oras at ${path} (run scripts/install-go-tools.sh)` };
  return { ok: true, path };
}

export interface Registry extends Started {
  /** host:port, e.g. 127.0.0.1:41234 */
  readonly host: string;
}

/**
 * `docker-registry serve CONFIG` with the test's own config: bound to 127.0.0.1 on a free port,
 * storage in `dir`, optional htpasswd auth. Resolved when GET /v2/ answers.
 */
export async function startRegistry(path: string, dir: string, options: { htpasswd?: string } = {}): Promise<Registry> {
  mkdirSync(join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const debugPort = await freePort();
  const config = [
    'version: 0.1',
    'log:',
    '  level: warn',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'storage')}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: 127.0.0.1:${port}`,
    '  debug:',
    `    addr: 127.0.0.1:${debugPort}`,
    ...(options.htpasswd ? ['auth:', '  htpasswd:', '    realm: toolgate-test', `    path: ${options.htpasswd}`] : []),
    '',
  ].join('\n');
  const configPath = join(dir, 'config.yml');
  writeFileSync(configPath, config);
  const child = spawn(path, ['serve', configPath], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  const t = track(child);
  const host = `127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (t.exited() !== undefined) throw new Error(`docker-registry exited ${t.exited()}:\n${t.started.log()}`);
    try {
      const r = await fetch(`http://${host}/v2/`);
      if (r.status === 200 || r.status === 401) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await t.started.stop();
      throw new Error(`docker-registry did not answer:\n${t.started.log()}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { ...t.started, host };
}

/** Polls `probe` until it returns a value other than undefined, or fails after `ms`. */
export async function waitFor<T>(what: string, ms: number, probe: () => Promise<T | undefined> | T | undefined, everyMs = 50): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return { value: v, ms: Date.now() - start };
    } catch (e) {
      last = e;
    }
    if (Date.now() - start > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * A suite that needs the real docker-registry (and oras, when asked): runs when they are there,
 * fails in CI when they are not, and otherwise skips with the reason in its name (as describeWithOpa).
 */
export function describeWithRegistry(name: string, needs: { oras?: boolean }, body: () => void): void {
  const missing = [findRegistry(), ...(needs.oras ? [findOras()] : [])].filter((s): s is { ok: false; reason: string } => !s.ok).map((s) => s.reason);
  if (missing.length === 0) describe(name, body);
  else if (process.env.CI === 'true' || process.env.CI === '1') {
    describe(name, () => {
      it('needs docker-registry (and oras) in CI', () => {
        throw new Error(missing.join('; '));
      });
    });
  } else describe.skip(`${name} (skipped outside CI: ${missing.join('; ')})`, body);
}
