/**
 * `toolgate bundle verify` against the real OPA: every case below is a bundle plus verification
 * flags, given unchanged to `opa run --server --bundle` (what a gateway runs) and to `toolgate
 * bundle verify`; the two verdicts must be the same. OPA's verdict is never written down here, it is
 * whatever the binary answers (`opa build -b` is asked too, as a second witness that must agree).
 * Keys are generated per run into a temporary folder.
 */
import { beforeAll, afterAll, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { constants, createPrivateKey, generateKeyPairSync, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTarball } from '../../../src/bundle/read-tarball.ts';
import { bundleFileEntries } from '../../../src/bundle/signatures.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, opaPath, runOpa, startOpaServer } from '../../helpers/opa.ts';

interface Case {
  readonly name: string;
  /** Bundle file name under the work folder. */
  readonly bundle: string;
  /** Public key (or HMAC secret) file name under the work folder. */
  readonly key: string;
  readonly alg?: string;
  readonly keyId?: string;
  readonly scope?: string;
  readonly exclude?: readonly string[];
}

type Verdict = { accepted: boolean; why: string };

const enc = new TextEncoder();
const b64 = (x: string | Uint8Array) => Buffer.from(x).toString('base64url');

function flags(c: Case): string[] {
  return [
    '--verification-key', c.key,
    ...(c.keyId !== undefined ? ['--verification-key-id', c.keyId] : []),
    ...(c.alg !== undefined ? ['--signing-alg', c.alg] : []),
    ...(c.scope !== undefined ? ['--scope', c.scope] : []),
    ...(c.exclude ?? []).flatMap((g) => ['--exclude-files-verify', g]),
  ];
}

const CASES: Case[] = [
  // toolgate-signed, one per algorithm
  { name: 'toolgate RS256, kid "release", verified under key id "release"', bundle: 'tg-rs256.tar.gz', key: 'rsa.pub', keyId: 'release' },
  { name: 'toolgate PS256', bundle: 'tg-ps256.tar.gz', key: 'rsa.pub', alg: 'PS256' },
  { name: 'toolgate ES256', bundle: 'tg-es256.tar.gz', key: 'p256.pub', alg: 'ES256' },
  { name: 'toolgate ES384', bundle: 'tg-es384.tar.gz', key: 'p384.pub', alg: 'ES384' },
  { name: 'toolgate ES512', bundle: 'tg-es512.tar.gz', key: 'p521.pub', alg: 'ES512' },
  { name: 'toolgate EdDSA (Ed25519)', bundle: 'tg-eddsa.tar.gz', key: 'ed.pub', alg: 'EdDSA' },
  { name: 'toolgate HS256 (secret file with a trailing newline)', bundle: 'tg-hs256.tar.gz', key: 'hs.secret', alg: 'HS256' },
  { name: 'toolgate RS256 with --claims-file (iss, iat)', bundle: 'tg-claims.tar.gz', key: 'rsa.pub' },
  // key id and kid
  { name: 'kid "release" differs from the configured default key id', bundle: 'tg-rs256.tar.gz', key: 'rsa.pub' },
  { name: 'kid "release" differs from configured key id "other"', bundle: 'tg-rs256.tar.gz', key: 'rsa.pub', keyId: 'other' },
  { name: 'kid "release", configured key id "" (kid picks, names no configured key)', bundle: 'tg-rs256.tar.gz', key: 'rsa.pub', keyId: '' },
  { name: 'no kid, default key id', bundle: 'tg-nokid.tar.gz', key: 'rsa.pub' },
  { name: 'no kid, configured key id "" (no key id at all)', bundle: 'tg-nokid.tar.gz', key: 'rsa.pub', keyId: '' },
  { name: 'payload keyid only (no kid header), default key id', bundle: 'tg-payload-keyid.tar.gz', key: 'rsa.pub' },
  { name: 'numeric kid header', bundle: 'x-kid-number.tar.gz', key: 'rsa.pub' },
  // scope
  { name: 'payload scope "", no scope configured', bundle: 'tg-scope-empty.tar.gz', key: 'rsa.pub' },
  { name: 'payload scope "", --scope ""', bundle: 'tg-scope-empty.tar.gz', key: 'rsa.pub', scope: '' },
  { name: 'payload scope "", --scope prod', bundle: 'tg-scope-empty.tar.gz', key: 'rsa.pub', scope: 'prod' },
  { name: 'payload scope prod, --scope prod', bundle: 'tg-scope-prod.tar.gz', key: 'rsa.pub', scope: 'prod' },
  { name: 'payload scope prod, --scope staging', bundle: 'tg-scope-prod.tar.gz', key: 'rsa.pub', scope: 'staging' },
  { name: 'payload scope prod, no scope configured', bundle: 'tg-scope-prod.tar.gz', key: 'rsa.pub' },
  { name: 'no payload scope, --scope prod', bundle: 'tg-nokid.tar.gz', key: 'rsa.pub', scope: 'prod' },
  { name: 'payload claim spelled "SCOPE", --scope prod', bundle: 'x-scope-upper.tar.gz', key: 'rsa.pub', scope: 'prod' },
  { name: 'payload scope null, no scope configured', bundle: 'x-scope-null.tar.gz', key: 'rsa.pub' },
  { name: 'payload scope a number', bundle: 'x-scope-number.tar.gz', key: 'rsa.pub' },
  // algorithm
  { name: 'RS256 bundle verified as PS256', bundle: 'tg-nokid.tar.gz', key: 'rsa.pub', alg: 'PS256' },
  { name: 'ES256 bundle verified as ES384 with the same key', bundle: 'tg-es256.tar.gz', key: 'p256.pub', alg: 'ES384' },
  { name: 'header says RS384, signature is RS256, configured RS256', bundle: 'x-hdr-rs384.tar.gz', key: 'rsa.pub' },
  { name: 'header without alg', bundle: 'x-hdr-noalg.tar.gz', key: 'rsa.pub' },
  { name: 'alg none, empty signature', bundle: 'x-alg-none.tar.gz', key: 'rsa.pub' },
  { name: 'HS256 over the RSA public key PEM, configured RS256', bundle: 'x-hs-confusion.tar.gz', key: 'rsa.pub' },
  { name: 'PS256 with a zero-length salt', bundle: 'x-pss-salt0.tar.gz', key: 'rsa.pub', alg: 'PS256' },
  { name: 'RS256 by a 512-bit RSA key', bundle: 'x-rsa512.tar.gz', key: 'rsa512.pub' },
  { name: 'wrong key', bundle: 'tg-nokid.tar.gz', key: 'rsa-other.pub' },
  // files
  { name: 'tampered rego', bundle: 'x-tampered.tar.gz', key: 'rsa.pub' },
  { name: 'data.json re-encoded (same value, other spacing)', bundle: 'x-reencoded.tar.gz', key: 'rsa.pub' },
  { name: 'missing data.json', bundle: 'x-missing.tar.gz', key: 'rsa.pub' },
  { name: 'missing data.json, excluded by glob', bundle: 'x-missing.tar.gz', key: 'rsa.pub', exclude: ['toolgate/data.json'] },
  { name: 'extra rego file', bundle: 'x-extra.tar.gz', key: 'rsa.pub' },
  { name: 'extra rego file excluded by exact name', bundle: 'x-extra.tar.gz', key: 'rsa.pub', exclude: ['toolgate/extra.rego'] },
  { name: 'extra rego file, glob "*.rego" (does not cross /)', bundle: 'x-extra.tar.gz', key: 'rsa.pub', exclude: ['*.rego'] },
  { name: 'extra rego file, glob "toolgate/[a-f]x*.rego"', bundle: 'x-extra.tar.gz', key: 'rsa.pub', exclude: ['toolgate/[a-f]x*.rego'] },
  { name: 'tampered rego excluded by "toolgate/*"', bundle: 'x-tampered.tar.gz', key: 'rsa.pub', exclude: ['toolgate/*'] },
  { name: 'file hashes in upper-case hex', bundle: 'x-hash-upper.tar.gz', key: 'rsa.pub' },
  { name: 'a file listed twice, last entry right', bundle: 'x-dup-last-good.tar.gz', key: 'rsa.pub' },
  { name: 'iat a float', bundle: 'x-iat-float.tar.gz', key: 'rsa.pub' },
  // the signatures file
  { name: 'unsigned bundle, verification configured', bundle: 'tg-unsigned.tar.gz', key: 'rsa.pub' },
  { name: 'unsigned bundle, configured key id ""', bundle: 'tg-unsigned.tar.gz', key: 'rsa.pub', keyId: '' },
  { name: 'two JWS in signatures', bundle: 'x-two-jws.tar.gz', key: 'rsa.pub' },
  { name: 'signatures file with trailing text', bundle: 'x-sig-trailing.tar.gz', key: 'rsa.pub' },
  { name: 'signatures file under toolgate/ only', bundle: 'x-sig-moved.tar.gz', key: 'rsa.pub' },
  { name: 'a second .signatures.json under toolgate/', bundle: 'x-sig-second.tar.gz', key: 'rsa.pub' },
  { name: 'an unknown verifier plugin', bundle: 'x-plugin.tar.gz', key: 'rsa.pub' },
  // OPA-signed, read by toolgate
  { name: 'opa build RS256', bundle: 'opa-rs256.tar.gz', key: 'rsa.pub' },
  { name: 'opa build ES256 --scope prod', bundle: 'opa-es256-scope.tar.gz', key: 'p256.pub', alg: 'ES256', scope: 'prod' },
  { name: 'opa build ES256 --scope prod, verified without scope', bundle: 'opa-es256-scope.tar.gz', key: 'p256.pub', alg: 'ES256' },
  { name: 'opa build EdDSA --claims-file', bundle: 'opa-eddsa-claims.tar.gz', key: 'ed.pub', alg: 'EdDSA' },
  { name: 'opa build HS256', bundle: 'opa-hs256.tar.gz', key: 'hs.secret', alg: 'HS256' },
  { name: 'opa build re-signing a toolgate bundle with an extra file, --exclude-files-verify', bundle: 'opa-resigned.tar.gz', key: 'rsa.pub' },
  { name: 'opa build bundle plus an unlisted file, excluded', bundle: 'opa-extra.tar.gz', key: 'rsa.pub', exclude: ['toolgate/*.txt'] },
  { name: 'opa build bundle plus an unlisted file', bundle: 'opa-extra.tar.gz', key: 'rsa.pub' },
];

/** `opa ARGS` without blocking the event loop (the servers started alongside are polled on it). */
function opaAsync(args: readonly string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // `opa build` prints its errors on stdout.
    execFile(opaPath(), args, { timeout: 60_000 }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: `${stdout}${stderr}` }));
  });
}

/** Runs `fn` over `items`, at most `n` at a time. */
async function pool<T, R>(items: readonly T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

describeWithOpa('toolgate bundle verify gives the real OPA\'s verdict', () => {
  let dir: string;
  const opaRun = new Map<string, Verdict>();
  const opaBuild = new Map<string, Verdict>();
  const at = (f: string) => join(dir, f);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'toolgate-sig-opa-'));
    // Keys
    const pem = (k: KeyObject, priv: boolean) => (priv ? k.export({ type: 'pkcs8', format: 'pem' }) : k.export({ type: 'spki', format: 'pem' })).toString();
    const pair = (name: string, p: { privateKey: KeyObject; publicKey: KeyObject }) => {
      writeFileSync(at(`${name}.pem`), pem(p.privateKey, true), { mode: 0o600 });
      writeFileSync(at(`${name}.pub`), pem(p.publicKey, false));
    };
    pair('rsa', generateKeyPairSync('rsa', { modulusLength: 2048 }));
    pair('rsa-other', generateKeyPairSync('rsa', { modulusLength: 2048 }));
    pair('rsa512', generateKeyPairSync('rsa', { modulusLength: 512 }));
    pair('p256', generateKeyPairSync('ec', { namedCurve: 'P-256' }));
    pair('p384', generateKeyPairSync('ec', { namedCurve: 'P-384' }));
    pair('p521', generateKeyPairSync('ec', { namedCurve: 'P-521' }));
    pair('ed', generateKeyPairSync('ed25519'));
    writeFileSync(at('hs.secret'), 'a shared secret, long enough for HMAC\n', { mode: 0o600 });
    writeFileSync(at('claims.json'), JSON.stringify({ iss: 'toolgate-test', iat: 1700000000 }));
    writeFileSync(at('claims-scope-empty.json'), JSON.stringify({ scope: '' }));
    writeFileSync(at('claims-keyid.json'), JSON.stringify({ keyid: 'release' }));

    // toolgate-signed bundles, from the CLI
    const compile = async (out: string, args: string[]) => {
      const r = await runCli(['compile', '--example', 'quickstart', '--out', at(out), ...args], { env: { SOURCE_DATE_EPOCH: '0' } });
      expect(r.code, r.stderr).toBe(0);
      writeFileSync(at(`${out}.tar.gz`), readFileSync(at(`${out}/bundle.tar.gz`)));
    };
    await compile('tg-rs256', ['--signing-key', at('rsa.pem'), '--signing-alg', 'RS256', '--signing-key-id', 'release']);
    await compile('tg-ps256', ['--signing-key', at('rsa.pem'), '--signing-alg', 'PS256', '--signing-key-id', 'default']);
    await compile('tg-es256', ['--signing-key', at('p256.pem'), '--signing-alg', 'ES256']);
    await compile('tg-es384', ['--signing-key', at('p384.pem'), '--signing-alg', 'ES384']);
    await compile('tg-es512', ['--signing-key', at('p521.pem'), '--signing-alg', 'ES512']);
    await compile('tg-eddsa', ['--signing-key', at('ed.pem'), '--signing-alg', 'EdDSA', '--signing-key-id', 'ed']);
    await compile('tg-hs256', ['--signing-key', at('hs.secret'), '--signing-alg', 'HS256']);
    await compile('tg-claims', ['--signing-key', at('rsa.pem'), '--claims-file', at('claims.json')]);
    await compile('tg-nokid', ['--signing-key', at('rsa.pem')]);
    await compile('tg-payload-keyid', ['--signing-key', at('rsa.pem'), '--claims-file', at('claims-keyid.json')]);
    await compile('tg-scope-empty', ['--signing-key', at('rsa.pem'), '--claims-file', at('claims-scope-empty.json')]);
    await compile('tg-scope-prod', ['--signing-key', at('rsa.pem'), '--scope', 'prod']);
    await compile('tg-unsigned', []);

    // Hand-made signatures over the unsigned bundle's files
    const plain = (await readTarball(readFileSync(at('tg-unsigned.tar.gz')), 'tg-unsigned')).filter((f) => f.name !== '.signatures.json');
    const files = bundleFileEntries(plain);
    const rsa = createPrivateKey(readFileSync(at('rsa.pem')));
    const jws = (header: object, payload: object, sign: (input: Buffer) => Buffer = (i) => cryptoSign('sha256', i, rsa)) => {
      const input = `${b64(JSON.stringify(header))}.${b64(JSON.stringify(payload))}`;
      return `${input}.${b64(sign(Buffer.from(input)))}`;
    };
    const write = async (name: string, entries: { name: string; bytes: Uint8Array }[]) => writeFileSync(at(name), await emitTarGz(entries));
    const signed = (name: string, token: string, entries = plain) => write(name, [...entries, { name: '.signatures.json', bytes: enc.encode(JSON.stringify({ signatures: [token] })) }]);
    const good = jws({ alg: 'RS256' }, { files });
    await signed('x-kid-number.tar.gz', jws({ alg: 'RS256', kid: 7 }, { files }));
    await signed('x-scope-upper.tar.gz', jws({ alg: 'RS256' }, { files, SCOPE: 'prod' }));
    await signed('x-scope-null.tar.gz', jws({ alg: 'RS256' }, { files, scope: null }));
    await signed('x-scope-number.tar.gz', jws({ alg: 'RS256' }, { files, scope: 1 }));
    await signed('x-hdr-rs384.tar.gz', jws({ alg: 'RS384' }, { files }));
    await signed('x-hdr-noalg.tar.gz', jws({}, { files }));
    await signed('x-alg-none.tar.gz', jws({ alg: 'none' }, { files }, () => Buffer.alloc(0)));
    const { createHmac } = await import('node:crypto');
    await signed('x-hs-confusion.tar.gz', jws({ alg: 'HS256' }, { files }, (i) => createHmac('sha256', readFileSync(at('rsa.pub'))).update(i).digest()));
    await signed('x-pss-salt0.tar.gz', jws({ alg: 'PS256' }, { files }, (i) => cryptoSign('sha256', i, { key: rsa, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 0 })));
    const rsa512 = createPrivateKey(readFileSync(at('rsa512.pem')));
    await signed('x-rsa512.tar.gz', jws({ alg: 'RS256' }, { files }, (i) => cryptoSign('sha256', i, rsa512)));
    await signed('x-hash-upper.tar.gz', jws({ alg: 'RS256' }, { files: files.map((f) => ({ ...f, hash: f.hash.toUpperCase() })) }));
    await signed('x-dup-last-good.tar.gz', jws({ alg: 'RS256' }, { files: [{ ...files[0]!, hash: '00'.repeat(32) }, ...files] }));
    await signed('x-iat-float.tar.gz', jws({ alg: 'RS256' }, { files, iat: 1.5 }));
    const edit = (name: string, bytes: string) => plain.map((f) => (f.name === name ? { name, bytes: enc.encode(bytes) } : f));
    await signed('x-tampered.tar.gz', good, edit('toolgate/authz.rego', `${new TextDecoder().decode(plain.find((f) => f.name === 'toolgate/authz.rego')!.bytes)}\n# changed\n`));
    await signed('x-reencoded.tar.gz', good, edit('toolgate/data.json', JSON.stringify(JSON.parse(new TextDecoder().decode(plain.find((f) => f.name === 'toolgate/data.json')!.bytes)), null, 3)));
    await signed('x-missing.tar.gz', good, plain.filter((f) => f.name !== 'toolgate/data.json'));
    await signed('x-extra.tar.gz', good, [...plain, { name: 'toolgate/extra.rego', bytes: enc.encode('package toolgate.extra\n\nallow := true\n') }]);
    await write('x-two-jws.tar.gz', [...plain, { name: '.signatures.json', bytes: enc.encode(JSON.stringify({ signatures: [good, good] })) }]);
    await write('x-sig-trailing.tar.gz', [...plain, { name: '.signatures.json', bytes: enc.encode(`${JSON.stringify({ signatures: [good] })} and then some`) }]);
    await write('x-sig-moved.tar.gz', [...plain, { name: 'toolgate/.signatures.json', bytes: enc.encode(JSON.stringify({ signatures: [good] })) }]);
    await write('x-sig-second.tar.gz', [...plain, { name: '.signatures.json', bytes: enc.encode(JSON.stringify({ signatures: [good] })) }, { name: 'toolgate/.signatures.json', bytes: enc.encode('{}') }]);
    await write('x-plugin.tar.gz', [...plain, { name: '.signatures.json', bytes: enc.encode(JSON.stringify({ signatures: [good], plugin: 'acme' })) }]);

    // OPA-signed bundles, built by `opa build` from the extracted toolgate bundle
    const src = at('extracted');
    for (const f of plain) {
      mkdirSync(dirname(join(src, f.name)), { recursive: true });
      writeFileSync(join(src, f.name), f.bytes);
    }
    writeFileSync(at('opa-claims.json'), JSON.stringify({ iss: 'opa-build', keyid: 'ed' }));
    const build = (out: string, args: string[], cwd = src) => {
      const r = runOpa(['build', '-b', '.', '-o', at(out), ...args], { cwd });
      expect(r.code, r.stderr).toBe(0);
    };
    build('opa-rs256.tar.gz', ['--signing-key', at('rsa.pem')]);
    build('opa-es256-scope.tar.gz', ['--signing-key', at('p256.pem'), '--signing-alg', 'ES256', '--scope', 'prod']);
    build('opa-eddsa-claims.tar.gz', ['--signing-key', at('ed.pem'), '--signing-alg', 'EdDSA', '--claims-file', at('opa-claims.json')]);
    build('opa-hs256.tar.gz', ['--signing-key', at('hs.secret'), '--signing-alg', 'HS256']);
    // OPA verifies the toolgate-signed input (an unlisted file forgiven by the glob), then re-signs it
    // (--signing-alg would apply to both, so both stay RS256).
    const withExtra = [...(await readTarball(readFileSync(at('tg-nokid.tar.gz')), 'tg-nokid')), { name: 'toolgate/notes.txt', bytes: enc.encode('not signed\n') }];
    await write('tg-nokid-extra.tar.gz', withExtra);
    const r = runOpa(['build', '-b', at('tg-nokid-extra.tar.gz'), '--verification-key', at('rsa.pub'), '--exclude-files-verify', 'toolgate/*.txt', '--signing-key', at('rsa.pem'), '-o', at('opa-resigned.tar.gz')]);
    expect(r.code, r.stderr).toBe(0);
    const opaSigned = await readTarball(readFileSync(at('opa-rs256.tar.gz')), 'opa-rs256');
    await write('opa-extra.tar.gz', [...opaSigned, { name: 'toolgate/notes.txt', bytes: enc.encode('not signed\n') }]);

    // OPA's verdicts, a few servers at a time; each stops as soon as it is healthy or has exited.
    const abs = (c: Case) => ({ ...c, bundle: at(c.bundle), key: at(c.key) });
    await pool(CASES, 6, async (c) => {
      const a = abs(c);
      try {
        const s = await startOpaServer(['--bundle', a.bundle, ...flags(a)]);
        await s.stop();
        opaRun.set(c.name, { accepted: true, why: 'healthy' });
      } catch (e) {
        const msg = (e as Error).message;
        if (!/exited/.test(msg)) throw e;
        // The log can be cut short (the helper returns on exit, before the pipes drain).
        opaRun.set(c.name, { accepted: false, why: /error: (.*)/.exec(msg)?.[1] ?? '' });
      }
      const b = await opaAsync(['build', '-b', a.bundle, '-o', '/dev/null', ...flags(a)]);
      opaBuild.set(c.name, { accepted: b.code === 0, why: /error: (.*)/.exec(b.output)?.[1] ?? b.output.trim() });
    });
    if (process.env.TOOLGATE_PRINT_OPA_VERDICTS) {
      for (const c of CASES) console.log(`| ${c.name} | ${flags(c).join(' ')} | ${opaRun.get(c.name)!.accepted ? 'accept' : 'refuse'} | ${opaBuild.get(c.name)!.why.replace(/bundle \S+: /, '')} |`);
    }
  }, 180_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has a table with both verdicts, in which opa run and opa build agree', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(20);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    const verdicts = CASES.map((c) => opaRun.get(c.name)!.accepted);
    expect(verdicts).toContain(true);
    expect(verdicts).toContain(false);
    for (const c of CASES) {
      const run = opaRun.get(c.name)!;
      const b = opaBuild.get(c.name)!;
      // A refusal must be a bundle load error, not a failure to start.
      if (!run.accepted) expect(`${run.why} ${b.why}`, c.name).toMatch(/load error/);
      expect({ case: c.name, build: b.accepted }).toEqual({ case: c.name, build: run.accepted });
    }
  });

  it.each(CASES)('$name', async (c) => {
    const opa = opaRun.get(c.name)!;
    const r = await runCli(['bundle', 'verify', c.bundle, ...flags(c)], { cwd: dir });
    expect({ accepted: r.code === 0, opa: opa.why, toolgate: r.stderr.trim() }).toMatchObject({ accepted: opa.accepted });
    if (!opa.accepted) {
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/BUNDLE_VERIFY_FAILED|BUNDLE_INVALID/);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
