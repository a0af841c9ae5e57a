/**
 * What only the real OPA can run: the Docker MCP Gateway interceptor script
 * (docs/gateways/docker-interceptor.sh, which calls `opa eval` on the bundle) on every Docker
 * fixture, failing closed; and JWT identity verified by OPA (verified_by: opa, io.jwt.decode_verify).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithOpa, opaPath, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { FIXTURES, compileEstate, evalBuiltin, fixtures, type CompiledEstate } from './gateway-estate.ts';
import { extAuthz } from './ext-authz.ts';

const SCRIPT = 'docs/gateways/docker-interceptor.sh';

function interceptor(stdin: string, env: Record<string, string>): string {
  const r = spawnSync('sh', [SCRIPT], { input: stdin, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TOOLGATE_OPA: opaPath(), ...env }, timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

describeWithOpa('the Docker MCP Gateway interceptor script', () => {
  let estate: CompiledEstate;
  beforeAll(async () => {
    estate = await compileEstate();
  });

  it('prints nothing for an allowed call and a CallToolResult with isError for each denied fixture', () => {
    for (const f of fixtures().filter((x) => x.gateway === 'docker')) {
      const input = f.input as { agent?: string; request: unknown };
      const out = interceptor(JSON.stringify(input.request), { TOOLGATE_BUNDLE: estate.bundle, ...(input.agent ? { TOOLGATE_AGENT: input.agent } : {}) });
      if (f.expect.allowed) expect(out, f.name).toBe('');
      else expect(JSON.parse(out), f.name).toMatchObject({ isError: true, structuredContent: { toolgate: { allow: false, reason: f.expect.reason } } });
    }
  });

  it('fails closed: no bundle, stdin that is no JSON, an agent name it cannot quote', () => {
    const call = JSON.stringify({ Session: {}, Params: { name: 'git_log', arguments: {} }, Extra: null });
    expect(JSON.parse(interceptor(call, { TOOLGATE_AGENT: 'ci-bot', TOOLGATE_BUNDLE: '/nonexistent/bundle.tar.gz' }))).toMatchObject({ isError: true, content: [{ text: 'toolgate denied the call: OPA_EVAL_FAILED' }] });
    expect(JSON.parse(interceptor('{"Params": ', { TOOLGATE_AGENT: 'ci-bot', TOOLGATE_BUNDLE: estate.bundle }))).toMatchObject({ isError: true });
    expect(JSON.parse(interceptor('', { TOOLGATE_AGENT: 'ci-bot', TOOLGATE_BUNDLE: estate.bundle }))).toMatchObject({ isError: true });
    expect(JSON.parse(interceptor(call, { TOOLGATE_AGENT: 'ci-bot","agent":"ops-agent', TOOLGATE_BUNDLE: estate.bundle }))).toMatchObject({ structuredContent: { toolgate: { reason: 'AGENT_UNAUTHENTICATED' } } });
  });
});

describeWithOpa('JWT identity verified by OPA (verified_by: opa)', () => {
  let estate: CompiledEstate;
  let server: OpaServer;
  let sign: (claims: Record<string, unknown>, options?: { exp?: number; other?: boolean }) => Promise<string>;
  beforeAll(async () => {
    const key = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(key.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
    sign = async (claims, options = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
        .setIssuer('https://idp.toolgate.test')
        .setAudience('mcp')
        .setExpirationTime(options.exp ?? Math.floor(Date.now() / 1000) + 600)
        .sign(options.other ? other.privateKey : key.privateKey);
    const manifest = readFileSync(join(FIXTURES, 'estate', 'governance.yaml'), 'utf8').replace(/\nidentity:[\s\S]*$/, '\n');
    const dir = mkdtempSync(join(tmpdir(), 'toolgate-jwt-'));
    const path = join(dir, 'governance.yaml');
    const identity = { identity: { sources: [{ kind: 'jwt', verified_by: 'opa', jwks: JSON.stringify({ keys: [jwk] }), issuer: 'https://idp.toolgate.test', audience: 'mcp' }] } };
    writeFileSync(path, `${manifest}\nidentity: ${JSON.stringify(identity.identity)}\n`);
    estate = await compileEstate({ manifest: path });
    server = await startOpaServer(['--bundle', estate.bundle]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  const call = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
  const ask = async (token: string, name = 'git_log') => (await server.query('toolgate/gateways/envoy/response', extAuthz(call(name), { authorization: `Bearer ${token}` }))).result as any;

  it('allows a token the JWKS verifies, and decides as the grants say', async () => {
    expect((await ask(await sign({ sub: 'ci-bot' }))).allowed).toBe(true);
    expect((await ask(await sign({ sub: 'ci-bot' }), 'git_show')).headers['x-toolgate-reason']).toBe('DENY_VIOLATION');
  });

  it('refuses a token signed by another key, an expired one and one for another audience: IDENTITY_INVALID', async () => {
    expect((await ask(await sign({ sub: 'ci-bot' }, { other: true }))).headers['x-toolgate-reason']).toBe('IDENTITY_INVALID');
    expect((await ask(await sign({ sub: 'ci-bot' }, { exp: Math.floor(Date.now() / 1000) - 600 }))).headers['x-toolgate-reason']).toBe('IDENTITY_INVALID');
    const [h, , s] = (await sign({ sub: 'ci-bot' })).split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'ops-agent', iss: 'https://idp.toolgate.test', aud: 'mcp' })).toString('base64url')}.${s}`;
    expect((await ask(forged, 'read_file')).headers['x-toolgate-reason']).toBe('IDENTITY_INVALID');
  });

  it('in the builtin engine: refused (an error, never an allow) or, where io.jwt.decode_verify is implemented, the same answer', async () => {
    const input = extAuthz(call('git_log'), { authorization: `Bearer ${await sign({ sub: 'ci-bot' })}` });
    let ours: unknown;
    try {
      ours = evalBuiltin('toolgate/gateways/envoy/response', input, estate.data);
    } catch (e) {
      expect(String(e)).toMatch(/io\.jwt\.decode_verify/);
      return;
    }
    expect(ours).toEqual((await server.query('toolgate/gateways/envoy/response', input)).result);
  });
});
