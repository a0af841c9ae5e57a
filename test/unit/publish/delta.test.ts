/**
 * Delta bundles: the patch on its own (refusals, escaping, determinism), then in the real OPA: an
 * OPA on the base revision gets the delta from `bundle serve`, applies it, and then decides every
 * (agent, tool) pair exactly as an OPA loaded with the full new bundle does.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileDelta } from '../../../src/compile/delta.ts';
import { emitDeltaBundle } from '../../../src/emit/delta-bundle.ts';
import { diffData, packageMarkers, patchPathSegment } from '../../../src/compile/delta-patch.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { ToolgateError } from '../../../src/errors.ts';
import { describeWithOpa, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { REPO, startBundleServe, stopAll, toolgate, waitFor, type BundleServer } from '../../helpers/processes.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
const bundle = (data: unknown, rego = 'package toolgate.authz\n\nallow := true\n', manifest: Record<string, unknown> = { revision: 'r', roots: ['toolgate'], rego_version: 1 }, extra: { name: string; bytes: Uint8Array }[] = []) =>
  emitTarGz([{ name: '.manifest', bytes: enc(manifest) }, { name: 'toolgate/data.json', bytes: enc(data) }, { name: 'toolgate/authz.rego', bytes: new TextEncoder().encode(rego) }, ...extra]);

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ToolgateError) return e.code;
    throw e;
  }
  return 'no refusal';
}

describe('diffData', () => {
  it('upserts new keys (a new object member by member), replaces changed values, removes old keys, in that order', () => {
    expect(diffData({ a: { b: 1, c: 2, l: [1] } }, { a: { b: 1, d: { e: 3, f: [4] }, l: [1, 2], n: {} } })).toEqual([
      { op: 'upsert', path: '/a/n', value: {} },
      { op: 'upsert', path: '/a/d/e', value: 3 },
      { op: 'upsert', path: '/a/d/f', value: [4] },
      { op: 'replace', path: '/a/l', value: [1, 2] },
      { op: 'remove', path: '/a/c' },
    ]);
  });
  it('replaces a value whose type changed, an object included', () => {
    expect(diffData({ a: { b: 1 } }, { a: 'x' })).toEqual([{ op: 'replace', path: '/a', value: 'x' }]);
    expect(diffData({ a: 'x' }, { a: { b: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { b: 1 } }]);
  });
  it('escapes keys as OPA reads patch paths (JSON pointer, then URL unescaping)', () => {
    expect(patchPathSegment('a/b~c%d')).toBe('a~1b~0c%25d');
    expect(diffData({}, { 'git::x/y': 1 })).toEqual([{ op: 'upsert', path: '/git::x~1y', value: 1 }]);
  });
  it('refuses a root that is not an object', () => {
    expect(() => diffData([], {})).toThrow(ToolgateError);
  });
});

/** OPA's patch semantics (v1/bundle/store.go applyPatches): upsert makes missing parents, replace and remove need the path. */
function applyPatch(doc: Record<string, unknown>, ops: readonly { op: string; path: string; value?: unknown }[]): Record<string, unknown> {
  const out = structuredClone(doc);
  for (const o of ops) {
    const segs = o.path.split('/').slice(1).map((s) => decodeURIComponent(s.replace(/~1/g, '/').replace(/~0/g, '~')));
    let parent: Record<string, unknown> = out;
    for (const s of segs.slice(0, -1)) {
      if (!Object.hasOwn(parent, s)) {
        if (o.op !== 'upsert') throw new Error(`${o.op} ${o.path}: no parent`);
        parent[s] = {};
      }
      parent = parent[s] as Record<string, unknown>;
    }
    const last = segs.at(-1)!;
    if (o.op !== 'upsert' && !Object.hasOwn(parent, last)) throw new Error(`${o.op} ${o.path}: not found`);
    if (o.op === 'remove') delete parent[last];
    else parent[last] = structuredClone(o.value);
  }
  return out;
}

describe('diffData, property', () => {
  const key = fc.constantFrom('a', 'b', 'c/d', 'e~f', 'g%h', 'srv::tool');
  const leaf = fc.oneof(fc.integer(), fc.boolean(), fc.string({ maxLength: 3 }), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }));
  const doc = fc.letrec<{ node: unknown; obj: Record<string, unknown> }>((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, leaf, tie('obj')),
    obj: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  })).obj;
  it('turns before into after under OPA\'s patch rules, with disjoint paths and upserts before the rest', () => {
    fc.assert(
      fc.property(doc, doc, (before, after) => {
        const ops = diffData(before, after);
        expect(applyPatch(before, ops)).toEqual(after);
        const paths = ops.map((o) => o.path);
        for (const p of paths) for (const q of paths) if (p !== q) expect(q.startsWith(`${p}/`)).toBe(false);
        const firstOther = ops.findIndex((o) => o.op !== 'upsert');
        if (firstOther >= 0) expect(ops.slice(firstOther).every((o) => o.op !== 'upsert')).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('packageMarkers', () => {
  const pkgs = [
    { path: ['toolgate', 'authz'], ruleNames: ['decision'] },
    { path: ['toolgate', 'gateways', 'core'], ruleNames: ['verdict'] },
    { path: ['toolgate', 'gateways', 'core', 'deeper'], ruleNames: ['x'] },
    { path: ['toolgate', 'signs'], ruleNames: ['kinds'] },
    { path: ['toolgate', 'signs', 'kinds'], ruleNames: ['y'] },
    { path: ['toolgate'], ruleNames: ['top'] },
    { path: ['elsewhere', 'p'], ruleNames: ['z'] },
  ];
  it('puts an empty object at each package under a root with no data there, shallow first, one per subtree', () => {
    expect(packageMarkers(pkgs, ['toolgate'], { toolgate: { agents: {} } }, { toolgate: { agents: {} } })).toEqual([
      { op: 'upsert', path: '/toolgate/authz', value: {} },
      { op: 'upsert', path: '/toolgate/signs', value: {} },
      { op: 'upsert', path: '/toolgate/gateways/core', value: {} },
    ]);
  });
  it('marks no package that already has data, or sits where an enclosing package has a rule of that name', () => {
    const data = { toolgate: { authz: { x: 1 }, gateways: 'scalar' } };
    expect(packageMarkers(pkgs, ['toolgate'], data, data)).toEqual([{ op: 'upsert', path: '/toolgate/signs', value: {} }]);
    expect(packageMarkers([{ path: ['toolgate', 'top', 'p'], ruleNames: ['a'] }, { path: ['toolgate'], ruleNames: ['top'] }], ['toolgate'], {}, {})).toEqual([]);
  });
});

describe('compileDelta and emitDeltaBundle', () => {
  it('makes a data-only delta with the target manifest and records base and target digests', async () => {
    const base = await bundle({ agents: { a: 1 } });
    const target = await bundle({ agents: { a: 2 } }, undefined, { revision: 'r2', roots: ['toolgate'], rego_version: 1 });
    const d = await emitDeltaBundle(await compileDelta(base, target));
    expect(d.operations).toEqual([
      { op: 'upsert', path: '/toolgate/authz', value: {} },
      { op: 'replace', path: '/toolgate/agents/a', value: 2 },
    ]);
    expect(d.record).toMatchObject({ kind: 'toolgate.delta-bundle', from: { revision: 'r' }, to: { revision: 'r2' }, operations: 2 });
    expect((await emitDeltaBundle(await compileDelta(base, target))).tarball).toEqual(d.tarball);
    expect(JSON.parse(new TextDecoder().decode(d.recordBytes))).toEqual(d.record);
  });
  it.each([
    ['the Rego changed', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 2 }, 'package toolgate.authz\n\nallow := false\n'))],
    ['the roots changed', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 2 }, undefined, { revision: 'x', roots: ['toolgate', 'other'], rego_version: 1 }))],
    ['wasm appeared', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 2 }, undefined, { revision: 'x', roots: ['toolgate'], rego_version: 1, wasm: [{ entrypoint: 'toolgate/authz', module: 'policy.wasm' }] }, [{ name: 'policy.wasm', bytes: new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]) }]))],
    ['a module was added', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 2 }, undefined, undefined, [{ name: 'toolgate/extra.rego', bytes: new TextEncoder().encode('package toolgate.extra\n') }]))],
    ['nothing changed (an empty patch would wipe OPA\'s data)', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 1 }))],
    ['the target is signed', async () => compileDelta(await bundle({ a: 1 }), await bundle({ a: 2 }, undefined, undefined, [{ name: '.signatures.json', bytes: enc({ signatures: ['x'] }) }]))],
  ])('refuses with DELTA_REFUSED when %s', async (_why, make) => {
    expect(await refusal(make())).toBe('DELTA_REFUSED');
  });
});

function compile(estate: string, out: string, extra: string[] = []) {
  const r = toolgate(['compile', '--manifest', join(estate, 'governance.yaml'), '--catalog', join(estate, 'catalog.json'), '--out', out, ...extra], { env: { SOURCE_DATE_EPOCH: '1767225600' } });
  if (r.code !== 0) throw new Error(r.stderr);
  return r;
}

describe('compile --delta-from', () => {
  it('writes delta.tar.gz and delta.json listed in SHA256SUMS when only data changed, and only the full set (saying why) otherwise', () => {
    const root = mkdtempSync(join(tmpdir(), 'tg-delta-cli-'));
    const estate = join(root, 'estate');
    cpSync(join(REPO, 'examples/quickstart'), estate, { recursive: true });
    compile(estate, join(root, 'a'));
    const same = compile(estate, join(root, 'b'), ['--delta-from', join(root, 'a')]);
    expect(same.stderr).toContain('DELTA_REFUSED');
    expect(JSON.parse(same.stdout).files).not.toContain('delta.tar.gz');
    const gov = join(estate, 'governance.yaml');
    writeFileSync(gov, readFileSync(gov, 'utf8').replace(/  - agent: ci-bot\n    tool: "git::git_log"\n(    .*\n)*?(?=  - )/, ''));
    const changed = compile(estate, join(root, 'c'), ['--delta-from', join(root, 'a')]);
    expect(JSON.parse(changed.stdout).files).toEqual(expect.arrayContaining(['delta.tar.gz', 'delta.json']));
    const sums = readFileSync(join(root, 'c', 'SHA256SUMS'), 'utf8');
    expect(sums).toMatch(/  delta\.tar\.gz\n/);
    expect(sums).toMatch(/  delta\.json\n/);
    const record = JSON.parse(readFileSync(join(root, 'c', 'delta.json'), 'utf8'));
    expect(record.bytes).toBeLessThan(readFileSync(join(root, 'c', 'bundle.tar.gz')).length / 4);
    rmSync(root, { recursive: true, force: true });
  }, 180_000);
});

describeWithOpa('a delta bundle in the real OPA', () => {
  let root: string;
  let estate: string;
  let out: string;
  let server: BundleServer;
  let viaDelta: OpaServer;
  let full: OpaServer;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tg-delta-opa-'));
    estate = join(root, 'estate');
    cpSync(join(REPO, 'examples/quickstart'), estate, { recursive: true });
    out = join(root, 'quickstart');
    compile(estate, out);
    server = await startBundleServe([out, '--verbose']);
    const config = join(root, 'opa.yaml');
    writeFileSync(config, ['services:', '  tg:', `    url: ${server.url}`, 'bundles:', '  quickstart:', '    service: tg', '    resource: bundles/quickstart', '    polling:', '      min_delay_seconds: 1', '      max_delay_seconds: 2', '      long_polling_timeout_seconds: 20', ''].join('\n'));
    viaDelta = await startOpaServer(['-c', config], { timeoutMs: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await viaDelta?.stop();
    await full?.stop();
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('applies the delta to the base revision and then decides every pair as the full new bundle does', async () => {
    const gov = join(estate, 'governance.yaml');
    // Data-only changes: one grant removed, one added, and a new agent with a grant, so the patch
    // holds every kind of operation (upsert, replace, remove) and the package markers.
    writeFileSync(
      gov,
      readFileSync(gov, 'utf8')
        .replace(/  - agent: ci-bot\n    tool: "git::git_log"\n(    .*\n)*?(?=  - )/, '')
        .replace('grants:\n', 'grants:\n  - agent: publisher\n    tool: "git::git_log"\n    granted_by: platform-team\n  - agent: auditor\n    tool: "git::git_show"\n    granted_by: platform-team\n')
        .replace('agents:\n', 'agents:\n  - id: auditor\n    description: reads history for audits\n'),
    );
    compile(estate, out, ['--delta-from', out]);
    const record = JSON.parse(readFileSync(join(out, 'delta.json'), 'utf8')) as { to: { revision: string } };
    const ops = (JSON.parse(execFileSync('tar', ['-xzOf', join(out, 'delta.tar.gz'), 'patch.json'], { encoding: 'utf8' })) as { data: { op: string; path: string }[] }).data;
    expect(new Set(ops.map((o) => o.op))).toEqual(new Set(['upsert', 'replace', 'remove']));
    expect(ops[0]).toEqual({ op: 'upsert', path: '/toolgate/authz', value: {} });
    expect(ops.map((o) => o.path)).toContain('/toolgate/agents/auditor/tools');
    const applied = await waitFor('the delta revision active', 30_000, async () => ((await viaDelta.query('system/bundles/quickstart/manifest/revision', {})).result === record.to.revision ? true : undefined), 20);
    console.log(`delta: active in OPA ${applied.ms} ms after the compile returned`);
    expect(server.log()).toMatch(/200 delta /);
    full = await startOpaServer(['--bundle', join(out, 'bundle.tar.gz')]);
    const data = JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')) as { toolgate: { agents: Record<string, { tools: Record<string, unknown> }>; tools: Record<string, unknown> } };
    const agents = [...Object.keys(data.toolgate.agents), 'ci-bot', 'publisher', 'auditor', 'nobody'];
    const tools = [...Object.keys(data.toolgate.tools), 'git::git_log', 'git::nope', 'git_log'];
    let pairs = 0;
    for (const agent of new Set(agents)) {
      for (const tool of new Set(tools)) {
        const a = await viaDelta.query('toolgate/authz/decision', { agent, tool });
        const b = await full.query('toolgate/authz/decision', { agent, tool });
        expect(a.result, `${agent} ${tool}`).toEqual(b.result);
        pairs++;
      }
    }
    expect(pairs).toBeGreaterThan(20);
    expect(await viaDelta.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' })).toMatchObject({ result: { allow: false, reason: 'NOT_GRANTED' } });
    expect((await viaDelta.query('toolgate', {})).result).toEqual((await full.query('toolgate', {})).result);
  }, 180_000);
});
