/**
 * crypto.x509.* and crypto.parse_private_keys against the real OPA. Throwaway keys, certificates
 * (a root, an intermediate and leaves with assorted extensions) and CSRs are made with the openssl
 * CLI in a temporary folder; fast-check then builds the operands from them: PEM, base64 of PEM,
 * base64 of DER, chains in and out of order, truncated and corrupted text, wrong block types.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-x509-'));

function openssl(args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
}

const read = (f: string) => readFileSync(join(dir, f), 'utf8');

interface Material {
  keys: string[];
  certs: { root: string; int: string; leaf: string; client: string; expired: string; plain: string };
  csrs: string[];
}

function makeMaterial(): Material {
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', 'rsa.pem']);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', 'ec256.pem']);
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384', '-out', 'ec384.pem']);
  openssl(['genpkey', '-algorithm', 'ed25519', '-out', 'ed.pem']);
  openssl(['pkey', '-in', 'rsa.pem', '-traditional', '-out', 'rsa1.pem']);
  openssl(['ec', '-in', 'ec256.pem', '-out', 'ec1.pem']);
  writeFileSync(join(dir, 'ca.ext'), 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\n');
  writeFileSync(join(dir, 'int.ext'), 'basicConstraints=critical,CA:TRUE,pathlen:0\nkeyUsage=critical,keyCertSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
  writeFileSync(
    join(dir, 'leaf.ext'),
    'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth,1.2.3.4.5\n' +
      'subjectAltName=DNS:svc.example,DNS:*.svc.example,IP:10.1.2.3,IP:2001:db8::7,URI:spiffe://example/ns/a,email:ops@example.com\n' +
      'crlDistributionPoints=URI:http://crl.example/root.crl\nauthorityInfoAccess=OCSP;URI:http://ocsp.example,caIssuers;URI:http://ca.example/int.crt\n' +
      'subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n',
  );
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\nsubjectAltName=DNS:client.example\n');
  openssl(['req', '-x509', '-key', 'rsa.pem', '-subj', '/C=US/ST=CA/L=SF/O=Acme/OU=Root/CN=Acme Root', '-days', '3650', '-set_serial', '1', '-out', 'root.pem', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  openssl(['req', '-new', '-key', 'ec256.pem', '-subj', '/O=Acme/CN=Acme Intermediate', '-out', 'int.csr']);
  openssl(['x509', '-req', '-in', 'int.csr', '-CA', 'root.pem', '-CAkey', 'rsa.pem', '-set_serial', '2', '-days', '1000', '-extfile', 'int.ext', '-out', 'int.pem']);
  openssl(['req', '-new', '-key', 'ec384.pem', '-subj', '/C=DE/O=Acme/CN=svc.example/serialNumber=42', '-out', 'leaf.csr', '-addext', 'subjectAltName=DNS:svc.example,IP:10.1.2.3']);
  openssl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'int.pem', '-CAkey', 'ec256.pem', '-set_serial', '123456789012345678901234567890', '-days', '400', '-extfile', 'leaf.ext', '-out', 'leaf.pem']);
  openssl(['req', '-new', '-key', 'ed.pem', '-subj', '/CN=client.example', '-out', 'client.csr']);
  openssl(['x509', '-req', '-in', 'client.csr', '-CA', 'int.pem', '-CAkey', 'ec256.pem', '-set_serial', '7', '-days', '30', '-extfile', 'client.ext', '-out', 'client.pem']);
  openssl(['req', '-x509', '-key', 'ed.pem', '-subj', '/CN=expired.example', '-days', '1', '-set_serial', '9', '-out', 'expired.pem']);
  openssl(['req', '-x509', '-key', 'ec1.pem', '-subj', '/CN=v1 self', '-days', '10', '-out', 'plain.pem']);
  return {
    keys: [read('rsa.pem'), read('rsa1.pem'), read('ec256.pem'), read('ec1.pem'), read('ec384.pem'), read('ed.pem')],
    certs: { root: read('root.pem'), int: read('int.pem'), leaf: read('leaf.pem'), client: read('client.pem'), expired: read('expired.pem'), plain: read('plain.pem') },
    csrs: [read('int.csr'), read('leaf.csr'), read('client.csr')],
  };
}

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');
const derB64 = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

describeWithOpa('crypto.x509.* against opa', () => {
  let oracle: BuiltinOracle;
  let m: Material;
  beforeAll(async () => {
    m = makeMaterial();
    oracle = await BuiltinOracle.start([
      { name: 'crypto.x509.parse_certificates', arity: 1 },
      { name: 'crypto.x509.parse_and_verify_certificates', arity: 1 },
      { name: 'crypto.x509.parse_and_verify_certificates_with_options', arity: 2 },
      { name: 'crypto.x509.parse_certificate_request', arity: 1 },
      { name: 'crypto.x509.parse_keypair', arity: 2 },
      { name: 'crypto.x509.parse_rsa_private_key', arity: 1 },
      { name: 'crypto.parse_private_keys', arity: 1 },
    ], { now: BigInt(Date.now()) * 1_000_000n });
  }, 60_000);
  afterAll(async () => {
    await oracle?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const mangle = (s: string) =>
    fc.oneof(
      { weight: 5, arbitrary: fc.constant(s) },
      fc.constant(b64(s)),
      fc.constant(derB64(s)),
      fc.integer({ min: 0, max: Math.max(0, s.length - 1) }).map((n) => s.slice(0, n)),
      fc.tuple(fc.integer({ min: 0, max: Math.max(0, s.length - 1) }), fc.constantFrom('!', 'A', '=', '\n', '-')).map(([i, c]) => s.slice(0, i) + c + s.slice(i + 1)),
      fc.constant(s.replace('CERTIFICATE', 'PUBLIC KEY')),
    );

  it('parse_certificates, parse_certificate_request and the key parsers agree on generated operands', async () => {
    const certs = Object.values(m.certs);
    const chainText = fc.array(fc.constantFrom(...certs), { minLength: 1, maxLength: 3 }).map((xs) => xs.join(''));
    const calls = [
      ...fc.sample(chainText.chain(mangle), { numRuns: 150, seed: 1 }).map((s) => ({ name: 'crypto.x509.parse_certificates', args: [s] })),
      ...fc.sample(fc.constantFrom(...m.csrs).chain(mangle), { numRuns: 60, seed: 2 }).map((s) => ({ name: 'crypto.x509.parse_certificate_request', args: [s] })),
      ...fc.sample(fc.array(fc.constantFrom(...m.keys), { minLength: 1, maxLength: 2 }).map((xs) => xs.join('')).chain(mangle), { numRuns: 80, seed: 3 }).flatMap((s) => [
        { name: 'crypto.parse_private_keys', args: [s] },
        { name: 'crypto.x509.parse_rsa_private_key', args: [s] },
      ]),
      { name: 'crypto.parse_private_keys', args: [''] },
      { name: 'crypto.x509.parse_rsa_private_key', args: [''] },
      { name: 'crypto.x509.parse_certificates', args: [1] },
      { name: 'crypto.x509.parse_certificate_request', args: [null] },
    ];
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(150);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(30);
  }, 120_000);

  it('parse_keypair agrees on matching, mismatched and broken pairs', async () => {
    const pairs: [string, string][] = [
      [m.certs.root, m.keys[0]!],
      [m.certs.root, m.keys[1]!],
      [m.certs.int, m.keys[2]!],
      [m.certs.int, m.keys[3]!],
      [m.certs.leaf, m.keys[4]!],
      [m.certs.client, m.keys[5]!],
      [m.certs.root, m.keys[2]!],
      [b64(m.certs.leaf), b64(m.keys[4]!)],
      [m.certs.leaf + m.certs.int, m.keys[4]!],
    ];
    const calls = pairs.map((args) => ({ name: 'crypto.x509.parse_keypair', args }));
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThanOrEqual(6);
  }, 60_000);

  it('chain verification agrees on generated chains and options', async () => {
    const { root, int, leaf, client, expired, plain } = m.certs;
    const chain = fc.array(fc.constantFrom(root, int, leaf, client, expired, plain), { minLength: 0, maxLength: 4 }).map((xs) => xs.join(''));
    const good = fc.constantFrom(root + int + leaf, root + int + client, root + int, root + leaf, int + leaf, root + int + leaf + client);
    const options = fc.record(
      {
        DNSName: fc.constantFrom('svc.example', 'a.svc.example', 'other.example', 'client.example'),
        CurrentTime: fc.constantFrom(1_600_000_000_000_000_000, 4_000_000_000_000_000_000, Date.now() * 1_000_000),
        KeyUsages: fc.subarray(['KeyUsageServerAuth', 'KeyUsageClientAuth', 'KeyUsageAny', 'KeyUsageCodeSigning']),
      },
      { requiredKeys: [] },
    );
    const calls = [
      ...fc.sample(fc.oneof(good, chain), { numRuns: 60, seed: 4 }).map((s) => ({ name: 'crypto.x509.parse_and_verify_certificates', args: [s] })),
      ...fc.sample(fc.tuple(fc.oneof(good, chain), options), { numRuns: 120, seed: 5 }).map(([s, o]) => ({ name: 'crypto.x509.parse_and_verify_certificates_with_options', args: [s, o] })),
      { name: 'crypto.x509.parse_and_verify_certificates_with_options', args: [root + int + leaf, { Bogus: 1 }] },
      { name: 'crypto.x509.parse_and_verify_certificates_with_options', args: [root + int + leaf, { KeyUsages: ['Nope'] }] },
      { name: 'crypto.x509.parse_and_verify_certificates_with_options', args: [root + int + leaf, { DNSName: 1 }] },
    ];
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBeGreaterThan(100);
  }, 120_000);
});
