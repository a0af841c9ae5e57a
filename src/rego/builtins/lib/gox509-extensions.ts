/**
 * Certificate extensions as Go's crypto/x509 reads them into a certificate's fields: key usage, basic
 * constraints, subject alternative names, key identifiers, extended key usage, CRL distribution
 * points and authority information access. Name constraints and policy extensions are kept in
 * `Extensions` but not decoded into their fields.
 */
import { bigIntOf, bytesToBigInt, children, DerReader, oidArcs, readOne, TAG, type DerElement } from './der.ts';
import { b64, fail, oidKey, orNull, type Json } from './gox509-fields.ts';
import { parseGoURL } from './gourl.ts';
import { formatIP } from './ip.ts';

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

export interface Extension {
  readonly id: number[];
  readonly critical: boolean;
  readonly value: Uint8Array;
}

export function parseExtensions(list: DerElement): Extension[] {
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

/** Fields Go fills from extensions, with Go's zero values. */
export function extensionFields(exts: readonly Extension[]): Record<string, Json> {
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

export function extensionsJson(exts: readonly Extension[]): Json {
  return exts.map((e) => ({ Id: e.id, Critical: e.critical, Value: b64(e.value) }));
}
