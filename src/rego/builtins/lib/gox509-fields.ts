/**
 * The parts of a certificate or certificate request as Go's crypto/x509 parses them and
 * `encoding/json` writes them (Go field names, byte slices as base64, big integers as numbers, absent
 * lists as null): names, validity times, public keys and signature algorithms, and the error and JSON
 * shape every gox509 module shares.
 */
import { createPublicKey } from 'node:crypto';
import { bigIntOf, bytesToBigInt, children, oidArcs, readOne, TAG, type DerElement } from './der.ts';

export class GoX509Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GoX509Error';
  }
}

export type Json = null | boolean | number | bigint | string | Json[] | { [k: string]: Json };

export const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');
export const oidKey = (arcs: readonly number[]) => arcs.join('.');

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

export function fail(message: string): never {
  throw new GoX509Error(message);
}

export const orNull = <T extends Json>(xs: T[]): Json => (xs.length === 0 ? null : xs);

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
export function parseName(e: DerElement): Json {
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
export function parseTime(e: DerElement): string {
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

export interface PublicKeyInfo {
  readonly algorithm: number;
  readonly key: Json;
}

export function parsePublicKey(spki: DerElement): PublicKeyInfo {
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

export function signatureAlgorithm(alg: DerElement): number {
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
