/** Bundles and certificate stores for the tests of decide's caches (bundle/decider.ts). */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { PolicyCacheOptions, PolicyCertificateStore } from '../../src/bundle/decider.ts';
import { emitTarGz } from '../../src/emit/opa-tarball.ts';
import { runCli } from './cli.ts';

export const enc = (s: string) => new TextEncoder().encode(s);

/** A store in memory, values copied in and out as a folder's JSON would be; `gets` counts reads. */
export function memoryStore(): PolicyCertificateStore & { entries: Map<string, unknown>; gets: number } {
  const entries = new Map<string, unknown>();
  const store = {
    entries,
    gets: 0,
    get: (k: string) => {
      store.gets++;
      return entries.has(k) ? structuredClone(entries.get(k)) : undefined;
    },
    put: (k: string, v: unknown) => void entries.set(k, structuredClone(v)),
  };
  return store;
}

export const cacheOf = (store: PolicyCertificateStore, engine = 'test', views?: PolicyCertificateStore): PolicyCacheOptions => ({ store, engine, ...(views ? { views } : {}) });

/** An example compiled under a profile: its bundle's bytes, and its agents and tools with one unknown of each. */
export async function compiled(example: string, profile: string): Promise<{ bytes: Uint8Array; agents: string[]; tools: string[] }> {
  const out = mkdtempSync(join(tmpdir(), 'toolgate-decide-cache-'));
  const r = await runCli(['compile', '--example', example, '--profile', profile, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
  expect(r.code, r.stderr).toBe(0);
  const bundle = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8'));
  return { bytes: readFileSync(join(out, 'bundle.tar.gz')), agents: [...Object.keys(bundle.agents), 'nobody'], tools: [...bundle.tools.map((t: { tool_key: string }) => t.tool_key), 'nowhere::nothing'] };
}

/** A bundle of the authz module (deciding from data.toolgate.x) and a module of another package. */
export function smallBundle(other: string, data: unknown, dataText = JSON.stringify(data)): Promise<Uint8Array> {
  return emitTarGz([
    { name: '.manifest', bytes: enc(JSON.stringify({ revision: 'r1', roots: ['toolgate'] })) },
    { name: 'toolgate/authz/authz.rego', bytes: enc('package toolgate.authz\n\ndecision := {"allow": data.toolgate.x == input.agent, "via": helper}\n\nhelper := data.toolgate.lib.k\n') },
    { name: 'toolgate/lib/lib.rego', bytes: enc('package toolgate.lib\n\nk := "lib"\n') },
    { name: 'toolgate/other/other.rego', bytes: enc(other) },
    { name: 'toolgate/data.json', bytes: enc(dataText) },
  ]);
}
