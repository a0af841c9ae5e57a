/**
 * decide's compiled-policy cache: a certificate stored by the first load of a set of modules lets
 * a later load compile only what the decision reaches, and the answers and refusals stay those of
 * the whole policy. Covers a miss then a hit, data that differs under the same modules, different
 * modules, a damaged entry, a certificate the modules contradict, a data document conflicting with
 * a rule the decision does not reach, a folder others may write to, pruning, the CLI's folder,
 * several processes writing one entry at once, and the read-only certificates a build ships.
 */
import { describe, it, expect } from 'vitest';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleDecider, type PolicyCertificateStore } from '../../../src/bundle/decider.ts';
import { folderStore, PRUNE_AFTER_DAYS, withShipped } from '../../../src/cli/policy-cache.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { runCli } from '../../helpers/cli.ts';
import { cacheOf, compiled, enc, memoryStore, smallBundle } from '../../helpers/decide-bundles.ts';
import { REPO, TOOLGATE } from '../../helpers/processes.ts';

async function refusal(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message };
  }
  return 'no refusal';
}

async function decision(p: Promise<{ decide(a: string, t: string): unknown }>): Promise<unknown> {
  try {
    return (await p).decide('a', 't');
  } catch (e) {
    return { code: (e as { code?: string }).code, message: (e as Error).message };
  }
}

describe('decide with a compiled-policy cache', () => {
  it.each([
    ['quickstart', 'strict'],
    ['quickstart', 'explore'],
    ['fleet', 'strict'],
    ['fleet', 'review'],
  ])('on the %s bundle under %s: a miss stores a certificate, a hit answers every pair as the whole policy does', async (example, profile) => {
    const { bytes, agents, tools } = await compiled(example, profile);
    const store = memoryStore();
    const plain = await bundleDecider(bytes);
    const first = await bundleDecider(bytes, 'b', undefined, cacheOf(store));
    expect(first.cached).toBe(false);
    expect(store.entries.size).toBe(1);
    const second = await bundleDecider(bytes, 'b', undefined, cacheOf(store));
    expect(second.cached).toBe(true);
    expect(second.revision).toBe(plain.revision);
    // the hit compiled the parsed rules the entry holds; an entry without them compiles the reached modules' text
    const [key, entry] = [...store.entries][0]!;
    const modules = (entry as { modules: { ast?: unknown }[] }).modules;
    expect(modules.some((m) => m.ast !== undefined)).toBe(true);
    const noTrees = { ...(entry as object), modules: modules.map(({ ast: _, ...m }) => m) };
    const fromText = await bundleDecider(bytes, 'b', undefined, cacheOf({ get: (k) => (k === key ? structuredClone(noTrees) : undefined), put: () => {} }));
    expect(fromText.cached).toBe(true);
    for (const agent of agents) {
      for (const tool of tools) {
        expect(second.decide(agent, tool), `${agent} ${tool}`).toEqual(plain.decide(agent, tool));
        expect(fromText.decide(agent, tool), `${agent} ${tool}`).toEqual(plain.decide(agent, tool));
      }
    }
  });

  it('the same modules with other data hit, and answer from their own data; other modules miss', async () => {
    const store = memoryStore();
    const strict = await compiled('quickstart', 'strict');
    const explore = await compiled('quickstart', 'explore');
    await bundleDecider(strict.bytes, 'b', undefined, cacheOf(store));
    const hit = await bundleDecider(explore.bytes, 'b', undefined, cacheOf(store));
    expect(hit.cached).toBe(true);
    expect(hit.decide('ci-bot', 'git::git_show')).toEqual((await bundleDecider(explore.bytes)).decide('ci-bot', 'git::git_show'));
    expect((hit.decide('ci-bot', 'git::git_show') as { profile: string }).profile).toBe('explore');
    const other = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    expect((await bundleDecider(other, 'b', undefined, cacheOf(store))).cached).toBe(false);
    // another engine never reads this one's entries
    expect((await bundleDecider(strict.bytes, 'b', undefined, cacheOf(store, 'another build'))).cached).toBe(false);
  });

  it('a module that starts with a BOM is certified byte for byte: the next load hits, one without the BOM misses', async () => {
    const store = memoryStore();
    const withBom = await smallBundle('\uFEFFpackage toolgate.other\n\nq := 1\n', { x: 'a' });
    expect((await bundleDecider(withBom, 'b', undefined, cacheOf(store))).cached).toBe(false);
    const hit = await bundleDecider(withBom, 'b', undefined, cacheOf(store));
    expect(hit.cached).toBe(true);
    expect(hit.decide('a', 't')).toEqual({ allow: true, via: 'lib' });
    const [key, entry] = [...store.entries][0]!;
    // the same text without its BOM is other bytes: the entry, even found under its key, is not its certificate
    const withoutBom = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    const anyKey: PolicyCertificateStore = { get: (k) => ({ ...(entry as object), key: k }), put: () => {} };
    expect((await bundleDecider(withoutBom, 'b', undefined, cacheOf(anyKey))).cached).toBe(false);
    expect(key).toMatch(/^[0-9a-f]{8}$/);
  });

  it('compiles only what the decision reaches, and still refuses data filling a rule it does not reach, as the whole policy does', async () => {
    const store = memoryStore();
    const first = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    expect(await decision(bundleDecider(first, 'b', undefined, cacheOf(store)))).toEqual({ allow: true, via: 'lib' });
    // same modules, data that fills data.toolgate.other.q, a rule of a module the decision does not reach
    const conflicting = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a', other: { q: 2 } });
    const hit = await bundleDecider(conflicting, 'b', undefined, cacheOf(store));
    expect(hit.cached).toBe(true);
    const want = await decision(bundleDecider(conflicting));
    expect(want).toMatchObject({ message: expect.stringContaining('conflicting rule for data path toolgate/other/q') });
    expect(await decision(Promise.resolve(hit))).toEqual(want);
    // a value that is not an object where rules lie below it: the refusal names the first rule under it
    const scalar = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a', other: 'not an object' });
    const scalarHit = await bundleDecider(scalar, 'b', undefined, cacheOf(store));
    expect(scalarHit.cached).toBe(true);
    const scalarWant = await decision(bundleDecider(scalar));
    expect(scalarWant).toMatchObject({ message: expect.stringContaining('conflicting rule for data path toolgate/other/q') });
    expect(await decision(Promise.resolve(scalarHit))).toEqual(scalarWant);
  });

  it.each([
    ['an unsafe variable', 'package toolgate.other\n\nq := y\n', 'unsafe'],
    // a certified part is not checked again for types, conflicts or recursion, so no certificate may be made for them
    ['a type error', 'package toolgate.other\n\nq := contains(null, "")\n', 'rego_type_error'],
    ['conflicting rules', 'package toolgate.other\n\nq := 1\n\nq contains 2\n', 'conflicting rules'],
    ['recursion', 'package toolgate.other\n\nq := r\n\nr := q\n', 'rego_recursion_error'],
  ])('a module that does not compile (%s) is refused with and without the cache, and stores nothing', async (_, other, fault) => {
    const store = memoryStore();
    const broken = await smallBundle(other, { x: 'a' });
    const want = await refusal(bundleDecider(broken));
    expect(want).toMatchObject({ code: 'BUNDLE_INVALID', message: expect.stringContaining(fault) });
    expect(await refusal(bundleDecider(broken, 'bundle.tar.gz', undefined, cacheOf(store)))).toEqual(want);
    expect(store.entries.size).toBe(0);
  });

  it('a certificate the reachable modules contradict is not trusted: the whole policy is loaded and refused as without it', async () => {
    const good = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    const store = memoryStore();
    await bundleDecider(good, 'b', undefined, cacheOf(store));
    const [key, entry] = [...store.entries][0]!;
    // the same certificate handed out for a bundle whose decision module does not compile
    const bad = await emitTarGz([
      { name: '.manifest', bytes: enc(JSON.stringify({ revision: 'r1', roots: ['toolgate'] })) },
      { name: 'toolgate/authz/authz.rego', bytes: enc('package toolgate.authz\n\ndecision := unknown_fn(1)\n') },
      { name: 'toolgate/lib/lib.rego', bytes: enc('package toolgate.lib\n\nk := "lib"\n') },
      { name: 'toolgate/other/other.rego', bytes: enc('package toolgate.other\n\nq := 1\n') },
    ]);
    const lying: PolicyCertificateStore = { get: () => ({ ...(entry as object), key: undefined }), put: () => {} };
    const anyKey: PolicyCertificateStore = { get: (k) => ({ ...(entry as object), key: k }), put: () => {} };
    const want = await refusal(bundleDecider(bad));
    expect(want).toMatchObject({ code: 'BUNDLE_INVALID' });
    // an entry found under this key (a colliding key) but made for other module bytes is a miss
    expect(await refusal(bundleDecider(bad, 'bundle.tar.gz', undefined, cacheOf(anyKey)))).toEqual(want);
    // a forged entry naming exactly these modules, bytes and all, but not their parsed trees: the
    // part, parsed from its bytes, does not compile and exposes it (the trees an entry holds are
    // trusted as the code cache beside them is: the folder is private to the user)
    const modules = (entry as { modules: { entryName: string; source: string; ast?: unknown }[] }).modules;
    const badSource = 'package toolgate.authz\n\ndecision := unknown_fn(1)\n';
    const forged = { ...(entry as object), modules: modules.map(({ ast: _, ...m }) => (m.entryName.endsWith('authz.rego') ? { ...m, source: badSource } : m)) };
    expect(modules.some((m) => m.entryName.endsWith('authz.rego'))).toBe(true);
    const forging: PolicyCertificateStore = { get: (k) => ({ ...forged, key: k }), put: () => {} };
    expect(await refusal(bundleDecider(bad, 'bundle.tar.gz', undefined, cacheOf(forging)))).toEqual(want);
    // an entry stored under another key is not a certificate for this one
    expect((await bundleDecider(good, 'b', undefined, cacheOf(lying))).cached).toBe(false);
    expect(key).toMatch(/^[0-9a-f]{8}$/);
  });

  it('in a folder: a damaged entry reads as absent and the next run rewrites it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const store = folderStore(dir);
    const bundle = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    expect((await bundleDecider(bundle, 'b', undefined, cacheOf(store))).cached).toBe(false);
    const [file] = readdirSync(dir);
    expect(file).toMatch(/^[0-9a-f]{8}\.json$/);
    expect((await bundleDecider(bundle, 'b', undefined, cacheOf(store))).cached).toBe(true);
    const good = readFileSync(join(dir, file!), 'utf8');
    for (const damaged of [good.slice(0, good.length - 10), good.replace('"toolgate"', '"toolgatf"'), 'not json', '']) {
      writeFileSync(join(dir, file!), damaged);
      const d = await bundleDecider(bundle, 'b', undefined, cacheOf(store));
      expect(d.cached).toBe(false);
      expect(d.decide('a', 't')).toEqual({ allow: true, via: 'lib' });
      expect(readFileSync(join(dir, file!), 'utf8')).toBe(good);
    }
    expect(readdirSync(dir)).toEqual([file]);
  });

  it('an empty folder falls back to the shipped certificates, never writing them; a damaged shipped entry costs a full compile, same answer', async () => {
    const shipped = mkdtempSync(join(tmpdir(), 'toolgate-shipped-'));
    const { bytes } = await compiled('quickstart', 'strict');
    await bundleDecider(bytes, 'b', undefined, cacheOf(folderStore(shipped)));
    const [file] = readdirSync(shipped);
    const want = (await bundleDecider(bytes)).decide('ci-bot', 'git::git_show');
    const own = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const warm = await bundleDecider(bytes, 'b', undefined, cacheOf(withShipped(folderStore(own), shipped)));
    expect(warm.cached).toBe(true);
    expect(warm.decide('ci-bot', 'git::git_show')).toEqual(want);
    expect(readdirSync(own)).toEqual([]);
    const good = readFileSync(join(shipped, file!), 'utf8');
    writeFileSync(join(shipped, file!), good.replace('"toolgate', '"toolgatf'));
    const cold = await bundleDecider(bytes, 'b', undefined, cacheOf(withShipped(folderStore(own), shipped)));
    expect(cold.cached).toBe(false);
    expect(cold.decide('ci-bot', 'git::git_show')).toEqual(want);
    // the full compile is recorded in the user's folder, the shipped entry is left as it was
    expect(readdirSync(own)).toEqual([file]);
    expect(readFileSync(join(shipped, file!), 'utf8')).not.toBe(good);
  });

  it.skipIf(process.platform === 'win32')('a folder others may write to is neither read nor written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const store = folderStore(dir);
    const bundle = await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' });
    await bundleDecider(bundle, 'b', undefined, cacheOf(store));
    expect((await bundleDecider(bundle, 'b', undefined, cacheOf(store))).cached).toBe(true);
    chmodSync(dir, 0o777);
    expect((await bundleDecider(bundle, 'b', undefined, cacheOf(store))).cached).toBe(false);
    const shared = join(dir, 'shared');
    mkdirSync(shared, { mode: 0o775 });
    chmodSync(shared, 0o775);
    await bundleDecider(bundle, 'b', undefined, cacheOf(folderStore(shared)));
    expect(readdirSync(shared)).toEqual([]);
  });

  it(`a write removes entries not rewritten for ${PRUNE_AFTER_DAYS} days, and keeps the others`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const store = folderStore(dir);
    const old = join(dir, `${'0'.repeat(64)}.json`);
    const recent = join(dir, `${'1'.repeat(64)}.json`);
    writeFileSync(old, 'x');
    writeFileSync(recent, 'x');
    const past = (Date.now() - (PRUNE_AFTER_DAYS + 1) * 86_400_000) / 1000;
    utimesSync(old, past, past);
    await bundleDecider(await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' }), 'b', undefined, cacheOf(store));
    const left = readdirSync(dir);
    expect(left).toHaveLength(2);
    expect(left).toContain(`${'1'.repeat(64)}.json`);
    expect(left).not.toContain(`${'0'.repeat(64)}.json`);
  });

  it('the CLI keeps certificates in TOOLGATE_CACHE_DIR, none with --no-cache or with no folder named, and answers alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const bundlePath = join(dir, 'bundle.tar.gz');
    writeFileSync(bundlePath, await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' }));
    const decide = (env: Record<string, string>, ...flags: string[]) => runCli(['decide', 'a', 't', '--bundle', bundlePath, ...flags], { env });
    const plain = await decide({});
    expect(plain.code, plain.stderr).toBe(0);
    expect(readdirSync(dir)).toEqual(['bundle.tar.gz']);
    const off = await decide({ TOOLGATE_CACHE_DIR: join(dir, 'off') }, '--no-cache');
    expect(off.stdout).toBe(plain.stdout);
    expect(readdirSync(dir)).toEqual(['bundle.tar.gz']);
    for (let i = 0; i < 2; i++) expect((await decide({ TOOLGATE_CACHE_DIR: join(dir, 'on') })).stdout).toBe(plain.stdout);
    expect(readdirSync(join(dir, 'on', 'policy'))).toHaveLength(1);
  });

  it('processes deciding at once on one cache folder all answer alike and leave one whole entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-policy-cache-'));
    const bundlePath = join(dir, 'bundle.tar.gz');
    writeFileSync(bundlePath, await smallBundle('package toolgate.other\n\nq := 1\n', { x: 'a' }));
    const cache = join(dir, 'cache');
    const run = () =>
      new Promise<{ code: number | null; stdout: string }>((done) => {
        const p = spawn(process.execPath, [TOOLGATE, 'decide', 'a', 't', '--bundle', bundlePath], { cwd: REPO, env: { PATH: process.env.PATH ?? '', TOOLGATE_CACHE_DIR: cache } });
        let stdout = '';
        p.stdout.on('data', (c) => (stdout += c));
        p.on('close', (code) => done({ code, stdout }));
      });
    const runs = await Promise.all([run(), run(), run(), run()]);
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).decision).toEqual({ allow: true, via: 'lib' });
    }
    const files = readdirSync(join(cache, 'policy'));
    expect(files).toHaveLength(1);
    expect(folderStore(join(cache, 'policy')).get(files[0]!.replace(/\.json$/, ''))).toMatchObject({ format: 'toolgate-policy-certificate/3' });
    const again = await run();
    expect(JSON.parse(again.stdout).decision).toEqual({ allow: true, via: 'lib' });
    expect(readdirSync(join(cache, 'policy'))).toEqual(files);
  }, 60_000);
});
