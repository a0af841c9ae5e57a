/**
 * decide's bundle views: a load of a tarball stores, under its bytes, the decision's part of it, so
 * a later load of the same bytes reads neither the tarball nor the certificate store. The answers
 * and refusals stay those of the whole policy: a hit, other bytes under the view's key, a damaged
 * view, data JSON cannot keep, explicit tarball limits, and the CLI's folder.
 */
import { describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleDecider, type PolicyCertificateStore } from '../../../src/bundle/decider.ts';
import { folderStore } from '../../../src/cli/policy-cache.ts';
import { runCli } from '../../helpers/cli.ts';
import { cacheOf, compiled, memoryStore, smallBundle } from '../../helpers/decide-bundles.ts';

const OTHER = 'package toolgate.other\n\nq := 1\n';

describe('decide with bundle views', () => {
  it.each([
    ['quickstart', 'strict'],
    ['fleet', 'review'],
  ])('on the %s bundle under %s: the second load answers from the view alone, every pair as the whole policy does', async (example, profile) => {
    const { bytes, agents, tools } = await compiled(example, profile);
    const [store, views] = [memoryStore(), memoryStore()];
    const plain = await bundleDecider(bytes);
    expect((await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views))).cached).toBe(false);
    expect([store.entries.size, views.entries.size]).toEqual([1, 1]);
    const readsBefore = store.gets;
    const hit = await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views));
    expect(hit.cached).toBe(true);
    // the view held all the load needed: the certificate store was not asked
    expect(store.gets).toBe(readsBefore);
    expect(hit.revision).toBe(plain.revision);
    for (const agent of agents) for (const tool of tools) expect(hit.decide(agent, tool), `${agent} ${tool}`).toEqual(plain.decide(agent, tool));
    // a view keeps the reached modules only, not the whole bundle's Rego
    const view = [...views.entries.values()][0] as { modules: { id: string }[] };
    expect(view.modules.map((m) => m.id)).toEqual(['toolgate/authz.rego']);
  });

  it('a certificate hit stores a view too, and the next load of those bytes uses it', async () => {
    const { bytes } = await compiled('quickstart', 'strict');
    const [store, fresh] = [memoryStore(), memoryStore()];
    await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', fresh));
    const views = memoryStore();
    const certified = await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views));
    expect(certified.cached).toBe(true);
    // the same view as the full compile stored: compiling the certificate's trees left them as stored
    expect([...views.entries]).toEqual([...fresh.entries]);
    const readsBefore = store.gets;
    expect((await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views))).decide('ci-bot', 'git::git_show')).toEqual(certified.decide('ci-bot', 'git::git_show'));
    expect(store.gets).toBe(readsBefore);
  });

  it('a view of other bytes, found under this key, is not used: the tarball is read and its own data answers', async () => {
    const [store, views] = [memoryStore(), memoryStore()];
    const a = await smallBundle(OTHER, { x: 'a' });
    const b = await smallBundle(OTHER, { x: 'b' });
    await bundleDecider(a, 'b', undefined, cacheOf(store, 'test', views));
    const [, viewOfA] = [...views.entries][0]!;
    const anyKey: PolicyCertificateStore = { get: (k) => ({ ...(viewOfA as object), key: k }), put: () => {} };
    const d = await bundleDecider(b, 'b', undefined, cacheOf(store, 'test', anyKey));
    expect(d.decide('b', 't')).toEqual({ allow: true, via: 'lib' });
    expect(d.decide('a', 't')).toEqual({ allow: false, via: 'lib' });
    // another engine's views are under other keys
    const other = memoryStore();
    await bundleDecider(a, 'b', undefined, cacheOf(store, 'another build', other));
    expect([...other.entries.keys()]).not.toEqual([...views.entries.keys()]);
  });

  it('a damaged view costs a load of the tarball, answers alike, and is written again', async () => {
    const [store, views] = [memoryStore(), memoryStore()];
    const bytes = await smallBundle(OTHER, { x: 'a' });
    await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views));
    const [key, good] = [...views.entries][0]! as [string, { modules: { id: string; text: string; ast?: unknown }[] }];
    const damaged: unknown[] = [
      { ...good, rules: 'not an outline' },
      { ...good, data: [] },
      { ...good, modules: [{ id: 1 }] },
      { ...good, tarball: Buffer.from('other').toString('base64') },
      // a part that does not compile: the view is not trusted, the tarball is read
      { ...good, modules: good.modules.map(({ ast: _, ...m }) => ({ ...m, text: 'package toolgate.authz\n\ndecision := unknown_fn(1)\n' })) },
    ];
    for (const v of damaged) {
      views.entries.set(key, v);
      const readsBefore = store.gets;
      const d = await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views));
      expect(d.cached).toBe(true);
      expect(store.gets).toBe(readsBefore + 1);
      expect(d.decide('a', 't')).toEqual({ allow: true, via: 'lib' });
      expect(views.entries.get(key)).toEqual(good);
    }
  });

  it.each([
    ['a -0', '{"x": "a", "n": -0}'],
    ['a -0 in an array', '{"x": "a", "n": [1, -0.0]}'],
  ])('data holding %s, which JSON cannot keep, gets no view', async (_, dataText) => {
    const [store, views] = [memoryStore(), memoryStore()];
    const bytes = await smallBundle(OTHER, undefined, dataText);
    const want = (await bundleDecider(bytes)).decide('a', 't');
    for (let i = 0; i < 2; i++) expect((await bundleDecider(bytes, 'b', undefined, cacheOf(store, 'test', views))).decide('a', 't')).toEqual(want);
    expect(views.entries.size).toBe(0);
    expect(store.entries.size).toBe(1);
  });

  it('a load with explicit tarball limits neither reads nor writes views', async () => {
    const [store, views] = [memoryStore(), memoryStore()];
    const bytes = await smallBundle(OTHER, { x: 'a' });
    await bundleDecider(bytes, 'b', { maxEntries: 10 }, cacheOf(store, 'test', views));
    expect([views.entries.size, views.gets]).toEqual([0, 0]);
  });

  it("the CLI keeps views in the cache folder beside the certificates, writing one on a bundle's second decide, and answers alike from it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bundle-views-'));
    const bundlePath = join(dir, 'bundle.tar.gz');
    writeFileSync(bundlePath, await smallBundle(OTHER, { x: 'a' }));
    const views = join(dir, 'cache', 'bundles');
    const decide = () => runCli(['decide', 'a', 't', '--bundle', bundlePath], { env: { TOOLGATE_CACHE_DIR: join(dir, 'cache') } });
    const first = await decide();
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout).decision).toEqual({ allow: true, via: 'lib' });
    // the first decide records its miss only
    const [miss] = readdirSync(views);
    expect(miss).toMatch(/^[0-9a-f]{8}\.miss$/);
    expect((await decide()).stdout).toBe(first.stdout);
    expect(readdirSync(views)).toEqual([miss!.replace(/\.miss$/, '.json')]);
    expect((await decide()).stdout).toBe(first.stdout);
    expect(folderStore(views).get(miss!.replace(/\.miss$/, ''))).toMatchObject({ format: 'toolgate-bundle-view/1' });
  });

  it.skipIf(process.platform === 'win32')('a views folder that is a file, or that others may write to, is neither read nor written, and decide answers alike', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-bundle-views-'));
    const bundlePath = join(dir, 'bundle.tar.gz');
    writeFileSync(bundlePath, await smallBundle(OTHER, { x: 'a' }));
    const want = { allow: true, via: 'lib' };
    const asFile = join(dir, 'file-cache');
    mkdirSync(asFile, { mode: 0o700 });
    writeFileSync(join(asFile, 'bundles'), 'not a folder');
    const shared = join(dir, 'shared-cache');
    mkdirSync(join(shared, 'bundles'), { recursive: true, mode: 0o700 });
    chmodSync(join(shared, 'bundles'), 0o777);
    for (const cache of [asFile, shared]) {
      for (let i = 0; i < 3; i++) {
        const r = await runCli(['decide', 'a', 't', '--bundle', bundlePath], { env: { TOOLGATE_CACHE_DIR: cache } });
        expect(r.code, r.stderr).toBe(0);
        expect(JSON.parse(r.stdout).decision).toEqual(want);
      }
    }
    expect(readFileSync(join(asFile, 'bundles'), 'utf8')).toBe('not a folder');
    expect(readdirSync(join(shared, 'bundles'))).toEqual([]);
  });
});
