/**
 * `crypto.x509.*` and `crypto.parse_private_keys`: certificates, chains, CSRs and private keys read as
 * OPA reads them (PEM, base64 of PEM, or base64 of DER) and returned in the shape of Go's crypto/x509
 * structs (see lib/gox509.ts). Signatures are checked with node:crypto; chain verification follows Go's
 * x509.Verify for what OPA passes it: the first certificate is the root, the last the leaf, the rest
 * intermediates; validity at the evaluation's clock unless `CurrentTime` is given; server-auth key usage
 * unless `KeyUsages` says otherwise.
 */
import { X509Certificate } from 'node:crypto';
import { ObjectValue, SetValue, isNumber, type Value } from '../value.ts';
import { toBigInt } from '../number-value.ts';
import { fromJSON } from '../value-json.ts';
import { builtinError, operandError, registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { obj, str } from './args.ts';
import { decodeGoBase64, decodePemBlocks, GoBase64Error } from './lib/gobase64.ts';
import { parseCertificateRequest, parseCertificates } from './lib/gox509.ts';
import { EXT_KEY_USAGE_NAMES } from './lib/gox509-extensions.ts';
import { GoX509Error } from './lib/gox509-fields.ts';
import { assertKeysMatch, privateKeyJson, privateKeyJwk } from './lib/gox509-private-key.ts';

/** Go-style failures of these builtins, reported as `name: message`. */
function attempt<T>(name: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof GoX509Error || e instanceof GoBase64Error) throw builtinError(name, e.message);
    throw e;
  }
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');
const utf8 = (s: string) => Buffer.from(s, 'utf8');

function certificatesFromPem(text: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const b of decodePemBlocks(text)) {
    if (b.type !== 'CERTIFICATE') throw new GoX509Error(`PEM block type is '${b.type}', expected CERTIFICATE`);
    parts.push(b.bytes);
  }
  return Buffer.concat(parts);
}

/** The DER of every certificate in the operand (OPA's getX509CertsFromString). */
function certificateDer(input: string): Uint8Array {
  if (input.startsWith('-----BEGIN')) return certificatesFromPem(input);
  const raw = decodeGoBase64(utf8(input));
  if (Buffer.from(raw).subarray(0, 10).toString('latin1') === '-----BEGIN') return certificatesFromPem(Buffer.from(raw).toString('latin1'));
  return raw;
}

function splitDer(der: Uint8Array): Uint8Array[] {
  // parseCertificates has already checked the framing; this only cuts the elements apart.
  const out: Uint8Array[] = [];
  let i = 0;
  while (i < der.length) {
    let len = der[i + 1]!;
    let off = i + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      len = 0;
      for (let k = 0; k < n; k++) len = len * 256 + der[off + k]!;
      off += n;
    }
    out.push(der.subarray(i, off + len));
    i = off + len;
  }
  return out;
}

interface VerifyOptions {
  dnsName?: string;
  nowNs: bigint;
  keyUsages: string[];
  maxConstraintComparisons?: number;
}

function verifyOptions(name: string, options: ObjectValue, nowNs: bigint): VerifyOptions {
  const o: VerifyOptions = { nowNs, keyUsages: [] };
  for (const [k, v] of options.entries()) {
    if (typeof k !== 'string') continue;
    switch (k) {
      case 'DNSName':
        if (typeof v !== 'string') throw builtinError(name, "'DNSName' should be a string");
        o.dnsName = v.replace(/^"+|"+$/g, '');
        break;
      case 'CurrentTime': {
        if (!isNumber(v)) throw builtinError(name, "'CurrentTime' should be a number");
        const ns = toBigInt(v);
        if (ns === undefined || ns > 2n ** 63n - 1n || ns < -(2n ** 63n)) throw builtinError(name, "'CurrentTime' should be a valid int64 number");
        o.nowNs = ns;
        break;
      }
      case 'MaxConstraintComparisons': {
        if (!isNumber(v)) throw builtinError(name, "'MaxConstraintComparisons' should be a number");
        const n = toBigInt(v);
        if (n === undefined) throw builtinError(name, "'MaxConstraintComparisons' should be a valid number");
        o.maxConstraintComparisons = Number(n);
        break;
      }
      case 'KeyUsages': {
        const items = Array.isArray(v) ? v : v instanceof SetValue ? v.values() : undefined;
        if (items === undefined) throw builtinError(name, "'KeyUsages' should be an Array or Set");
        const invalid: string[] = [];
        for (const u of items) {
          if (typeof u !== 'string') continue;
          const t = u.replace(/^"+|"+$/g, '');
          const oid = EXT_KEY_USAGE_NAMES.get(t);
          if (oid === undefined) invalid.push(t);
          else o.keyUsages.push(oid);
        }
        if (invalid.length > 0) throw builtinError(name, `invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`);
        break;
      }
      default:
        throw builtinError(name, 'invalid key option');
    }
  }
  return o;
}

interface ParsedCert {
  readonly der: Uint8Array;
  readonly node: X509Certificate;
  readonly json: Record<string, unknown>;
}

function validAt(c: ParsedCert, nowNs: bigint): boolean {
  const ms = Number(nowNs / 1_000_000n);
  return Date.parse(String(c.json.NotBefore)) <= ms && ms <= Date.parse(String(c.json.NotAfter));
}

/** Go's checkChainForKeyUsage: every certificate that restricts its usages allows a requested one. */
function allowsUsage(chain: readonly ParsedCert[], wanted: readonly string[]): boolean {
  const want = wanted.length === 0 ? ['1.3.6.1.5.5.7.3.1'] : wanted;
  if (want.includes('2.5.29.37.0')) return true;
  const names = new Map([...EXT_KEY_USAGE_NAMES.values()].map((oid, i) => [i, oid]));
  for (const c of chain) {
    const known = (c.json.ExtKeyUsage as number[] | null) ?? [];
    const unknown = (c.json.UnknownExtKeyUsage as unknown[] | null) ?? [];
    if (known.length === 0 && unknown.length === 0) continue;
    if (known.includes(0)) continue;
    const has = known.map((n) => names.get(n));
    if (!want.some((w) => has.includes(w))) return false;
  }
  return true;
}

function signedBy(child: ParsedCert, parent: ParsedCert): boolean {
  try {
    return child.node.checkIssued(parent.node) && child.node.verify(parent.node.publicKey);
  } catch {
    return false;
  }
}

/** Go's leaf.Verify with one root and the given intermediates; the first chain found, leaf first. */
function verifyChain(certs: readonly ParsedCert[], o: VerifyOptions): ParsedCert[] | undefined {
  if (certs.length < 2) return undefined;
  const root = certs[0]!;
  const intermediates = certs.slice(1, -1);
  const leaf = certs[certs.length - 1]!;
  if (((leaf.json.UnhandledCriticalExtensions as unknown[] | null) ?? []).length > 0) return undefined;
  if (!validAt(leaf, o.nowNs)) return undefined;
  if (o.dnsName !== undefined && o.dnsName !== '' && leaf.node.checkHost(o.dnsName, { subject: 'default' }) === undefined) return undefined;
  const search = (chain: ParsedCert[]): ParsedCert[] | undefined => {
    const top = chain[chain.length - 1]!;
    if (Buffer.compare(Buffer.from(top.der), Buffer.from(root.der)) === 0) return chain;
    if (signedBy(top, root) && validAt(root, o.nowNs) && pathLenOk(root, chain.length - 1)) return [...chain, root];
    for (const c of intermediates) {
      if (chain.includes(c)) continue;
      if (!signedBy(top, c) || !validAt(c, o.nowNs)) continue;
      if (c.json.BasicConstraintsValid !== true || c.json.IsCA !== true) continue;
      if (!pathLenOk(c, chain.length - 1)) continue;
      const found = search([...chain, c]);
      if (found) return found;
    }
    return undefined;
  };
  const chain = search([leaf]);
  if (chain === undefined || !allowsUsage(chain, o.keyUsages)) return undefined;
  return chain;
}

function pathLenOk(c: ParsedCert, intermediatesBelow: number): boolean {
  const max = c.json.MaxPathLen as number;
  return !(c.json.BasicConstraintsValid === true && max >= 0 && intermediatesBelow > max);
}

function parsedCerts(input: string): ParsedCert[] {
  const der = certificateDer(input);
  const json = parseCertificates(der, true);
  return splitDer(der).map((d, i) => ({ der: d, node: new X509Certificate(Buffer.from(d)), json: json[i]! }));
}

function withoutURIStrings(j: Record<string, unknown>): Record<string, unknown> {
  const { URIStrings: _u, ...rest } = j;
  return rest;
}

/** Decoding and parsing cost about a step per 16 characters of input. */
function chargeText(ctx: BuiltinContext, text: string): void {
  ctx.budget?.work(1 + (text.length >> 4));
}

function parseAndVerify(name: string, input: string, options: ObjectValue | undefined, ctx: BuiltinContext): Value {
  chargeText(ctx, input);
  let certs: ParsedCert[];
  try {
    certs = parsedCerts(input);
  } catch (e) {
    if (e instanceof GoX509Error || e instanceof GoBase64Error) return [false, []];
    throw e;
  }
  ctx.budget?.work(certs.length * 1000);
  const o = options === undefined ? { nowNs: ctx.now(), keyUsages: [] } : verifyOptions(name, options, ctx.now());
  const chain = verifyChain(certs, o);
  if (chain === undefined) return [false, []];
  // OPA adds URIStrings only in the option-less variant.
  return [true, fromJSON(chain.map((c) => (options === undefined ? c.json : withoutURIStrings(c.json))))];
}

/** A PEM or base64 operand of parse_keypair as PEM text. */
function pemText(input: string): string {
  if (input.startsWith('-----BEGIN ')) return input;
  return Buffer.from(decodeGoBase64(utf8(input))).toString('latin1');
}

const KEY_FORMATS: ReadonlyMap<string, 'pkcs1' | 'pkcs8' | 'sec1'> = new Map([
  ['RSA PRIVATE KEY', 'pkcs1'],
  ['PRIVATE KEY', 'pkcs8'],
  ['EC PRIVATE KEY', 'sec1'],
]);

/** OPA's getPrivateKeysFromPEMData: every private key block (base64 of PEM is accepted too). */
function privateKeys(input: string): Value {
  let text = input;
  try {
    text = Buffer.from(decodeGoBase64(utf8(input))).toString('latin1');
  } catch (e) {
    if (!(e instanceof GoBase64Error)) throw e;
  }
  const keys: unknown[] = [];
  for (const b of decodePemBlocks(text)) {
    const format = KEY_FORMATS.get(b.type);
    if (format !== undefined) keys.push(privateKeyJson(b.bytes, format));
  }
  return fromJSON(keys);
}

function parseKeyPair(certInput: string, keyInput: string): Value {
  const certText = pemText(certInput);
  const keyText = pemText(keyInput);
  const certBlocks = certText.startsWith('-----BEGIN ') ? decodePemBlocks(certText).filter((b) => b.type === 'CERTIFICATE') : [{ type: 'CERTIFICATE', bytes: latin1(certText) }];
  if (certBlocks.length === 0) throw new GoX509Error('tls: failed to find any PEM data in certificate input');
  const keyBlock = decodePemBlocks(keyText).find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  if (keyBlock === undefined) throw new GoX509Error('tls: failed to find any PEM data in key input');
  const format = KEY_FORMATS.get(keyBlock.type) ?? 'pkcs8';
  const leaf = parseCertificates(certBlocks[0]!.bytes, false)[0];
  if (leaf === undefined) throw new GoX509Error('x509: malformed certificate');
  const spki = Buffer.from(String(leaf.RawSubjectPublicKeyInfo), 'base64');
  const key = privateKeyJson(keyBlock.bytes, format);
  assertKeysMatch(spki, keyBlock.bytes, format);
  return fromJSON({
    Certificate: certBlocks.map((b) => Buffer.from(b.bytes).toString('base64')),
    PrivateKey: key,
    SupportedSignatureAlgorithms: null,
    OCSPStaple: null,
    SignedCertificateTimestamps: null,
    Leaf: leaf,
  });
}

function certificateRequest(input: string): Value {
  let bytes: Uint8Array = utf8(input);
  if (!input.startsWith('-----BEGIN CERTIFICATE REQUEST-----')) bytes = decodeGoBase64(utf8(input));
  const text = Buffer.from(bytes).toString('latin1');
  const block = decodePemBlocks(text)[0];
  if (block !== undefined && block.type !== 'CERTIFICATE REQUEST') throw new GoX509Error('invalid PEM-encoded certificate signing request');
  return fromJSON(parseCertificateRequest(block?.bytes ?? bytes));
}

/** OPA's crypto.x509.parse_rsa_private_key: the first private key of the PEM (any type), as a JWK. */
function firstPrivateKeyJwk(input: string): Value {
  if (input === '') throw new GoX509Error('input PEM data was empty');
  const text = input.startsWith('-----BEGIN') ? input : Buffer.from(decodeGoBase64(utf8(input))).toString('latin1');
  for (const b of decodePemBlocks(text)) {
    const format = KEY_FORMATS.get(b.type);
    if (format === undefined) continue;
    privateKeyJson(b.bytes, format); // Go's error when the block does not parse
    return fromJSON(privateKeyJwk(b.bytes, format));
  }
  return null;
}

const P = 'crypto.x509.';

export const X509_BUILTINS: BuiltinDef[] = [
  {
    name: `${P}parse_certificates`,
    arity: 1,
    fn: (a, ctx) => {
      const input = str(`${P}parse_certificates`, a, 0);
      chargeText(ctx, input);
      return attempt(`${P}parse_certificates`, () => fromJSON(parseCertificates(certificateDer(input), true)));
    },
  },
  {
    name: `${P}parse_and_verify_certificates`,
    arity: 1,
    nondeterministic: true,
    fn: (a, ctx) => parseAndVerify(`${P}parse_and_verify_certificates`, str(`${P}parse_and_verify_certificates`, a, 0), undefined, ctx),
  },
  {
    name: `${P}parse_and_verify_certificates_with_options`,
    arity: 2,
    nondeterministic: true,
    fn: (a, ctx) => {
      const name = `${P}parse_and_verify_certificates_with_options`;
      const input = str(name, a, 0);
      return parseAndVerify(name, input, obj(name, a, 1), ctx);
    },
  },
  {
    name: `${P}parse_certificate_request`,
    arity: 1,
    fn: (a) => attempt(`${P}parse_certificate_request`, () => certificateRequest(str(`${P}parse_certificate_request`, a, 0))),
  },
  {
    name: `${P}parse_keypair`,
    arity: 2,
    fn: (a) => {
      const name = `${P}parse_keypair`;
      const cert = str(name, a, 0);
      // OPA reports a bad key operand as operand 1 too
      const key = a[1];
      if (typeof key !== 'string') throw operandError(name, 1, 'string', key ?? null);
      return attempt(name, () => parseKeyPair(cert, key));
    },
  },
  {
    name: `${P}parse_rsa_private_key`,
    arity: 1,
    fn: (a) => attempt(`${P}parse_rsa_private_key`, () => firstPrivateKeyJwk(str(`${P}parse_rsa_private_key`, a, 0))),
  },
  {
    name: 'crypto.parse_private_keys',
    arity: 1,
    fn: (a) => {
      const input = str('crypto.parse_private_keys', a, 0);
      if (input === '') return null;
      return attempt('crypto.parse_private_keys', () => privateKeys(input));
    },
  },
];

registerBuiltins(X509_BUILTINS);
