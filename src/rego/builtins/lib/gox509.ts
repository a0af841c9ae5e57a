/**
 * Certificates, certificate requests and private keys as Go's crypto/x509 parses them (RFC 5280,
 * RFC 2986, RFC 8017, RFC 5915, RFC 5958), shaped like `encoding/json` of Go's structs, which is what
 * OPA's `crypto.x509.*` and `crypto.parse_private_keys` return: Go field names, byte slices as
 * base64, big integers as numbers, absent lists as null.
 *
 * Parsed: names, validity, public keys (RSA, ECDSA P-224/256/384/521, Ed25519), key usage, basic
 * constraints, subject alternative names, key identifiers, extended key usage, CRL distribution
 * points, authority information access. Name constraints and policy extensions are kept in
 * `Extensions` but not decoded into their fields.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { bigIntOf, bytesToBigInt, children, DerError, DerReader, oidArcs, readOne, TAG, type DerElement } from './der.ts';
import { parseGoURL } from './gourl.ts';
import { formatIP } from './ip.ts';

export class GoX509Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoX509Error';
  }
}

type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
const oidKey = (arcs: readonly number[]) => arcs.join('.');

/** Go's x509.SignatureAlgorithm numbering, by signature algorithm OID. */
const SIGNATURE_ALGORITHMS: ReadonlyMap<string, number> = new Map([
  ['1.2.840.113549.1.1.2', 1],
  ['1.2.840.113549.1.1.4', 2],
  ['1.2.840.113549.1.1.5', 3],
  ['1.2.840.113549.1.1.11', 4],
  ['1.2.840.113549.1.1.12', 5],
  ['1.2.840.113549.1.1.13', 6],
  ['1.2.840.10040.4.3', 7],
  ['2.16.840.1.101.3.4.3.2', 8],
  ['1.2.840.10045.4.1', 9],
  ['1.2.840.10045.4.3.2', 10],
  ['1.2.840.10045.4.3.3', 11],
  ['1.2.840.10045.4.3.4', 12],
  ['1.3.101.112', 16],
]);

/** RSASSA-PSS: Go tells SHA-256/384/512 apart by the hash in the parameters. */
const PSS_HASHES: ReadonlyMap<string, number> = new Map([
  ['2.16.840.1.101.3.4.2.1', 13],
  ['2.16.840.1.101.3.4.2.2', 14],
  ['2.16.840.1.101.3.4.2.3', 15],
]);

const EXT_KEY_USAGES: ReadonlyMap<string, number> = new Map([
  ['2.5.29.37.0', 0],
  ['1.3.6.1.5.5.7.3.1', 1],
  ['1.3.6.1.5.5.7.3.2', 2],
  ['1.3.6.1.5.5.7.3.3', 3],
  ['1.3.6.1.5.5.7.3.4', 4],
  ['1.3.6.1.5.5.7.3.5', 5],
  ['1.3.6.1.5.5.7.3.6', 6],
  ['1.3.6.1.5.5.7.3.7', 7],
  ['1.3.6.1.5.5.7.3.8', 8],
  ['1.3.6.1.5.5.7.3.9', 9],
  ['1.3.6.1.4.1.311.10.3.3', 10],
  ['2.16.840.1.113730.4.1', 11],
  ['1.3.6.1.4.1.311.2.1.22', 12],
  ['1.3.6.1.4.1.311.61.1.1', 13],
]);

/** Go's x509.ExtKeyUsage number for an extended key usage name OPA accepts in verify options. */
export const EXT_KEY_USAGE_NAMES: ReadonlyMap<string, string> = new Map([
  ['KeyUsageAny', '2.5.29.37.0'],
  ['KeyUsageServerAuth', '1.3.6.1.5.5.7.3.1'],
  ['KeyUsageClientAuth', '1.3.6.1.5.5.7.3.2'],
  ['KeyUsageCodeSigning', '1.3.6.1.5.5.7.3.3'],
  ['KeyUsageEmailProtection', '1.3.6.1.5.5.7.3.4'],
  ['KeyUsageIPSECEndSystem', '1.3.6.1.5.5.7.3.5'],
  ['KeyUsageIPSECTunnel', '1.3.6.1.5.5.7.3.6'],
  ['KeyUsageIPSECUser', '1.3.6.1.5.5.7.3.7'],
  ['KeyUsageTimeStamping', '1.3.6.1.5.5.7.3.8'],
  ['KeyUsageOCSPSigning', '1.3.6.1.5.5.7.3.9'],
  ['KeyUsageMicrosoftServerGatedCrypto', '1.3.6.1.4.1.311.10.3.3'],
  ['KeyUsageNetscapeServerGatedCrypto', '2.16.840.1.113730.4.1'],
  ['KeyUsageMicrosoftCommercialCodeSigning', '1.3.6.1.4.1.311.2.1.22'],
  ['KeyUsageMicrosoftKernelCodeSigning', '1.3.6.1.4.1.311.61.1.1'],
]);

const CURVES: ReadonlyMap<string, number> = new Map([
  ['1.3.132.0.33', 28],
  ['1.2.840.10045.3.1.7', 32],
  ['1.3.132.0.34', 48],
  ['1.3.132.0.35', 66],
]);

/** pkix.Name fields filled from attribute types (the rest only appear in Names). */
const NAME_FIELDS: ReadonlyMap<string, string> = new Map([
  ['2.5.4.6', 'Country'],
  ['2.5.4.10', 'Organization'],
  ['2.5.4.11', 'OrganizationalUnit'],
  ['2.5.4.7', 'Locality'],
  ['2.5.4.8', 'Province'],
  ['2.5.4.9', 'StreetAddress'],
  ['2.5.4.17', 'PostalCode'],
]);

function fail(message: string): never {
  throw new GoX509Error(message);
}

/** A directory string's text (Go's asn1 string types; BMPString is UTF-16BE). */
function stringValue(e: DerElement): Json {
  switch (e.tag) {
    case TAG.UTF8String:
    case TAG.PrintableString:
    case TAG.IA5String:
    case TAG.T61String:
    case 0x1a: // VisibleString
    case 0x12: // NumericString
      return Buffer.from(e.content).toString(e.tag === TAG.T61String ? 'latin1' : 'utf8');
    case TAG.BMPString: {
      let s = '';
      for (let i = 0; i + 1 < e.content.length; i += 2) s += String.fromCharCode((e.content[i]! << 8) | e.content[i + 1]!);
      return s;
    }
    default:
      return null;
  }
}

/** pkix.Name, filled from an RDNSequence as Go's FillFromRDNSequence does. */
function parseName(e: DerElement): Json {
  const name: Record<string, Json> = {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
    SerialNumber: '',
    CommonName: '',
    Names: [],
    ExtraNames: null,
  };
  const names: Json[] = [];
  for (const rdn of children(e)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (type === undefined || value === undefined) fail('x509: invalid RDNSequence: invalid attribute');
      const arcs = oidArcs(type);
      const v = stringValue(value);
      if (v === null) fail('x509: invalid RDNSequence: invalid attribute value');
      names.push({ Type: arcs, Value: v });
      const key = oidKey(arcs);
      if (key === '2.5.4.3') name.CommonName = v;
      else if (key === '2.5.4.5') name.SerialNumber = v;
      else {
        const field = NAME_FIELDS.get(key);
        if (field !== undefined) name[field] = [...((name[field] as Json[] | null) ?? []), v];
      }
    }
  }
  name.Names = names;
  return name;
}

/** Go's time.Time JSON (RFC 3339, nanoseconds trimmed) from UTCTime or GeneralizedTime. */
function parseTime(e: DerElement): string {
  const s = Buffer.from(e.content).toString('latin1');
  let m: RegExpExecArray | null;
  let year: number;
  let rest: string;
  if (e.tag === TAG.UTCTime) {
    m = /^(\d\d)(\d{10})Z$/.exec(s);
    if (!m) fail('x509: malformed validity');
    const yy = Number(m[1]);
    year = yy < 50 ? 2000 + yy : 1900 + yy;
    rest = m[2]!;
  } else if (e.tag === TAG.GeneralizedTime) {
    m = /^(\d{4})(\d{10})Z$/.exec(s);
    if (!m) fail('x509: malformed validity');
    year = Number(m[1]);
    rest = m[2]!;
  } else fail('x509: malformed validity');
  const [mo, d, h, mi, se] = [0, 2, 4, 6, 8].map((i) => rest.slice(i, i + 2));
  return `${String(year).padStart(4, '0')}-${mo}-${d}T${h}:${mi}:${se}Z`;
}

interface PublicKeyInfo {
  readonly algorithm: number;
  readonly key: Json;
}

function parsePublicKey(spki: DerElement): PublicKeyInfo {
  const [alg, bits] = children(spki);
  if (alg === undefined || bits === undefined || bits.tag !== TAG.BIT_STRING) fail('x509: malformed public key');
  const [algOid, params] = children(alg);
  if (algOid === undefined) fail('x509: malformed public key algorithm identifier');
  const keyBytes = bits.content.subarray(1);
  switch (oidKey(oidArcs(algOid))) {
    case '1.2.840.113549.1.1.1': {
      const [n, e] = children(readOne(keyBytes, TAG.SEQUENCE));
      if (n === undefined || e === undefined) fail('x509: invalid RSA public key');
      return { algorithm: 1, key: { N: bigIntOf(n), E: Number(bigIntOf(e)) } };
    }
    case '1.2.840.10045.2.1': {
      const size = params && params.tag === TAG.OID ? CURVES.get(oidKey(oidArcs(params))) : undefined;
      if (size === undefined) fail('x509: unsupported elliptic curve');
      if (keyBytes[0] !== 4 || keyBytes.length !== 1 + 2 * size) fail('x509: failed to unmarshal elliptic curve point');
      try {
        createPublicKey({ key: Buffer.from(spki.raw), format: 'der', type: 'spki' });
      } catch {
        fail(`P${size === 66 ? 521 : size * 8} point not on curve`);
      }
      return { algorithm: 3, key: { Curve: {}, X: bytesToBigInt(keyBytes.subarray(1, 1 + size)), Y: bytesToBigInt(keyBytes.subarray(1 + size)) } };
    }
    case '1.3.101.112':
      return { algorithm: 4, key: b64(keyBytes) };
    default:
      return { algorithm: 0, key: null };
  }
}

function signatureAlgorithm(alg: DerElement): number {
  const [oid, params] = children(alg);
  if (oid === undefined) return 0;
  const key = oidKey(oidArcs(oid));
  if (key === '1.2.840.113549.1.1.10') {
    // RSASSA-PSS-params: [0] hashAlgorithm AlgorithmIdentifier
    const hash = params ? children(params).find((c) => c.tag === 0xa0) : undefined;
    const hashOid = hash ? children(children(hash)[0]!)[0] : undefined;
    return hashOid ? (PSS_HASHES.get(oidKey(oidArcs(hashOid))) ?? 0) : 0;
  }
  return SIGNATURE_ALGORITHMS.get(key) ?? 0;
}

interface Extension {
  readonly id: number[];
  readonly critical: boolean;
  readonly value: Uint8Array;
}

function parseExtensions(list: DerElement): Extension[] {
  return children(list).map((ext) => {
    const r = new DerReader(ext.content);
    const id = oidArcs(r.read(TAG.OID));
    const crit = r.readOptional(TAG.BOOLEAN);
    const value = r.read(TAG.OCTET_STRING).content;
    return { id, critical: crit !== undefined && crit.content[0] !== 0, value };
  });
}

function goURLJson(text: string): Json {
  const u = parseGoURL(text);
  return {
    Scheme: u.scheme,
    Opaque: u.opaque,
    User: null,
    Host: u.host,
    Path: u.path,
    RawPath: u.rawPath,
    OmitHost: false,
    ForceQuery: false,
    RawQuery: u.rawQuery,
    Fragment: u.fragment,
    RawFragment: '',
  };
}

function ipText(b: Uint8Array): string {
  if (b.length === 4) return Array.from(b).join('.');
  if (b.length === 16) {
    if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return Array.from(b.subarray(12)).join('.');
    return formatIP(true, bytesToBigInt(b));
  }
  return `?${Buffer.from(b).toString('hex')}`;
}

interface SANs {
  dns: string[];
  email: string[];
  ip: string[];
  uris: string[];
}

function parseSAN(value: Uint8Array): SANs {
  const out: SANs = { dns: [], email: [], ip: [], uris: [] };
  for (const gn of children(readOne(value, TAG.SEQUENCE))) {
    const text = Buffer.from(gn.content).toString('latin1');
    switch (gn.tag) {
      case 0x81:
        out.email.push(text);
        break;
      case 0x82:
        out.dns.push(text);
        break;
      case 0x86:
        out.uris.push(text);
        break;
      case 0x87:
        if (gn.content.length !== 4 && gn.content.length !== 16) fail(`x509: cannot parse IP address of length ${gn.content.length}`);
        out.ip.push(ipText(gn.content));
        break;
      default:
        break;
    }
  }
  return out;
}

const orNull = <T extends Json>(xs: T[]): Json => (xs.length === 0 ? null : xs);

/** Fields Go fills from extensions, with Go's zero values. */
function extensionFields(exts: readonly Extension[]): Record<string, Json> {
  const f: Record<string, Json> = {
    KeyUsage: 0,
    UnhandledCriticalExtensions: null,
    ExtKeyUsage: null,
    UnknownExtKeyUsage: null,
    BasicConstraintsValid: false,
    IsCA: false,
    MaxPathLen: 0,
    MaxPathLenZero: false,
    SubjectKeyId: null,
    AuthorityKeyId: null,
    OCSPServer: null,
    IssuingCertificateURL: null,
    DNSNames: null,
    EmailAddresses: null,
    IPAddresses: null,
    URIs: null,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: null,
    PolicyIdentifiers: null,
    Policies: null,
    InhibitAnyPolicy: 0,
    InhibitAnyPolicyZero: false,
    InhibitPolicyMapping: 0,
    InhibitPolicyMappingZero: false,
    RequireExplicitPolicy: 0,
    RequireExplicitPolicyZero: false,
    PolicyMappings: null,
  };
  const unhandledCritical: Json[] = [];
  const uriStrings: string[] = [];
  for (const e of exts) {
    const key = oidKey(e.id);
    let unhandled = false;
    switch (key) {
      case '2.5.29.15': {
        const bits = readOne(e.value, TAG.BIT_STRING).content;
        let usage = 0;
        for (let i = 0; i < 9; i++) {
          const byte = bits[1 + (i >> 3)];
          if (byte !== undefined && (byte >> (7 - (i & 7))) & 1) usage |= 1 << i;
        }
        f.KeyUsage = usage;
        break;
      }
      case '2.5.29.19': {
        const r = new DerReader(readOne(e.value, TAG.SEQUENCE).content);
        const ca = r.readOptional(TAG.BOOLEAN);
        const len = r.readOptional(TAG.INTEGER);
        f.IsCA = ca !== undefined && ca.content[0] !== 0;
        f.MaxPathLen = len === undefined ? -1 : Number(bigIntOf(len));
        f.BasicConstraintsValid = true;
        f.MaxPathLenZero = f.MaxPathLen === 0;
        break;
      }
      case '2.5.29.17': {
        const s = parseSAN(e.value);
        f.DNSNames = orNull(s.dns);
        f.EmailAddresses = orNull(s.email);
        f.IPAddresses = orNull(s.ip);
        f.URIs = orNull(s.uris.map(goURLJson));
        uriStrings.push(...s.uris);
        if (s.dns.length + s.email.length + s.ip.length + s.uris.length === 0) unhandled = true;
        break;
      }
      case '2.5.29.31': {
        const points: string[] = [];
        for (const dp of children(readOne(e.value, TAG.SEQUENCE))) {
          const name = children(dp).find((c) => c.tag === 0xa0);
          const full = name ? children(name).find((c) => c.tag === 0xa0) : undefined;
          for (const gn of full ? children(full) : []) {
            if (gn.tag !== 0x86) break;
            points.push(Buffer.from(gn.content).toString('latin1'));
          }
        }
        f.CRLDistributionPoints = orNull(points);
        break;
      }
      case '2.5.29.35': {
        const id = children(readOne(e.value, TAG.SEQUENCE)).find((c) => c.tag === 0x80);
        if (id !== undefined) f.AuthorityKeyId = b64(id.content);
        break;
      }
      case '2.5.29.37': {
        const known: Json[] = [];
        const unknown: Json[] = [];
        for (const u of children(readOne(e.value, TAG.SEQUENCE))) {
          const arcs = oidArcs(u);
          const n = EXT_KEY_USAGES.get(oidKey(arcs));
          if (n === undefined) unknown.push(arcs);
          else known.push(n);
        }
        f.ExtKeyUsage = orNull(known);
        f.UnknownExtKeyUsage = orNull(unknown);
        break;
      }
      case '2.5.29.14':
        if (e.critical) fail('x509: subject key identifier incorrectly marked critical');
        f.SubjectKeyId = b64(readOne(e.value, TAG.OCTET_STRING).content);
        break;
      case '1.3.6.1.5.5.7.1.1': {
        if (e.critical) fail('x509: authority info access incorrectly marked critical');
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const ad of children(readOne(e.value, TAG.SEQUENCE))) {
          const [method, loc] = children(ad);
          if (method === undefined || loc === undefined || loc.tag !== 0x86) continue;
          const m = oidKey(oidArcs(method));
          const text = Buffer.from(loc.content).toString('latin1');
          if (m === '1.3.6.1.5.5.7.48.1') ocsp.push(text);
          else if (m === '1.3.6.1.5.5.7.48.2') issuers.push(text);
        }
        f.OCSPServer = orNull(ocsp);
        f.IssuingCertificateURL = orNull(issuers);
        break;
      }
      default:
        // 2.5.29.30/32/33/36/54 are Go-handled but not decoded here; others are unknown to Go too.
        unhandled = !['2.5.29.30', '2.5.29.32', '2.5.29.33', '2.5.29.36', '2.5.29.54'].includes(key);
    }
    if (e.critical && unhandled) unhandledCritical.push(e.id);
  }
  f.UnhandledCriticalExtensions = orNull(unhandledCritical);
  f.URIStrings = orNull(uriStrings);
  return f;
}

function extensionsJson(exts: readonly Extension[]): Json {
  return exts.map((e) => ({ Id: e.id, Critical: e.critical, Value: b64(e.value) }));
}

function guard<T>(body: () => T, malformed: string): T {
  try {
    return body();
  } catch (e) {
    if (e instanceof DerError) throw new GoX509Error(malformed);
    throw e;
  }
}

/** Runs one parsing step; a DER fault in it is reported with Go's message for that step. */
function step<T>(message: string, body: () => T): T {
  return guard(body, message);
}

/** One certificate as Go's x509.Certificate JSON, plus OPA's `URIStrings` when `withURIStrings`. */
function parseOneCertificate(cert: DerElement, withURIStrings: boolean): Record<string, Json> {
  const outer = new DerReader(cert.content);
  const tbs = step('x509: malformed tbs certificate', () => outer.read(TAG.SEQUENCE));
  const r = new DerReader(tbs.content);
  const versionEl = step('x509: malformed version', () => r.readOptional(0xa0));
  const version = versionEl ? step('x509: malformed version', () => Number(bigIntOf(readOne(versionEl.content, TAG.INTEGER)))) : 0;
  if (version < 0) fail('x509: malformed version');
  if (version > 2) fail('x509: invalid version');
  const serial = step('x509: malformed serial number', () => bigIntOf(r.read(TAG.INTEGER)));
  if (serial < 0n) fail('x509: negative serial number');
  const innerAlg = step('x509: malformed signature algorithm identifier', () => r.read(TAG.SEQUENCE));
  const sigAlg = step('x509: malformed algorithm identifier', () => outer.read(TAG.SEQUENCE));
  if (Buffer.compare(Buffer.from(innerAlg.raw), Buffer.from(sigAlg.raw)) !== 0) fail("x509: inner and outer signature algorithm identifiers don't match");
  const issuer = step('x509: malformed issuer', () => r.read(TAG.SEQUENCE));
  const issuerName = step('x509: invalid RDNSequence', () => parseName(issuer));
  const validity = step('x509: malformed validity', () => children(r.read(TAG.SEQUENCE)));
  if (validity.length !== 2) fail('x509: malformed validity');
  const notBefore = parseTime(validity[0]!);
  const notAfter = parseTime(validity[1]!);
  const subject = step('x509: malformed issuer', () => r.read(TAG.SEQUENCE));
  const subjectName = step('x509: invalid RDNSequence', () => parseName(subject));
  const spki = step('x509: malformed spki', () => r.read(TAG.SEQUENCE));
  const pk = step('x509: malformed spki', () => parsePublicKey(spki));
  let exts: Extension[] = [];
  if (version >= 1) {
    step('x509: malformed issuerUniqueID', () => r.readOptional(0x81) ?? r.readOptional(0xa1));
    step('x509: malformed subjectUniqueID', () => r.readOptional(0x82) ?? r.readOptional(0xa2));
    if (version === 2) {
      const e = step('x509: malformed extensions', () => r.readOptional(0xa3));
      if (e !== undefined) exts = step('x509: malformed extension', () => parseExtensions(readOne(e.content, TAG.SEQUENCE)));
      const seen = new Set<string>();
      for (const x of exts) {
        const k = oidKey(x.id);
        if (seen.has(k)) fail(`x509: certificate contains duplicate extension with OID "${k}"`);
        seen.add(k);
      }
    }
  }
  const sig = step('x509: malformed signature', () => outer.read(TAG.BIT_STRING));
  if (!outer.empty) fail('x509: trailing data');
  const fields = step('x509: malformed extension', () => extensionFields(exts));
  const uriStrings = fields.URIStrings ?? null;
  delete fields.URIStrings;
  const out: Record<string, Json> = {
    Raw: b64(cert.raw),
    RawTBSCertificate: b64(tbs.raw),
    RawSubjectPublicKeyInfo: b64(spki.raw),
    RawSubject: b64(subject.raw),
    RawIssuer: b64(issuer.raw),
    Signature: b64(sig.content.subarray(1)),
    SignatureAlgorithm: signatureAlgorithm(sigAlg),
    PublicKeyAlgorithm: pk.algorithm,
    PublicKey: pk.key,
    Version: version + 1,
    SerialNumber: serial,
    Issuer: issuerName,
    Subject: subjectName,
    NotBefore: notBefore,
    NotAfter: notAfter,
    Extensions: extensionsJson(exts),
    ExtraExtensions: null,
    ...fields,
  };
  if (withURIStrings) out.URIStrings = uriStrings;
  return out;
}

/** Go's x509.ParseCertificates: every certificate of concatenated DER. */
export function parseCertificates(der: Uint8Array, withURIStrings: boolean): Record<string, Json>[] {
  const certs = guard(() => {
    const r = new DerReader(der);
    const out: DerElement[] = [];
    while (!r.empty) out.push(r.read(TAG.SEQUENCE));
    return out;
  }, 'x509: malformed certificate');
  return certs.map((c) => parseOneCertificate(c, withURIStrings));
}

/**
 * Go's encoding/asn1 refusal of a CSR's outer element, the failures a CSR that is not DER at all
 * meets (the reflection-based parser words them this way); deeper damage gets a generic message.
 */
function outerAsn1Error(der: Uint8Array): string | undefined {
  if (der.length < 2) return 'asn1: syntax error: sequence truncated';
  const b = der[0]!;
  let len = der[1]!;
  let off = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (off + n > der.length) return 'asn1: syntax error: data truncated';
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + der[off + i]!;
    off += n;
  }
  if (b !== TAG.SEQUENCE) {
    const opts = 'optional:false explicit:false application:false private:false defaultValue:<nil> tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false';
    return `asn1: structure error: tags don't match (16 vs {class:${b >> 6} tag:${b & 0x1f} length:${len} isCompound:${(b & 0x20) !== 0}}) {${opts}} certificateRequest @${off}`;
  }
  if (off + len > der.length) return 'asn1: syntax error: data truncated';
  return undefined;
}

/** Go's x509.ParseCertificateRequest, as its JSON. */
export function parseCertificateRequest(der: Uint8Array): Record<string, Json> {
  const outer = outerAsn1Error(der);
  if (outer !== undefined) fail(outer);
  return guard(() => {
    const csr = readOne(der, TAG.SEQUENCE);
    const [info, sigAlg, sig] = children(csr);
    if (info === undefined || sigAlg === undefined || sig === undefined) fail('x509: malformed certificate request');
    const r = new DerReader(info.content);
    const version = Number(bigIntOf(r.read(TAG.INTEGER)));
    const subject = r.read(TAG.SEQUENCE);
    const spki = r.read(TAG.SEQUENCE);
    const attrsEl = r.readOptional(0xa0);
    const attributes: Json[] = [];
    let exts: Extension[] = [];
    for (const attr of attrsEl ? children(attrsEl) : []) {
      const [type, values] = children(attr);
      if (type === undefined || values === undefined) continue;
      const arcs = oidArcs(type);
      if (oidKey(arcs) !== '1.2.840.113549.1.9.14') continue;
      // Go's deprecated Attributes keeps only the extension request, as [[{Type, Value}]]
      const sets = children(values).map((seq) => {
        const list = parseExtensions(seq);
        exts = exts.concat(list);
        return list.map((e) => ({ Type: e.id, Value: b64(e.value) }));
      });
      attributes.push({ Type: arcs, Value: sets });
    }
    const pk = parsePublicKey(spki);
    const f = extensionFields(exts);
    return {
      Raw: b64(csr.raw),
      RawTBSCertificateRequest: b64(info.raw),
      RawSubjectPublicKeyInfo: b64(spki.raw),
      RawSubject: b64(subject.raw),
      Version: version,
      Signature: b64(sig.content.subarray(1)),
      SignatureAlgorithm: signatureAlgorithm(sigAlg),
      PublicKeyAlgorithm: pk.algorithm,
      PublicKey: pk.key,
      Subject: parseName(subject),
      Attributes: orNull(attributes),
      Extensions: exts.length === 0 ? null : extensionsJson(exts),
      ExtraExtensions: null,
      DNSNames: f.DNSNames ?? null,
      EmailAddresses: f.EmailAddresses ?? null,
      IPAddresses: f.IPAddresses ?? null,
      URIs: f.URIs ?? null,
    };
  }, 'x509: malformed certificate request');
}

const bitLen = (x: bigint) => (x <= 0n ? 0 : x.toString(2).length);
const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;

/** Go's consistency checks of an RSA private key (crypto/internal/fips140/rsa), in Go's order; node:crypto does none. */
function rsaKeyProblem(n: bigint, e: bigint, d: bigint, p: bigint, q: bigint, dp: bigint, dq: bigint, qi: bigint): string | undefined {
  if (n === 0n) return 'crypto/rsa: missing public modulus';
  if (n % 2n === 0n) return 'crypto/rsa: public modulus is even';
  if (e < 2n) return 'crypto/rsa: public exponent too small or negative';
  if (e % 2n === 0n) return 'crypto/rsa: public exponent is even';
  if (e > 2n ** 31n - 1n) return 'crypto/rsa: public exponent too large';
  if (p >= n || q >= n) return 'crypto/rsa: invalid prime';
  if (mod(p * q, n) !== 0n) return 'crypto/rsa: p * q != n';
  if (p < 2n || q < 2n) return 'crypto/rsa: invalid prime';
  if (dp >= p - 1n || mod(e * dp, p - 1n) !== 1n) return 'crypto/rsa: invalid CRT exponent';
  if (dq >= q - 1n || mod(e * dq, q - 1n) !== 1n) return 'crypto/rsa: invalid CRT exponent';
  if (mod(q * qi, p) !== 1n) return 'crypto/rsa: invalid CRT coefficient';
  if (mod(d, p - 1n) !== dp) return 'crypto/rsa: d does not match dP';
  if (mod(d, q - 1n) !== dq) return 'crypto/rsa: d does not match dQ';
  if (p === q) return 'crypto/rsa: p == q';
  if (bitLen(p > q ? p - q : q - p) <= Math.floor(bitLen(n) / 2) - 100) return 'crypto/rsa: |p - q| too small';
  if (bitLen(d) <= Math.floor(bitLen(n) / 2)) return 'crypto/rsa: d too small';
  return undefined;
}

const unb64 = (s: string | undefined) => (s === undefined ? 0n : bytesToBigInt(Buffer.from(s, 'base64url')));

/** A private key as Go's JSON of *rsa.PrivateKey, *ecdsa.PrivateKey or ed25519.PrivateKey. */
export function privateKeyJson(der: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): Json {
  let jwk;
  try {
    const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: format });
    jwk = key.export({ format: 'jwk' });
  } catch {
    fail(format === 'pkcs1' ? 'x509: failed to parse private key' : format === 'sec1' ? 'x509: failed to parse EC private key' : 'x509: failed to parse private key');
  }
  if (jwk.kty === 'RSA') {
    const problem = rsaKeyProblem(unb64(jwk.n), unb64(jwk.e), unb64(jwk.d), unb64(jwk.p), unb64(jwk.q), unb64(jwk.dp), unb64(jwk.dq), unb64(jwk.qi));
    if (problem !== undefined) fail(format === 'pkcs8' ? `x509: failed to parse RSA private key embedded in PKCS#8: ${problem}` : problem);
    return {
      N: unb64(jwk.n),
      E: Number(unb64(jwk.e)),
      D: unb64(jwk.d),
      Primes: [unb64(jwk.p), unb64(jwk.q)],
      Precomputed: { Dp: unb64(jwk.dp), Dq: unb64(jwk.dq), Qinv: unb64(jwk.qi), CRTValues: [] },
    };
  }
  if (jwk.kty === 'EC') return { Curve: {}, X: unb64(jwk.x), Y: unb64(jwk.y), D: unb64(jwk.d) };
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    // Go's ed25519.PrivateKey is the seed followed by the public key
    return b64(Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), Buffer.from(jwk.x ?? '', 'base64url')]));
  }
  fail('x509: unknown private key type');
}

/** A private key as a JWK (the fields lestrrat-go/jwx writes, which node:crypto writes too). */
export function privateKeyJwk(der: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): Json {
  const jwk = createPrivateKey({ key: Buffer.from(der), format: 'der', type: format }).export({ format: 'jwk' });
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(jwk)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Go's tls.X509KeyPair check that a public key (SPKI DER) and a private key are a pair. */
export function assertKeysMatch(spkiDer: Uint8Array, privateDer: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): void {
  const pub = createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  const priv = createPublicKey(createPrivateKey({ key: Buffer.from(privateDer), format: 'der', type: format })).export({ format: 'jwk' });
  if (pub.kty !== priv.kty || pub.crv !== priv.crv) fail('tls: private key type does not match public key type');
  if (JSON.stringify(pub) !== JSON.stringify(priv)) fail('tls: private key does not match public key');
}
