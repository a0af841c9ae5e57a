/**
 * The `opa` binary as the `opa` engine's runner: `opa build -t wasm -e ENTRYPOINT...` over Rego
 * modules written to a private temp folder, returning the wasm bundle bytes. Absent binary -> the
 * runner reports it unavailable, with the reason, and the engine refuses with ENGINE_UNAVAILABLE.
 * The binary is $TOOLGATE_OPA when set, else `opa` on PATH.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ToolgateError } from '../errors.ts';
import type { OpaRunner } from '../engines/engine.ts';
import type { ModuleSource } from '../rego/index.ts';

export function opaRunner(env: Readonly<Record<string, string | undefined>>, binary = env.TOOLGATE_OPA ?? 'opa'): OpaRunner {
  const spawnEnv = { ...(env as NodeJS.ProcessEnv), PATH: env.PATH ?? process.env.PATH };
  return {
    available() {
      const r = spawnSync(binary, ['version'], { env: spawnEnv, encoding: 'utf8', timeout: 10_000 });
      if (r.error) return { ok: false, reason: `${binary} is not on PATH (${(r.error as NodeJS.ErrnoException).code ?? r.error.message})` };
      if (r.status !== 0) return { ok: false, reason: `${binary} version exited ${r.status}` };
      return { ok: true, version: (/Version:\s*(\S+)/.exec(r.stdout)?.[1] ?? r.stdout.trim().split('\n')[0]) ?? '' };
    },
    buildWasm(modules: readonly ModuleSource[], entrypoints: readonly string[]): Uint8Array {
      const dir = mkdtempSync(join(tmpdir(), 'toolgate-opa-'));
      try {
        const src = join(dir, 'src');
        modules.forEach((m, i) => {
          const p = join(src, `${String(i).padStart(4, '0')}-${m.name.replace(/[^A-Za-z0-9_.-]/g, '_')}`);
          mkdirSync(dirname(p), { recursive: true });
          writeFileSync(p.endsWith('.rego') ? p : `${p}.rego`, m.text);
        });
        const out = join(dir, 'bundle.tar.gz');
        const args = ['build', '-t', 'wasm', ...entrypoints.flatMap((e) => ['-e', e]), '-o', out, src];
        const r = spawnSync(binary, args, { env: spawnEnv, encoding: 'utf8', timeout: 120_000 });
        if (r.error || r.status !== 0) {
          throw new ToolgateError('ENGINE_UNAVAILABLE', `opa build failed: ${(r.error?.message ?? r.stderr ?? '').trim().slice(0, 2000)}`);
        }
        return new Uint8Array(readFileSync(out));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
