/**
 * `.signatures.json` for OPA bundles, written and checked as OPA does (reference/opa-bundle-format.md
 * §3; OPA: v1/bundle/sign.go, verify.go, bundle.go): one compact JWS whose payload lists every file
 * of the bundle but the signatures file itself, `{name, hash, algorithm}`, hashed by OPA's rules
 * (opa-hash.ts). Signing goes through `jose`; verification is written out on node:crypto, because
 * OPA's verdicts hang on details a JOSE library decides otherwise (the header's `alg` is never
 * consulted, PSS salts must equal the hash length, the payload is read by Go's JSON rules).
 * test/unit/bundle/signatures-opa.test.ts holds the verdicts next to the real OPA's. toolgate never generates, stores or logs a key: the caller
 * passes a PEM it holds, or a signer callback for a key held elsewhere.
 */
import { constants, createHmac, createPrivateKey, createPublicKey, createSecretKey, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { CompactSign } from 'jose';
import { canonicalString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { isOpaHashAlgorithm, opaFileHash, type OpaHashAlgorithm } from './opa-hash.ts';
import { goFold, JsonError, parseGoJson, type JNode } from './go-json.ts';

export const SIGNATURES_FILE = '.signatures.json';

/** JWS algorithms OPA verifies bundles with (EdDSA only from OPA 1.8, see the reference). */
export const SIGNING_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512', 'EdDSA'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

export function isSigningAlgorithm(v: unknown): v is SigningAlgorithm {
  return typeof v === 'string' && (SIGNING_ALGORITHMS as readonly string[]).includes(v);
}

export interface BundleFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface FileEntry {
  readonly name: string;
  readonly hash: string;
  readonly algorithm: OpaHashAlgorithm;
}

/** Signs the JWS signing input (`b64url(header).b64url(payload)`) and returns the base64url signature. */
export type JwsSigner = (signingInput: Uint8Array) => Promise<string> | string;

export interface SignBundleOptions {
  readonly algorithm: SigningAlgorithm;
  /** PEM private key (or, for HS*, the secret's bytes as text). Mutually exclusive with `signer`. */
  readonly key?: string;
  readonly signer?: JwsSigner;
  /** `kid` header (and, without claims, the deprecated `keyid` claim, as `opa build` writes it). */
  readonly keyId?: string;
  readonly scope?: string;
  /** Extra claims merged into the payload; they may override anything, as OPA's --claims-file does. */
  readonly claims?: Record<string, unknown>;
}

/**
 * The `files` claim for a bundle: every file but a signatures file (OPA takes any entry named
 * `.signatures.json`, in any folder, for one and never hashes it), sorted by name as the tarball is.
 */
export function bundleFileEntries(files: readonly BundleFile[], algorithm: OpaHashAlgorithm = 'SHA-256', source = 'bundle'): FileEntry[] {
  return files
    .filter((f) => !isSignaturesFile(f.name))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((f) => ({ name: f.name, hash: opaFileHash(f.name, f.bytes, algorithm, source), algorithm }));
}

function b64url(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

function privateKeyOf(pem: string, alg: SigningAlgorithm): KeyObject {
  try {
    if (alg.startsWith('HS')) return createSecretKey(Buffer.from(pem, 'utf8'));
    return createPrivateKey(pem);
  } catch (e) {
    // Never echo the key text.
    throw new ToolgateError('SIGNER_FAILED', `the signing key is not a usable PEM private key for ${alg} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/** Normalises what a signer printed to base64url without padding. */
function normaliseSignature(sig: string): string {
  const s = sig.trim().replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  if (!/^[A-Za-z0-9_-]+$/.test(s)) throw new ToolgateError('SIGNER_FAILED', 'the bundle signer printed something that is not a base64url signature');
  return s;
}

/**
 * The bytes of `.signatures.json` for these files.
 *
 * @example await signBundle(files, { algorithm: 'RS256', key: pemText, keyId: 'release' })
 */
export async function signBundle(files: readonly BundleFile[], options: SignBundleOptions): Promise<Uint8Array> {
  if (!isSigningAlgorithm(options.algorithm)) throw new ToolgateError('USAGE', `unsupported signing algorithm ${JSON.stringify(options.algorithm)}; use one of ${SIGNING_ALGORITHMS.join(', ')}`);
  if ((options.key === undefined) === (options.signer === undefined)) throw new ToolgateError('USAGE', 'sign a bundle with exactly one of a key or a signer');
  const payload: Record<string, unknown> = { files: bundleFileEntries(files) };
  if (options.keyId !== undefined && options.claims === undefined) payload.keyid = options.keyId;
  if (options.scope !== undefined) payload.scope = options.scope;
  Object.assign(payload, options.claims ?? {});
  const payloadBytes = new TextEncoder().encode(canonicalString(payload, { allowFloats: true }));
  const header: { alg: string; kid?: string } = { alg: options.algorithm, ...(options.keyId !== undefined ? { kid: options.keyId } : {}) };
  let jws: string;
  if (options.key !== undefined) {
    const key = privateKeyOf(options.key, options.algorithm);
    try {
      jws = await new CompactSign(payloadBytes).setProtectedHeader(header).sign(key);
    } catch (e) {
      throw new ToolgateError('SIGNER_FAILED', `signing with ${options.algorithm} failed: ${(e as Error).message}`);
    }
  } else {
    const input = `${b64url(new TextEncoder().encode(canonicalString(header)))}.${b64url(payloadBytes)}`;
    let sig: string;
    try {
      sig = await options.signer!(new TextEncoder().encode(input));
    } catch (e) {
      if (e instanceof ToolgateError) throw e;
      throw new ToolgateError('SIGNER_FAILED', `the bundle signer failed: ${(e as Error).message}`);
    }
    jws = `${input}.${normaliseSignature(sig)}`;
  }
  return new TextEncoder().encode(`${JSON.stringify({ signatures: [jws] })}\n`);
}

/** One verification key, as an entry of OPA's `keys` configuration. */
export interface VerificationKey {
  /** PEM public key (SPKI, PKCS#1 or certificate; a private key PEM works too, as in OPA), or for HS* the shared secret text. */
  readonly key: string;
  /** The algorithm the key is configured with (OPA's default RS256). The signature is checked under it, whatever the JWS header says. */
  readonly algorithm?: SigningAlgorithm;
  /** The scope for this key, used when no scope is configured for the bundle. */
  readonly scope?: string;
}

export interface VerifyOptions {
  /** A single key, as `opa run --verification-key`; registered under `keyId`. Exclusive with `keys`. */
  readonly key?: string;
  /** The single key's algorithm (`--signing-alg`, default RS256). */
  readonly algorithm?: SigningAlgorithm;
  /** Keys by id, as OPA's `keys` configuration. Exclusive with `key`. */
  readonly keys?: Readonly<Record<string, VerificationKey>>;
  /**
   * The configured key id: `--verification-key-id` (default "default") with `key`, `bundles[].signing.keyid`
   * (default "", unset) with `keys`. When set it alone picks the key and the bundle's `kid` plays no part;
   * when "" the header `kid` picks it, else the payload's deprecated `keyid`.
   */
  readonly keyId?: string;
  /** The scope the verifier expects; the payload's must equal it, and "" or absent are the same. */
  readonly scope?: string;
  /** Bundle files left out of the check (Go `filepath.Match` globs on the slash-less name; `*` does not cross `/`). */
  readonly excludeFiles?: readonly string[];
}

export interface VerifiedBundle {
  /** The key id the bundle names: its header `kid`, else its payload `keyid`, else null. */
  readonly keyId: string | null;
  /** The id of the configured key that verified it. */
  readonly verificationKeyId: string;
  readonly algorithm: SigningAlgorithm;
  readonly files: readonly FileEntry[];
  readonly claims: Record<string, unknown>;
}

function verifyFail(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_VERIFY_FAILED', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}

// ---------------------------------------------------------------------------------------------
// JSON as Go's encoding/json reads it into OPA's structs. The verdicts hang on its quirks: field
// names match case-insensitively and the last match wins, null leaves a string as it was (and
// empties a list), `iat` must be an integer literal in int64 range, a wrong type is an error, and
// a json.Decoder (used for .signatures.json) reads the first value and ignores what follows.

/** Go's name for a JSON value's kind, as its unmarshal errors print it. */
function goKind(node: JNode): string {
  if (node.t === 'lit') return node.v === null ? 'null' : 'bool';
  return { obj: 'object', arr: 'array', str: 'string', num: 'number' }[node.t];
}

/** The members of a Go struct value: `fields` maps each lower-case field name to the last member that folds to it. */
function goStruct(node: JNode, type: string, fields: readonly string[]): Map<string, JNode> {
  if (node.t === 'lit' && node.v === null) return new Map();
  if (node.t !== 'obj') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${type}`);
  const out = new Map<string, JNode>();
  for (const [k, v] of node.entries) {
    const f = goFold(k);
    if (!fields.includes(f)) continue;
    // null into a string or number is a no-op in Go; into a slice it empties it.
    if (v.t === 'lit' && v.v === null && f !== 'files' && f !== 'signatures') continue;
    out.set(f, v);
  }
  return out;
}

function goString(node: JNode | undefined, where: string): string {
  if (node === undefined) return '';
  if (node.t !== 'str') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${where} of type string`);
  return node.v;
}

function goInt64(node: JNode | undefined, where: string): number | undefined {
  if (node === undefined) return undefined;
  if (node.t !== 'num' || !/^-?\d+$/.test(node.lit)) throw new JsonError(`cannot unmarshal ${node.t === 'num' ? `number ${node.lit}` : goKind(node)} into ${where} of type int64`);
  const n = BigInt(node.lit);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw new JsonError(`cannot unmarshal number ${node.lit} into ${where} of type int64`);
  return Number(n);
}

function goList(node: JNode | undefined, where: string): readonly JNode[] {
  if (node === undefined || (node.t === 'lit' && node.v === null)) return [];
  if (node.t !== 'arr') throw new JsonError(`cannot unmarshal ${goKind(node)} into ${where} of type list`);
  return node.items;
}

function decodeUtf8(bytes: Uint8Array): string {
  // Keep a BOM: Go's JSON reader refuses one, so must we.
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
}

// ---------------------------------------------------------------------------------------------
// Compact JWS, read as OPA reads it (OPA: v1/bundle/verify.go verifyJWTSignature).

/** base64url without padding, strictly (Go's RawURLEncoding refuses `=`, `+` and `/`). */
function rawB64url(seg: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(seg) || seg.length % 4 === 1) return undefined;
  return Buffer.from(seg, 'base64url');
}

interface DecodedToken {
  readonly signingInput: Buffer;
  readonly signature: Buffer;
  readonly kid: string | undefined;
  readonly header: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
  readonly payloadKeyId: string;
  readonly scope: string;
  /** Listed files by name; a repeated name keeps its last entry, as OPA's map does. */
  readonly files: Map<string, { name: string; hash: string; algorithm: string }>;
}

function decodeToken(token: string, source: string): DecodedToken {
  const parts = token.split('.');
  if (parts.length !== 3) verifyFail(source, `the signature is not a compact JWS (want 3 dot-separated parts, got ${parts.length})`, SIGNATURES_FILE);
  const [h, p, s] = parts as [string, string, string];
  const hb = rawB64url(h);
  if (hb === undefined) verifyFail(source, 'the JWS header is not unpadded base64url', SIGNATURES_FILE);
  const pb = rawB64url(p);
  if (pb === undefined) verifyFail(source, 'the JWS payload is not unpadded base64url', SIGNATURES_FILE);
  const sig = rawB64url(s);
  if (sig === undefined) verifyFail(source, 'the JWS signature is not unpadded base64url', SIGNATURES_FILE);
  let header: Record<string, unknown>;
  try {
    const v = JSON.parse(decodeUtf8(hb)) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('not an object');
    header = v as Record<string, unknown>;
  } catch (e) {
    verifyFail(source, `the JWS header is not a JSON object: ${(e as Error).message}`, SIGNATURES_FILE);
  }
  let claims: Record<string, unknown>;
  let fields: Map<string, JNode>;
  let fileNodes: readonly JNode[];
  const files = new Map<string, { name: string; hash: string; algorithm: string }>();
  let scope: string;
  let payloadKeyId: string;
  try {
    const text = decodeUtf8(pb);
    const node = parseGoJson(text, false);
    claims = node.t === 'obj' ? (JSON.parse(text) as Record<string, unknown>) : {};
    fields = goStruct(node, 'the signed payload', ['files', 'keyid', 'scope', 'iat', 'iss']);
    payloadKeyId = goString(fields.get('keyid'), 'payload keyid');
    scope = goString(fields.get('scope'), 'payload scope');
    goString(fields.get('iss'), 'payload iss');
    goInt64(fields.get('iat'), 'payload iat');
    fileNodes = goList(fields.get('files'), 'payload files');
    for (const [i, f] of fileNodes.entries()) {
      const m = goStruct(f, `payload files[${i}]`, ['name', 'hash', 'algorithm']);
      const e = { name: goString(m.get('name'), `files[${i}].name`), hash: goString(m.get('hash'), `files[${i}].hash`), algorithm: goString(m.get('algorithm'), `files[${i}].algorithm`) };
      files.set(e.name, e);
    }
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    verifyFail(source, `the signed payload is not what OPA reads: ${(e as Error).message}`, SIGNATURES_FILE);
  }
  return { signingInput: Buffer.from(`${h}.${p}`, 'ascii'), signature: sig, kid: typeof header.kid === 'string' ? header.kid : undefined, header, claims, payloadKeyId, scope, files };
}

// ---------------------------------------------------------------------------------------------
// Keys and signatures under the configured algorithm (OPA: verify.go; Go crypto/rsa, crypto/ecdsa).

const HASH_OF: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
/** EC curves Go's x509 parses, in Node's names. */
const GO_EC_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1', 'secp224r1']);

function verificationKeyOf(text: string, alg: SigningAlgorithm, source: string): KeyObject {
  if (alg.startsWith('HS')) return createSecretKey(Buffer.from(text, 'utf8'));
  let key: KeyObject;
  try {
    key = createPublicKey(text);
  } catch (e) {
    verifyFail(source, `the verification key is not a usable PEM key for ${alg} (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  const want = alg === 'EdDSA' ? 'ed25519' : alg.startsWith('ES') ? 'ec' : 'rsa';
  if (key.asymmetricKeyType !== want) verifyFail(source, `the verification key is ${key.asymmetricKeyType ?? 'of no known type'}, but ${alg} needs ${want}`);
  const d = key.asymmetricKeyDetails ?? {};
  // Go's crypto/rsa refuses keys under 1024 bits outright.
  if (want === 'rsa' && (d.modulusLength ?? 0) < 1024) verifyFail(source, `the ${d.modulusLength}-bit RSA verification key is under the 1024 bits Go (and so OPA) accepts`);
  if (want === 'ec' && !GO_EC_CURVES.has(d.namedCurve ?? '')) verifyFail(source, `the verification key's curve ${d.namedCurve} is not one OPA reads`);
  return key;
}

function signatureVerifies(alg: SigningAlgorithm, key: KeyObject, input: Buffer, sig: Buffer): boolean {
  if (alg.startsWith('HS')) {
    const mac = createHmac(HASH_OF[alg.slice(2)]!, key).update(input).digest();
    return mac.length === sig.length && timingSafeEqual(mac, sig);
  }
  if (alg === 'EdDSA') return cryptoVerify(null, input, key, sig);
  const hash = HASH_OF[alg.slice(2)]!;
  if (alg.startsWith('PS')) {
    // jwx verifies RSASSA-PSS with the salt as long as the hash, never "auto" as Node would.
    return cryptoVerify(hash, input, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 }, sig);
  }
  if (alg.startsWith('ES')) return cryptoVerify(hash, input, { key, dsaEncoding: 'ieee-p1363' }, sig);
  return cryptoVerify(hash, input, key, sig);
}

// ---------------------------------------------------------------------------------------------

/** Go's `filepath.Match` (Unix): `*` and `?` never match `/`, `[...]` classes with `^` and ranges, `\` escapes; a malformed pattern matches nothing. */
export function goGlobMatch(glob: string, name: string): boolean {
  const esc = (c: string) => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
  let re = '';
  const cps = [...glob];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '\\') {
      if (i + 1 >= cps.length) return false;
      re += esc(cps[++i]!);
    } else if (c === '[') {
      let cls = '';
      i++;
      if (cps[i] === '^') {
        cls += '^';
        i++;
      }
      let n = 0;
      for (;;) {
        if (i >= cps.length) return false;
        if (cps[i] === ']' && n > 0) break;
        const lo = cps[i] === '\\' ? cps[++i] : cps[i];
        if (lo === undefined || lo === '-' || (lo === ']' && cps[i - 1] !== '\\')) return false;
        i++;
        if (cps[i] === '-' && cps[i + 1] !== ']') {
          const hi = cps[i + 1] === '\\' ? cps[i + 2] : cps[i + 1];
          if (hi === undefined || hi === '-') return false;
          if (lo > hi) return false;
          i += cps[i + 1] === '\\' ? 3 : 2;
          cls += `${esc(lo)}-${esc(hi)}`;
        } else {
          cls += esc(lo);
        }
        n++;
      }
      re += `[${cls}]`;
    } else re += esc(c);
  }
  return new RegExp(`^${re}$`, 'u').test(name);
}

/** Whether OPA takes this entry for the bundle's signatures file (its base name is `.signatures.json`). */
export function isSignaturesFile(name: string): boolean {
  return name === SIGNATURES_FILE || name.endsWith(`/${SIGNATURES_FILE}`);
}

/**
 * Checks a bundle's signature as OPA (v1.22) does when it loads the bundle with verification
 * configured, so that it accepts exactly what OPA accepts:
 * - one signatures file (base name `.signatures.json`), read by Go's JSON rules, holding exactly one JWS;
 * - the key: the configured key id, else the header `kid`, else the payload `keyid`; it must be configured;
 * - the signature checked under the configured key's algorithm (the header's `alg` is not consulted);
 * - the payload's `scope` equal to the configured one ("" and absent alike);
 * - every bundle file listed with its digest, unless excluded, and every listed file present
 *   (an exclusion forgives an unlisted file, never a missing one).
 *
 * @example await verifyBundle(files, { key: publicPem, algorithm: 'ES256', keyId: 'release' }, 'bundle.tar.gz')
 */
export async function verifyBundle(files: readonly BundleFile[], options: VerifyOptions, source = 'bundle'): Promise<VerifiedBundle> {
  if ((options.key === undefined) === (options.keys === undefined)) throw new ToolgateError('USAGE', 'verify a bundle with exactly one of a key or a set of keys');
  const keyId = options.keyId ?? (options.key !== undefined ? 'default' : '');
  const keys: Readonly<Record<string, VerificationKey>> = options.keys ?? { [keyId]: { key: options.key!, ...(options.algorithm !== undefined ? { algorithm: options.algorithm } : {}), ...(options.scope !== undefined ? { scope: options.scope } : {}) } };

  const sigFiles = files.filter((f) => isSignaturesFile(f.name));
  if (sigFiles.length > 1) verifyFail(source, `the bundle holds more than one signatures file (${sigFiles.map((f) => f.name).join(', ')})`, sigFiles[1]!.name);
  const sigFile = sigFiles[0];
  if (sigFile === undefined) verifyFail(source, `the bundle is not signed (no ${SIGNATURES_FILE}), but verification is configured`);
  let tokens: string[] = [];
  let plugin = '';
  let hasList = false;
  try {
    const m = goStruct(parseGoJson(decodeUtf8(sigFile.bytes), true), SIGNATURES_FILE, ['signatures', 'plugin']);
    plugin = goString(m.get('plugin'), `${SIGNATURES_FILE} plugin`);
    const list = m.get('signatures');
    hasList = list !== undefined && goKind(list) !== 'null';
    tokens = goList(m.get('signatures'), `${SIGNATURES_FILE} signatures`).map((t, i) => goString(t, `${SIGNATURES_FILE} signatures[${i}]`));
  } catch (e) {
    verifyFail(source, `${sigFile.name} is not a signatures document: ${(e as Error).message}`, sigFile.name);
  }
  // `opa build` writes "_default", the id OPA registers its own verifier under.
  if (plugin !== '' && plugin !== '_default') verifyFail(source, `${sigFile.name} names the verifier plugin ${JSON.stringify(plugin)}; only OPA's default verifier ("_default") is supported`, sigFile.name);
  if (!hasList) verifyFail(source, `the bundle is not signed (${sigFile.name} holds no "signatures"), but verification is configured`, sigFile.name);
  if (tokens.length !== 1) verifyFail(source, `${sigFile.name} must hold exactly one JWS in "signatures", got ${tokens.length}`, sigFile.name);

  const t = decodeToken(tokens[0]!, source);
  const usedId = keyId !== '' ? keyId : t.kid !== undefined && t.kid !== '' ? t.kid : t.payloadKeyId;
  if (usedId === '') verifyFail(source, 'no key id: none is configured, and the JWS names none in its "kid" header or "keyid" claim', SIGNATURES_FILE);
  const kc = Object.hasOwn(keys, usedId) ? keys[usedId] : undefined;
  if (kc === undefined) verifyFail(source, `no verification key with id ${JSON.stringify(usedId)} is configured (have: ${Object.keys(keys).map((k) => JSON.stringify(k)).join(', ')})`, SIGNATURES_FILE);
  const alg = kc.algorithm ?? 'RS256';
  if (!isSigningAlgorithm(alg)) throw new ToolgateError('USAGE', `unsupported verification algorithm ${JSON.stringify(alg)}; use one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const key = verificationKeyOf(kc.key, alg, source);
  if (!signatureVerifies(alg, key, t.signingInput, t.signature)) {
    verifyFail(source, `the signature does not verify under ${alg} with the key ${JSON.stringify(usedId)}${typeof t.header.alg === 'string' && t.header.alg !== alg ? ` (its header names ${t.header.alg})` : ''}`, SIGNATURES_FILE);
  }
  const scope = options.scope || kc.scope || '';
  if (t.scope !== scope) verifyFail(source, `scope mismatch (want: ${JSON.stringify(scope)}, got: ${JSON.stringify(t.scope)})`, SIGNATURES_FILE);

  const excluded = (name: string) => (options.excludeFiles ?? []).some((g) => goGlobMatch(g, name));
  const unseen = new Map(t.files);
  const checked: FileEntry[] = [];
  for (const f of files) {
    if (isSignaturesFile(f.name)) continue;
    const e = unseen.get(f.name);
    unseen.delete(f.name);
    if (excluded(f.name)) continue;
    if (e === undefined) verifyFail(source, `file ${f.name} is in the bundle but not in the signature (extra file)`, f.name);
    if (!isOpaHashAlgorithm(e.algorithm)) verifyFail(source, `file ${f.name} is listed with hash algorithm ${JSON.stringify(e.algorithm)}, not one of OPA's`, f.name);
    const want = /^(?:[0-9a-fA-F]{2})*$/.test(e.hash) ? e.hash.toLowerCase() : undefined;
    if (want === undefined) verifyFail(source, `file ${f.name} is listed with a hash that is not hex (${JSON.stringify(e.hash)})`, f.name);
    const got = opaFileHash(f.name, f.bytes, e.algorithm, source);
    if (got !== want) verifyFail(source, `digest mismatch for ${f.name} (want: ${want}, got: ${got})`, f.name);
    checked.push({ name: e.name, hash: e.hash, algorithm: e.algorithm });
  }
  if (unseen.size > 0) verifyFail(source, `file(s) ${[...unseen.keys()].map((n) => JSON.stringify(n)).join(', ')} signed but missing from the bundle`, [...unseen.keys()][0]);
  const named = t.kid ?? (t.payloadKeyId !== '' ? t.payloadKeyId : null);
  return { keyId: named, verificationKeyId: usedId, algorithm: alg, files: checked.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), claims: t.claims };
}
