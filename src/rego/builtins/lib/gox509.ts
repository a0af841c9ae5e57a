/**
 * Certificates and certificate requests as Go's crypto/x509 parses them (RFC 5280, RFC 2986), shaped
 * like `encoding/json` of Go's structs, which is what OPA's `crypto.x509.*` returns. The fields are
 * read in gox509-fields.ts and gox509-extensions.ts; this file walks the two structures in Go's
 * order, with Go's message for each step that fails.
 */
import { bigIntOf, children, DerError, DerReader, oidArcs, readOne, TAG, type DerElement } from './der.ts';
import { extensionFields, extensionsJson, parseExtensions, type Extension } from './gox509-extensions.ts';
import { b64, fail, GoX509Error, oidKey, orNull, parseName, parsePublicKey, parseTime, signatureAlgorithm, type Json } from './gox509-fields.ts';

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
