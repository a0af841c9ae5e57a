/**
 * The consumer's sign-policy Rego shipped in bundle.tar.gz by `compile --signs`: placed under the
 * root, counted in the manifest revision and the signatures, still decided by the bundle's own Rego;
 * a module outside the root (or over the compiled data or the enforcement package) refused with
 * nothing written.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { consumerBundleModules } from '../../../src/signs/bundle-rego.ts';
import { readTarball } from '../../../src/bundle/read-tarball.ts';
import { bundleDecider } from '../../../src/bundle/index.ts';
import { enforcementRego } from '../../../src/cli/commands/compile.ts';
import { abiFixtureWasm } from '../engines/abi-fixture.ts';

const env = { SOURCE_DATE_EPOCH: '0' };
const enforcement = enforcementRego().map((m) => ({ name: m.path, text: m.text }));
const opts = { root: 'toolgate', dataKeys: ['agents', 'tools', 'connectome'], enforcement };
const mod = (pkg: string, name = 'signs.rego') => ({ name, text: `package ${pkg}\nimport rego.v1\nsign := "allow"\n` });

describe('consumerBundleModules', () => {
  it('places a module at ROOT/<package path>/<file name>', () => {
    expect(consumerBundleModules([mod('toolgate.signs', 'policies/signs.rego'), mod('toolgate.signs.extra', 'x.rego')], opts)).toEqual([
      { path: 'toolgate/signs/extra/x.rego', text: mod('toolgate.signs.extra').text },
      { path: 'toolgate/signs/signs.rego', text: mod('toolgate.signs').text },
    ]);
  });

  describe.each([
    ['outside the root', 'other.signs'],
    ['a prefix-named sibling of the root', 'toolgate_x.signs'],
    ['the root itself', 'toolgate'],
    ['over a data document key', 'toolgate.agents'],
    ['under a data document key', 'toolgate.tools.more'],
    ['the enforcement package', 'toolgate.authz'],
    ['not a plain-name path', 'toolgate["a/b"]'],
  ])('when the package is %s', (_what, pkg) => {
    it('refuses it with SIGN_POLICY_REFUSED naming the file and line', () => {
      let err: unknown;
      try {
        consumerBundleModules([mod(pkg, 'my.rego')], opts);
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'SIGN_POLICY_REFUSED', at: [{ file: 'my.rego', line: 1 }] });
    });
  });

  it('collects every module at fault, and two modules at one bundle path', () => {
    let err: { details?: string[] } | undefined;
    try {
      consumerBundleModules([mod('a.b', 'one.rego'), mod('toolgate.authz', 'two.rego'), mod('toolgate.s', 'd1/x.rego'), mod('toolgate.s', 'd2/x.rego')], opts);
    } catch (e) {
      err = e as { details?: string[] };
    }
    expect(err?.details).toHaveLength(3);
  });
});

describe('compile --signs ships the consumer Rego', () => {
  let dir: string;
  let pub: string;
  let priv: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-signs-bundle-'));
    const k = generateKeyPairSync('rsa', { modulusLength: 2048 });
    priv = join(dir, 'key.pem');
    pub = join(dir, 'pub.pem');
    writeFileSync(priv, k.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    writeFileSync(pub, k.publicKey.export({ type: 'spki', format: 'pem' }));
  });

  it('lists it in the tarball, the revision and the signatures; decide and bundle verify still pass', async () => {
    const out = join(dir, 'signed');
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', 'examples/quickstart/signs.rego', '--signing-key', priv, '--out', out], { env });
    expect(r.code, r.stderr).toBe(0);
    const bytes = readFileSync(join(out, 'bundle.tar.gz'));
    const files = await readTarball(bytes, 'bundle.tar.gz');
    expect(files.map((f) => f.name).sort()).toEqual(['.manifest', '.signatures.json', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego', 'toolgate/signs/signs.rego']);
    expect(new TextDecoder().decode(files.find((f) => f.name === 'toolgate/signs/signs.rego')!.bytes)).toBe(readFileSync('examples/quickstart/signs.rego', 'utf8'));

    const v = await runCli(['bundle', 'verify', join(out, 'bundle.tar.gz'), '--verification-key', pub]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.json().files).toContain('toolgate/signs/signs.rego');

    // Without the consumer's module the revision differs: it is part of the content digest.
    const plain = await runCli(['compile', '--example', 'quickstart', '--out', join(dir, 'plain')], { env });
    const revision = async (p: string) =>
      JSON.parse(new TextDecoder().decode((await readTarball(readFileSync(p), p)).find((f) => f.name === '.manifest')!.bytes)).revision;
    expect(await revision(join(out, 'bundle.tar.gz'))).not.toBe(await revision(join(dir, 'plain', 'bundle.tar.gz')));

    // The bundle's own Rego (enforcement + consumer module) loads together and decides; the sign is in force.
    const decider = await bundleDecider(bytes);
    expect(decider.decide('ci-bot', 'git::git_log')).toMatchObject({ allow: true, reason: null });
    const d = await runCli(['decide', 'ci-bot', 'git::git_log', '--bundle', join(out, 'bundle.tar.gz')]);
    expect(d.code, d.stderr).toBe(0);
    expect(d.json().decision).toMatchObject({ allow: true });
  });

  it('ships every module of a policy folder, tests excluded', async () => {
    const pol = join(dir, 'folder');
    mkdirSync(pol);
    writeFileSync(join(pol, 'signs.rego'), 'package toolgate.signs\nimport rego.v1\nimport data.toolgate.signs.helpers\nsign := "hold" if helpers.is_invoke\n');
    writeFileSync(join(pol, 'helpers.rego'), 'package toolgate.signs.helpers\nimport rego.v1\nis_invoke if input.edge.kind == "invoke"\n');
    writeFileSync(join(pol, 'signs_test.rego'), 'package toolgate.signs_test\nimport rego.v1\ntest_x if true\n');
    const out = join(dir, 'folder-out');
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', pol, '--out', out], { env });
    expect(r.code, r.stderr).toBe(0);
    const names = (await readTarball(readFileSync(join(out, 'bundle.tar.gz')), 'b')).map((f) => f.name).sort();
    expect(names).toEqual(['.manifest', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego', 'toolgate/signs/helpers/helpers.rego', 'toolgate/signs/signs.rego']);
    const decider = await bundleDecider(readFileSync(join(out, 'bundle.tar.gz')));
    expect(decider.decide('ci-bot', 'git::git_log')).toMatchObject({ allow: false, reason: 'SIGN_HOLD' });
  });

  it('ships nothing for a compiled wasm policy, and says so', async () => {
    const wasm = join(dir, 'fixture.wasm');
    writeFileSync(wasm, await abiFixtureWasm());
    const out = join(dir, 'wasm-out');
    const r = await runCli(['compile', '--example', 'quickstart', '--signs', wasm, '--sign-entrypoint', 'fixture/sign', '--out', out], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/carries no sign policy/);
    const names = (await readTarball(readFileSync(join(out, 'bundle.tar.gz')), 'b')).map((f) => f.name).sort();
    expect(names).toEqual(['.manifest', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego']);
  });

  it.each([
    ['outside the root', 'package acme.signs'],
    ['over the enforcement policy', 'package toolgate.authz'],
    ['over the compiled data', 'package toolgate.agents'],
  ])('refuses a module %s, writing nothing and leaving earlier artifacts untouched', async (_what, header) => {
    const policy = join(dir, `bad-${header.replace(/\W/g, '_')}.rego`);
    writeFileSync(policy, `${header}\nimport rego.v1\nsign := "allow"\n`);
    const out = join(dir, `refused-${header.replace(/\W/g, '_')}`);
    const fresh = await runCli(['compile', '--example', 'quickstart', '--signs', policy, '--out', out], { env });
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toMatch(/SIGN_POLICY_REFUSED/);
    expect(existsSync(out)).toBe(false);
    // Over an earlier compile: its files stay byte for byte.
    expect((await runCli(['compile', '--example', 'quickstart', '--out', out], { env })).code).toBe(0);
    const before = readdirSync(out).map((f) => [f, readFileSync(join(out, f))]);
    expect((await runCli(['compile', '--example', 'quickstart', '--signs', policy, '--out', out], { env })).code).toBe(1);
    expect(readdirSync(out).map((f) => [f, readFileSync(join(out, f))])).toEqual(before);
  });
});
