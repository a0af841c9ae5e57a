/**
 * `toolgate publish --oci`: the artifact, references and credentials on their own; the push against
 * registries that misbehave (errors, a hang); and the real thing: Debian's docker-registry on
 * loopback, oras as an independent client, and a real OPA pulling with services[].type: oci.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import bcrypt from 'bcryptjs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { ToolgateError } from '../../../src/errors.ts';
import { isLoopbackRegistry, ociArtifact, parseOciRef, pushOciArtifact, OCI_CONFIG_MEDIA_TYPE, OCI_LAYER_MEDIA_TYPE, OCI_MANIFEST_MEDIA_TYPE } from '../../../src/publish/oci.ts';
import { registryCredentials } from '../../../src/publish/credentials.ts';
import { describeWithOpa, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { REPO, describeWithRegistry, findOras, findRegistry, startRegistry, stopAll, toolgate, waitFor, type Registry } from '../../helpers/processes.ts';

// These suites start real processes (toolgate, OPA, the registry); on a loaded 2-core CI machine a
// compile alone can take tens of seconds.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });

const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof ToolgateError ? e.code : `not a ToolgateError: ${String(e)}`;
  }
  return undefined;
}

describe('parseOciRef', () => {
  it.each([
    ['127.0.0.1:5000/toolgate/quickstart:v1', { registry: '127.0.0.1:5000', repository: 'toolgate/quickstart', tag: 'v1' }],
    ['localhost:5000/policy', { registry: 'localhost:5000', repository: 'policy', tag: 'latest' }],
    ['ghcr.io/org/policy-hello:1.0.0', { registry: 'ghcr.io', repository: 'org/policy-hello', tag: '1.0.0' }],
  ])('reads %s', (ref, want) => expect(parseOciRef(ref)).toEqual(want));
  it.each(['policy:1', 'https://ghcr.io/org/p:1', 'ghcr.io/org/p@sha256:abc', 'ghcr.io/Org/P:1', 'ghcr.io/org/p:bad tag', 'ghcr.io/'])('refuses %s as USAGE', (ref) => {
    expect(code(() => parseOciRef(ref))).toBe('USAGE');
  });
  it('knows loopback hosts', () => {
    expect(['127.0.0.1:5000', 'localhost:1', '[::1]:5000', '127.3.2.1'].map(isLoopbackRegistry)).toEqual([true, true, true, true]);
    expect(['ghcr.io', '10.0.0.1:5000', '127.0.0.1.example.com'].map(isLoopbackRegistry)).toEqual([false, false, false]);
  });
});

describe('ociArtifact', () => {
  const bundle = new Uint8Array([1, 2, 3]);
  it('is one tar+gzip layer of the bundle bytes, an empty config, OPA media types, same bytes same digest', () => {
    const a = ociArtifact(bundle);
    const m = JSON.parse(new TextDecoder().decode(a.manifest.bytes));
    expect(m.mediaType).toBe(OCI_MANIFEST_MEDIA_TYPE);
    expect(m.config).toEqual({ mediaType: OCI_CONFIG_MEDIA_TYPE, digest: sha(new TextEncoder().encode('{}')), size: 2 });
    expect(m.layers).toHaveLength(1);
    expect(m.layers[0]).toMatchObject({ mediaType: OCI_LAYER_MEDIA_TYPE, digest: sha(bundle), size: 3 });
    expect(a.manifest.descriptor.digest).toBe(sha(a.manifest.bytes));
    expect(ociArtifact(new Uint8Array([1, 2, 3])).manifest.bytes).toEqual(a.manifest.bytes);
    expect(ociArtifact(new Uint8Array([1, 2, 4])).manifest.descriptor.digest).not.toBe(a.manifest.descriptor.digest);
  });
});

describe('registryCredentials', () => {
  const docker = (auths: unknown, extra: object = {}) => ({ path: '/home/u/.docker/config.json', text: JSON.stringify({ auths, ...extra }) });
  it('takes the environment first, then the Docker config entry, never guessing a helper', () => {
    expect(registryCredentials('r:5', { TOOLGATE_REGISTRY_USERNAME: 'u', TOOLGATE_REGISTRY_PASSWORD: 'p' }, docker({ 'r:5': { auth: 'eDp5' } })).credentials).toEqual({ kind: 'basic', username: 'u', password: 'p' });
    expect(registryCredentials('r:5', {}, docker({ 'https://r:5': { auth: Buffer.from('alice:s3:cret').toString('base64') } }))).toEqual({ credentials: { kind: 'basic', username: 'alice', password: 's3:cret' }, source: 'docker-config' });
    expect(registryCredentials('r:5', { TOOLGATE_REGISTRY_TOKEN: 't' }).credentials).toEqual({ kind: 'bearer', token: 't' });
    expect(registryCredentials('r:5', {}, docker({}, { credHelpers: { 'r:5': 'ecr-login' } }))).toEqual({ source: 'none', helper: 'ecr-login' });
    expect(registryCredentials('other:1', {}, docker({ 'r:5': { auth: 'eDp5' } }))).toEqual({ source: 'none' });
  });
  it('refuses half a pair and a broken entry, without echoing the secret', () => {
    expect(code(() => registryCredentials('r', { TOOLGATE_REGISTRY_USERNAME: 'u' }))).toBe('CREDENTIALS_INVALID');
    let message = '';
    try {
      registryCredentials('r:5', {}, docker({ 'r:5': { auth: Buffer.from('no-colon-secret').toString('base64') } }));
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('auths.r:5.auth');
    expect(message).not.toContain('no-colon-secret');
  });
});

/** A loopback HTTP server answering with `handler`, for registries that misbehave. */
async function fakeRegistry(handler: Parameters<typeof createServer>[1]): Promise<{ host: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('pushOciArtifact against registries that misbehave', () => {
  const artifact = ociArtifact(new Uint8Array([9, 9, 9]));
  const servers: Server[] = [];
  afterAll(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('fails with REGISTRY_FAILED naming the request and the registry error code on a 500', async () => {
    const { host, server } = await fakeRegistry((req, res) => {
      if (req.url === '/v2/') return res.writeHead(200).end('{}');
      if (req.method === 'HEAD') return res.writeHead(404).end();
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ code: 'UNKNOWN', message: 'disk on fire' }] }));
    });
    servers.push(server);
    await expect(pushOciArtifact(parseOciRef(`${host}/t/p:1`), artifact, { plainHttp: true })).rejects.toMatchObject({ code: 'REGISTRY_FAILED', message: expect.stringContaining('disk on fire') });
  });

  it('fails within the timeout on a registry that accepts and never answers', async () => {
    const { host, server } = await fakeRegistry(() => {
      // never answers
    });
    servers.push(server);
    const t0 = Date.now();
    await expect(pushOciArtifact(parseOciRef(`${host}/t/p:1`), artifact, { plainHttp: true, timeoutMs: 300 })).rejects.toMatchObject({ code: 'REGISTRY_FAILED', message: expect.stringContaining('did not answer within 300 ms') });
    expect(Date.now() - t0).toBeLessThan(5_000);
  });

  it('answers a Basic challenge with the configured credentials and never puts them in a message', async () => {
    const seen: string[] = [];
    const { host, server } = await fakeRegistry((req, res) => {
      seen.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== `Basic ${Buffer.from('bob:hunter2').toString('base64')}`) return res.writeHead(401, { 'www-authenticate': 'Basic realm="r"' }).end();
      if (req.url === '/v2/') return res.writeHead(200).end('{}');
      res.writeHead(403, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ code: 'DENIED', message: 'no push' }] }));
    });
    servers.push(server);
    const err = await pushOciArtifact(parseOciRef(`${host}/t/p:1`), artifact, { plainHttp: true, credentials: { kind: 'basic', username: 'bob', password: 'hunter2' } }).catch((e: unknown) => e as ToolgateError);
    expect(err).toMatchObject({ code: 'REGISTRY_FAILED' });
    expect((err as Error).message).not.toMatch(/hunter2|Ym9iOmh1bnRlcjI/);
    expect(seen[0]).toBe('');
    await expect(pushOciArtifact(parseOciRef(`${host}/t/p:1`), artifact, { plainHttp: true })).rejects.toMatchObject({ code: 'CREDENTIALS_INVALID' });
  });

  it('refuses an upload Location on another host (the bundle and credentials stay here)', async () => {
    const { host, server } = await fakeRegistry((req, res) => {
      if (req.url === '/v2/') return res.writeHead(200).end('{}');
      if (req.method === 'HEAD') return res.writeHead(404).end();
      if (req.method === 'POST') return res.writeHead(202, { location: 'http://elsewhere.example/upload' }).end();
      res.writeHead(500).end();
    });
    servers.push(server);
    await expect(pushOciArtifact(parseOciRef(`${host}/t/p:1`), artifact, { plainHttp: true })).rejects.toMatchObject({ code: 'REGISTRY_FAILED', message: expect.stringContaining('another host') });
  });

  it('the CLI refuses --plain-http to a remote registry, and a file that is not a bundle, before any request', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-pub-'));
    writeFileSync(join(dir, 'bundle.tar.gz'), 'not a tarball');
    expect(toolgate(['publish', dir, '--oci', 'ghcr.io/org/p:1', '--plain-http']).code).toBe(2);
    const r = toolgate(['publish', dir, '--oci', '127.0.0.1:1/org/p:1', '--plain-http']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('bundle.tar.gz');
    rmSync(dir, { recursive: true, force: true });
  });
});

function compileQuickstart(root: string, out: string, edit?: (text: string) => string): void {
  const estate = join(root, 'estate');
  cpSync(join(REPO, 'examples/quickstart'), estate, { recursive: true });
  if (edit) writeFileSync(join(estate, 'governance.yaml'), edit(readFileSync(join(estate, 'governance.yaml'), 'utf8')));
  const r = toolgate(['compile', '--manifest', join(estate, 'governance.yaml'), '--catalog', join(estate, 'catalog.json'), '--out', out], { env: { SOURCE_DATE_EPOCH: '1767225600' } });
  if (r.code !== 0) throw new Error(r.stderr);
}

const dropGitLog = (t: string) => t.replace(/  - agent: ci-bot\n    tool: "git::git_log"\n(    .*\n)*?(?=  - )/, '');

describeWithRegistry('publish --oci to a real registry (docker-registry on loopback), checked by oras', { oras: true }, () => {
  let root: string;
  let registry: Registry;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tg-oci-'));
    registry = await startRegistry((findRegistry() as { path: string }).path, join(root, 'registry'));
    compileQuickstart(root, join(root, 'out'));
  }, 180_000);
  afterAll(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });

  it('pushes, prints tag and digest as JSON, and a second push of the same bytes is a no-op that says so', () => {
    const ref = `${registry.host}/toolgate/quickstart:v1`;
    const first = toolgate(['publish', join(root, 'out'), '--oci', ref, '--plain-http']);
    expect(first.code, first.stderr).toBe(0);
    const a = JSON.parse(first.stdout) as { digest: string; unchanged: boolean; tag: string; layer: { digest: string } };
    expect(a).toMatchObject({ tag: 'v1', unchanged: false });
    expect(a.layer.digest).toBe(sha(readFileSync(join(root, 'out', 'bundle.tar.gz'))));
    const again = toolgate(['publish', join(root, 'out'), '--oci', ref, '--plain-http']);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ digest: a.digest, unchanged: true });
    expect(again.stderr).toContain('nothing pushed');
  });

  it('oras reads the same manifest and pulls the same bundle bytes', () => {
    const oras = (findOras() as { path: string }).path;
    const ref = `${registry.host}/toolgate/quickstart:v1`;
    const m = spawnSync(oras, ['manifest', 'fetch', '--plain-http', ref], { encoding: 'utf8' });
    expect(m.status, m.stderr).toBe(0);
    const manifest = JSON.parse(m.stdout) as { mediaType: string; config: { mediaType: string }; layers: { mediaType: string }[] };
    expect(manifest.mediaType).toBe(OCI_MANIFEST_MEDIA_TYPE);
    expect(manifest.config.mediaType).toBe(OCI_CONFIG_MEDIA_TYPE);
    expect(manifest.layers.map((l) => l.mediaType)).toEqual([OCI_LAYER_MEDIA_TYPE]);
    const pulled = join(root, 'pulled');
    const p = spawnSync(oras, ['pull', '--plain-http', ref, '-o', pulled], { encoding: 'utf8' });
    expect(p.status, p.stderr).toBe(0);
    expect(readFileSync(join(pulled, 'bundle.tar.gz')).equals(readFileSync(join(root, 'out', 'bundle.tar.gz')))).toBe(true);
  });
});

describeWithRegistry('publish --oci to a registry that needs a password (docker-registry with htpasswd), checked by oras', { oras: true }, () => {
  const USER = 'release-bot';
  const PASSWORD = 'pw-7f3c-correct-horse';
  const secrets = [PASSWORD, Buffer.from(`${USER}:${PASSWORD}`).toString('base64'), 'pw-wrong-4411'];
  let root: string;
  let registry: Registry;
  let emptyDockerConfig: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'tg-oci-auth-'));
    // docker-registry reads bcrypt entries only; bcryptjs writes them (no htpasswd tool needed).
    const htpasswd = join(root, 'htpasswd');
    writeFileSync(htpasswd, `${USER}:${bcrypt.hashSync(PASSWORD, 10)}\n`);
    registry = await startRegistry((findRegistry() as { path: string }).path, join(root, 'registry'), { htpasswd });
    emptyDockerConfig = join(root, 'no-docker');
    mkdirSync(emptyDockerConfig);
    compileQuickstart(root, join(root, 'out'));
  }, 180_000);
  afterAll(async () => {
    await stopAll();
    rmSync(root, { recursive: true, force: true });
  });
  const publish = (tag: string, env: Record<string, string>) => toolgate(['publish', join(root, 'out'), '--oci', `${registry.host}/toolgate/quickstart:${tag}`, '--plain-http'], { env: { DOCKER_CONFIG: emptyDockerConfig, ...env } });
  const noSecretIn = (r: { stdout: string; stderr: string }) => {
    for (const s of secrets) expect(`${r.stdout}${r.stderr}`).not.toContain(s);
  };

  it('really asks for a password: anonymous push is CREDENTIALS_INVALID, exit 1, and oras without one is refused too', () => {
    const r = publish('anon', {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('CREDENTIALS_INVALID');
    const oras = spawnSync((findOras() as { path: string }).path, ['manifest', 'fetch', '--plain-http', `${registry.host}/toolgate/quickstart:anon`], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: emptyDockerConfig, DOCKER_CONFIG: emptyDockerConfig } });
    expect(oras.status).not.toBe(0);
  });

  it('pushes with the user name and password from the environment, and never prints them', () => {
    const r = publish('env', { TOOLGATE_REGISTRY_USERNAME: USER, TOOLGATE_REGISTRY_PASSWORD: PASSWORD });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ tag: 'env', unchanged: false, credentials: 'environment' });
    noSecretIn(r);
  });

  it('pushes with the Docker config file\'s auths entry for the registry, and never prints it', () => {
    const dockerDir = join(root, 'docker');
    mkdirSync(dockerDir, { recursive: true });
    writeFileSync(join(dockerDir, 'config.json'), JSON.stringify({ auths: { [registry.host]: { auth: Buffer.from(`${USER}:${PASSWORD}`).toString('base64') } } }));
    const r = publish('docker', { DOCKER_CONFIG: dockerDir });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ tag: 'docker', credentials: 'docker-config' });
    noSecretIn(r);
  });

  it('a wrong password is CREDENTIALS_INVALID naming where it came from, exit 1, no secret and no stack trace', () => {
    const r = publish('wrong', { TOOLGATE_REGISTRY_USERNAME: USER, TOOLGATE_REGISTRY_PASSWORD: 'pw-wrong-4411' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/CREDENTIALS_INVALID: registry 127\.0\.0\.1:\d+ refused the credentials from the environment/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stdout).toBe('');
    noSecretIn(r);
  });

  it('oras, logged in on its own, pulls the same bundle bytes that publish pushed', () => {
    const oras = (findOras() as { path: string }).path;
    const env = { PATH: process.env.PATH ?? '', HOME: root, DOCKER_CONFIG: join(root, 'oras-config') };
    const pulled = join(root, 'pulled');
    const p = spawnSync(oras, ['pull', '--plain-http', '-u', USER, '--password-stdin', `${registry.host}/toolgate/quickstart:env`, '-o', pulled], { encoding: 'utf8', input: PASSWORD, env });
    expect(p.status, p.stderr).toBe(0);
    expect(readFileSync(join(pulled, 'bundle.tar.gz')).equals(readFileSync(join(root, 'out', 'bundle.tar.gz')))).toBe(true);
  });
});

describeWithOpa('a real OPA pulls what publish pushed (services[].type: oci)', () => {
  const reg = findRegistry();
  let root: string;
  let registry: Registry;
  let opa: OpaServer;
  beforeAll(async () => {
    if (!reg.ok) throw new Error(reg.reason);
    root = mkdtempSync(join(tmpdir(), 'tg-oci-opa-'));
    registry = await startRegistry(reg.path, join(root, 'registry'));
    compileQuickstart(root, join(root, 'out'));
    const r = toolgate(['publish', join(root, 'out'), '--oci', `${registry.host}/toolgate/quickstart:live`, '--plain-http']);
    if (r.code !== 0) throw new Error(r.stderr);
    const config = join(root, 'opa.yaml');
    writeFileSync(config, [
      'services:',
      '  registry:',
      `    url: http://${registry.host}`,
      '    type: oci',
      'bundles:',
      '  quickstart:',
      '    service: registry',
      `    resource: ${registry.host}/toolgate/quickstart:live`,
      '    polling:',
      '      min_delay_seconds: 1',
      '      max_delay_seconds: 1',
      `persistence_directory: ${join(root, 'opa-persist')}`,
      '',
    ].join('\n'));
    opa = await startOpaServer(['-c', config], { timeoutMs: 30_000 });
  }, 180_000);
  afterAll(async () => {
    await opa?.stop();
    await stopAll();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const revisionOf = (out: string) => (JSON.parse(toolgate(['bundle', 'inspect', join(out, 'bundle.tar.gz')]).stdout) as { revision: string }).revision;
  const active = async () => (await opa.query('system/bundles/quickstart/manifest/revision', {})).result;

  it('activates the revision toolgate compiled, and a republished recompile replaces it', async () => {
    expect(await active()).toBe(revisionOf(join(root, 'out')));
    expect(await opa.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' })).toMatchObject({ result: { allow: true } });
    const next = join(root, 'out2');
    compileQuickstart(join(root, 'v2'), next, dropGitLog);
    const t0 = Date.now();
    const r = toolgate(['publish', next, '--oci', `${registry.host}/toolgate/quickstart:live`, '--plain-http']);
    expect(r.code, r.stderr).toBe(0);
    const want = revisionOf(next);
    const { ms } = await waitFor('the republished revision in OPA', 20_000, async () => ((await active()) === want ? true : undefined), 50);
    expect(await opa.query('toolgate/authz/decision', { agent: 'ci-bot', tool: 'git::git_log' })).toMatchObject({ result: { allow: false, reason: 'NOT_GRANTED' } });
    console.log(`publish --oci: publish start to active in OPA ${Date.now() - t0} ms (after publish returned ${ms} ms; polling 1 s)`);
  }, 180_000);
});
