/**
 * `.signatures.json` as OPA writes and verifies it: the hashing rules (structured files re-encoded
 * with keys sorted by UTF-8 bytes, numbers as written, Go escaping of U+2028/U+2029; raw bytes for
 * the rest), JWS round trips for several algorithms, and every verification refusal.
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { opaCanonicalJson, opaFileHash } from '../../../src/bundle/opa-hash.ts';
import { goGlobMatch, signBundle, verifyBundle, type BundleFile, type SigningAlgorithm } from '../../../src/bundle/signatures.ts';
import { readTarball } from '../../../src/bundle/read-tarball.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { runCli } from '../../helpers/cli.ts';

const enc = new TextEncoder();

describe('opaCanonicalJson (OPA: v1/bundle/hash.go rules)', () => {
  it.each([
    ['sorts keys, drops whitespace', '{ "b": 1,\n "a": [ 2, {"d":0,"c":1} ] }', '{"a":[2,{"c":1,"d":0}],"b":1}'],
    ['keeps numbers as written', '{"n":[1.0,1e3,-0,1E+2,0.10]}', '{"n":[1.0,1e3,-0,1E+2,0.10]}'],
    ['escapes U+2028/U+2029 as Go does', '{"s":"a\u2028b\u2029c"}', '{"s":"a\\u2028b\\u2029c"}'],
    ['keeps <, > and & literal', '{"h":"<a href=x>&amp;</a>"}', '{"h":"<a href=x>&amp;</a>"}'],
    ['escapes controls like Go', '{"c":"\\u0001\\t\\n\\"\\\\/"}', '{"c":"\\u0001\\t\\n\\"\\\\/"}'],
    ['turns a lone surrogate into U+FFFD', '{"x":"\\ud800"}', '{"x":"\uFFFD"}'],
    ['keeps the last of a repeated key', '{"a":1,"a":2}', '{"a":2}'],
    ['strips a BOM', '\uFEFF{"a":true,"b":null}', '{"a":true,"b":null}'],
    ['unescapes what need not be escaped', '{"\\u0041":"\\u00e9"}', '{"A":"é"}'],
  ])('%s', (_what, input, want) => {
    expect(opaCanonicalJson(input, 'data.json')).toBe(want);
  });
  it('orders keys by UTF-8 bytes, not UTF-16 units', () => {
    // U+FFFF (EF BF BF) sorts before U+1F600 (F0 9F 98 80) in UTF-8; JS's default sort puts the surrogate pair first.
    const text = '{"\u{1F600}":1,"\uFFFF":2}';
    expect(Object.keys(JSON.parse(text)).sort()).toEqual(['\u{1F600}', '\uFFFF']);
    expect(opaCanonicalJson(text, 'data.json')).toBe('{"\uFFFF":2,"\u{1F600}":1}');
  });
  it('refuses invalid JSON', () => {
    for (const bad of ['{', '{"a":01}', '{"a":1,}', '[1] 2', "{'a':1}"]) expect(() => opaCanonicalJson(bad, 'data.json')).toThrow(expect.objectContaining({ code: 'BUNDLE_INVALID' }));
  });
  it('hashes data.json and .manifest structurally, everything else raw', () => {
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(opaFileHash('x/data.json', enc.encode('{ "b":1, "a":2 }'))).toBe(sha('{"a":2,"b":1}'));
    expect(opaFileHash('.manifest', enc.encode('{"roots": ["t"]}\n'))).toBe(sha('{"roots":["t"]}'));
    expect(opaFileHash('x/p.rego', enc.encode('package p\n'))).toBe(sha('package p\n'));
    expect(opaFileHash('data.yml', enc.encode('a: 1'))).toBe(sha('a: 1'));
    expect(opaFileHash('notdata.json', enc.encode('{ }'))).toBe(sha('{ }'));
    expect(opaFileHash('data.json', enc.encode('{"a":1}'), 'SHA-512')).toBe(createHash('sha512').update('{"a":1}').digest('hex'));
  });
});

const files: BundleFile[] = [
  { name: '.manifest', bytes: enc.encode('{"revision":"r","roots":["toolgate"]}\n') },
  { name: 'toolgate/data.json', bytes: enc.encode('{"agents":{},"n":1.50}\n') },
  { name: 'toolgate/authz.rego', bytes: enc.encode('package toolgate.authz\n') },
];

function keys(alg: SigningAlgorithm): { priv: string; pub: string } {
  if (alg.startsWith('HS')) return { priv: 'a shared secret long enough for HMAC', pub: 'a shared secret long enough for HMAC' };
  const pair = alg.startsWith('ES')
    ? generateKeyPairSync('ec', { namedCurve: { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg as 'ES256']! })
    : generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { priv: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), pub: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

function withSig(fs: BundleFile[], sig: Uint8Array): BundleFile[] {
  return [...fs, { name: '.signatures.json', bytes: sig }];
}

describe('signBundle / verifyBundle', () => {
  it.each(['RS256', 'PS256', 'ES256', 'ES384', 'HS256'] as const)('round-trips %s with a files list of every file but the signatures', async (alg) => {
    const k = keys(alg);
    const sig = await signBundle(files, { algorithm: alg, key: k.priv, keyId: 'release', scope: 'prod' });
    const doc = JSON.parse(new TextDecoder().decode(sig));
    expect(doc.signatures).toHaveLength(1);
    const [h, p] = (doc.signatures[0] as string).split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg, kid: 'release' });
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    expect(payload.files.map((f: { name: string }) => f.name)).toEqual(['.manifest', 'toolgate/authz.rego', 'toolgate/data.json']);
    expect(payload).toMatchObject({ keyid: 'release', scope: 'prod' });
    expect(payload.files[2]).toEqual({ name: 'toolgate/data.json', algorithm: 'SHA-256', hash: createHash('sha256').update('{"agents":{},"n":1.50}').digest('hex') });
    const v = await verifyBundle(withSig(files, sig), { key: k.pub, algorithm: alg, scope: 'prod' });
    expect(v.keyId).toBe('release');
  });

  describe('verification refuses', () => {
    let k: { priv: string; pub: string };
    let sig: Uint8Array;
    beforeAll(async () => {
      k = keys('RS256');
      sig = await signBundle(files, { algorithm: 'RS256', key: k.priv });
    });
    const failed = { code: 'BUNDLE_VERIFY_FAILED' };
    it('accepts the untouched bundle, and a data.json re-encoded with other spacing and key order', async () => {
      await expect(verifyBundle(withSig(files, sig), { key: k.pub })).resolves.toBeTruthy();
      const reformatted = files.map((f) => (f.name === 'toolgate/data.json' ? { ...f, bytes: enc.encode('{ "n": 1.50,\n  "agents": {} }') } : f));
      await expect(verifyBundle(withSig(reformatted, sig), { key: k.pub })).resolves.toBeTruthy();
    });
    it('a tampered file', async () => {
      const t = files.map((f) => (f.name === 'toolgate/authz.rego' ? { ...f, bytes: enc.encode('package toolgate.authz\nallow := true\n') } : f));
      await expect(verifyBundle(withSig(t, sig), { key: k.pub })).rejects.toMatchObject(failed);
      const n = files.map((f) => (f.name === 'toolgate/data.json' ? { ...f, bytes: enc.encode('{"agents":{},"n":1.5}') } : f));
      await expect(verifyBundle(withSig(n, sig), { key: k.pub })).rejects.toMatchObject(failed);
    });
    it('a missing file', async () => {
      await expect(verifyBundle(withSig(files.slice(0, 2), sig), { key: k.pub })).rejects.toMatchObject({ ...failed, message: expect.stringContaining('missing') });
    });
    it('an extra file (unless excluded as OPA\'s --exclude-files-verify would)', async () => {
      const extra = [...files, { name: 'toolgate/extra.rego', bytes: enc.encode('package toolgate.x\n') }];
      await expect(verifyBundle(withSig(extra, sig), { key: k.pub })).rejects.toMatchObject({ ...failed, message: expect.stringContaining('extra') });
      await expect(verifyBundle(withSig(extra, sig), { key: k.pub, excludeFiles: ['toolgate/extra.rego'] })).resolves.toBeTruthy();
    });
    it('a wrong key', async () => {
      await expect(verifyBundle(withSig(files, sig), { key: keys('RS256').pub })).rejects.toMatchObject(failed);
    });
    it('another algorithm than configured, a scope mismatch, an unsigned bundle, two signatures', async () => {
      await expect(verifyBundle(withSig(files, sig), { key: k.pub, algorithm: 'PS256' })).rejects.toMatchObject(failed);
      await expect(verifyBundle(withSig(files, sig), { key: k.pub, scope: 'prod' })).rejects.toMatchObject(failed);
      await expect(verifyBundle(files, { key: k.pub })).rejects.toMatchObject(failed);
      const jws = JSON.parse(new TextDecoder().decode(sig)).signatures[0];
      await expect(verifyBundle(withSig(files, enc.encode(JSON.stringify({ signatures: [jws, jws] }))), { key: k.pub })).rejects.toMatchObject(failed);
    });
  });
});

describe('verifyBundle key ids, scope and globs, as OPA reads them (signatures-opa.test.ts checks against OPA)', () => {
  const failed = { code: 'BUNDLE_VERIFY_FAILED' };
  let k: { priv: string; pub: string };
  beforeAll(() => {
    k = keys('ES256');
  });
  it('lets a configured key id override the kid, and with none picks the key by kid, then by payload keyid', async () => {
    const sig = withSig(files, await signBundle(files, { algorithm: 'ES256', key: k.priv, keyId: 'release' }));
    await expect(verifyBundle(sig, { key: k.pub, algorithm: 'ES256' })).resolves.toMatchObject({ keyId: 'release', verificationKeyId: 'default' });
    await expect(verifyBundle(sig, { key: k.pub, algorithm: 'ES256', keyId: '' })).rejects.toMatchObject(failed);
    await expect(verifyBundle(sig, { keys: { release: { key: k.pub, algorithm: 'ES256' } } })).resolves.toMatchObject({ verificationKeyId: 'release' });
    await expect(verifyBundle(sig, { keys: { other: { key: k.pub, algorithm: 'ES256' } } })).rejects.toMatchObject(failed);
    const byClaim = withSig(files, await signBundle(files, { algorithm: 'ES256', key: k.priv, claims: { keyid: 'release' } }));
    await expect(verifyBundle(byClaim, { keys: { release: { key: k.pub, algorithm: 'ES256' } } })).resolves.toMatchObject({ keyId: 'release' });
    const none = withSig(files, await signBundle(files, { algorithm: 'ES256', key: k.priv }));
    await expect(verifyBundle(none, { keys: { release: { key: k.pub, algorithm: 'ES256' } } })).rejects.toMatchObject(failed);
  });
  it('takes a scope of "" as no scope, and a key\'s own scope when none is configured', async () => {
    const empty = withSig(files, await signBundle(files, { algorithm: 'ES256', key: k.priv, scope: '' }));
    await expect(verifyBundle(empty, { key: k.pub, algorithm: 'ES256' })).resolves.toBeTruthy();
    await expect(verifyBundle(empty, { key: k.pub, algorithm: 'ES256', scope: '' })).resolves.toBeTruthy();
    await expect(verifyBundle(empty, { key: k.pub, algorithm: 'ES256', scope: 'prod' })).rejects.toMatchObject(failed);
    const prod = withSig(files, await signBundle(files, { algorithm: 'ES256', key: k.priv, keyId: 'r', scope: 'prod' }));
    await expect(verifyBundle(prod, { keys: { r: { key: k.pub, algorithm: 'ES256', scope: 'prod' } } })).resolves.toBeTruthy();
  });
  it('checks the signature under the configured algorithm, not the header\'s', async () => {
    const sig = JSON.parse(new TextDecoder().decode(await signBundle(files, { algorithm: 'ES256', key: k.priv }))).signatures[0] as string;
    const [, p, s] = sig.split('.');
    const relabelled = `${Buffer.from('{"alg":"ES384"}').toString('base64url')}.${p}.${s}`;
    // The signing input covers the header, so relabelling breaks it, whichever algorithm is used.
    await expect(verifyBundle(withSig(files, enc.encode(JSON.stringify({ signatures: [relabelled] }))), { key: k.pub, algorithm: 'ES256' })).rejects.toMatchObject(failed);
    await expect(verifyBundle(withSig(files, enc.encode(JSON.stringify({ signatures: [sig] }))), { key: k.pub, algorithm: 'ES384' })).rejects.toMatchObject(failed);
  });
  it('refuses a missing file even when an exclusion matches it', async () => {
    const sig = await signBundle(files, { algorithm: 'ES256', key: k.priv });
    await expect(verifyBundle(withSig(files.slice(0, 2), sig), { key: k.pub, algorithm: 'ES256', excludeFiles: ['toolgate/*'] })).rejects.toMatchObject(failed);
  });
  it.each([
    ['*.rego', 'a.rego', true],
    ['*.rego', 'toolgate/a.rego', false],
    ['toolgate/*', 'toolgate/a.rego', true],
    ['toolgate/?.rego', 'toolgate/a.rego', true],
    ['toolgate/[a-c].rego', 'toolgate/b.rego', true],
    ['toolgate/[^a-c].rego', 'toolgate/b.rego', false],
    ['toolgate/\\*.rego', 'toolgate/*.rego', true],
    ['toolgate/\\*.rego', 'toolgate/a.rego', false],
    ['a.(x)+', 'a.(x)+', true],
    ['[', '[', false],
    ['[]a]', 'a', false],
  ] as const)('goGlobMatch(%j, %j) is %s, as Go filepath.Match', (glob, name, want) => {
    expect(goGlobMatch(glob, name)).toBe(want);
  });
});

describe('compile --signing-key and toolgate bundle verify / inspect', () => {
  let dir: string;
  let pub: string;
  let priv: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-bundle-sign-'));
    const k = keys('RS256');
    priv = join(dir, 'key.pem');
    pub = join(dir, 'pub.pem');
    writeFileSync(priv, k.priv, { mode: 0o600 });
    writeFileSync(pub, k.pub);
  });
  it('writes a deterministic signed bundle that verifies, never printing the key', async () => {
    const runs = [];
    for (const n of [1, 2]) {
      const out = join(dir, `out${n}`);
      const r = await runCli(['compile', '--example', 'quickstart', '--signing-key', priv, '--signing-alg', 'RS256', '--signing-key-id', 'release', '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toMatch(/PRIVATE KEY|MII/);
      runs.push(readFileSync(join(out, 'bundle.tar.gz')));
    }
    expect(runs[0]).toEqual(runs[1]);
    const v = await runCli(['bundle', 'verify', join(dir, 'out1/bundle.tar.gz'), '--verification-key', pub]);
    expect(v.code, v.stderr).toBe(0);
    expect(v.json()).toMatchObject({ verified: true, key_id: 'release', verification_key_id: 'default', files: ['.manifest', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego'] });
    const i = await runCli(['bundle', 'inspect', join(dir, 'out1/bundle.tar.gz')]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.json()).toMatchObject({ roots: ['toolgate'], signatures: { alg: 'RS256', kid: 'release', files: 9, verified: false } });
    expect(i.json().entries.map((e: { name: string }) => e.name)).toEqual(['.manifest', '.signatures.json', 'toolgate/authz.rego', 'toolgate/data.json', 'toolgate/gateways/contextforge.rego', 'toolgate/gateways/contracts.rego', 'toolgate/gateways/core.rego', 'toolgate/gateways/docker.rego', 'toolgate/gateways/envoy.rego', 'toolgate/gateways/kong.rego']);
  });
  it('signs through --bundle-signer CMD (a host-held key) and verifies', async () => {
    const out = join(dir, 'cmd');
    const cmd = `openssl dgst -sha256 -sign ${priv} | base64 -w0`;
    const r = await runCli(['compile', '--example', 'quickstart', '--bundle-signer', cmd, '--signing-alg', 'RS256', '--out', out], { env: { SOURCE_DATE_EPOCH: '0', PATH: process.env.PATH } });
    expect(r.code, r.stderr).toBe(0);
    const v = await runCli(['bundle', 'verify', join(out, 'bundle.tar.gz'), '--verification-key', pub]);
    expect(v.code, v.stderr).toBe(0);
  });
  it('bundle verify exits 1 on a tampered tarball and on a wrong key', async () => {
    const files = await readTarball(readFileSync(join(dir, 'out1/bundle.tar.gz')), 'b');
    const tampered = files.map((f) => (f.name === 'toolgate/authz.rego' ? { name: f.name, bytes: enc.encode('package toolgate.authz\ndecision := {"allow": true}\n') } : f));
    writeFileSync(join(dir, 'tampered.tar.gz'), await emitTarGz(tampered));
    const t = await runCli(['bundle', 'verify', join(dir, 'tampered.tar.gz'), '--verification-key', pub]);
    expect(t.code).toBe(1);
    expect(t.stderr).toContain('BUNDLE_VERIFY_FAILED');
    const other = keys('RS256');
    writeFileSync(join(dir, 'other.pem'), other.pub);
    expect((await runCli(['bundle', 'verify', join(dir, 'out1/bundle.tar.gz'), '--verification-key', join(dir, 'other.pem')])).code).toBe(1);
  });
  it('refuses signing options without a key or signer, and an unknown algorithm', async () => {
    expect((await runCli(['compile', '--example', 'quickstart', '--scope', 's', '--out', join(dir, 'x')])).code).toBe(2);
    expect((await runCli(['compile', '--example', 'quickstart', '--signing-key', priv, '--signing-alg', 'none', '--out', join(dir, 'x')])).code).toBe(2);
  });
});
