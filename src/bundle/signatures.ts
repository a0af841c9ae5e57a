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
import { createPrivateKey, createSecretKey, type KeyObject } from 'node:crypto';
import { CompactSign } from 'jose';
import { canonicalString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { isOpaHashAlgorithm, opaFileHash, type OpaHashAlgorithm } from './opa-hash.ts';
import { parseGoJson } from './go-json.ts';
import { decodeUtf8, goKind, goList, goString, goStruct } from './go-struct-json.ts';
import { decodeToken } from './jws-token.ts';
import { signatureVerifies, verificationKeyOf } from './jws-keys.ts';
import { goGlobMatch } from './go-glob.ts';
import { isSignaturesFile, SIGNATURES_FILE, verifyFail } from './signatures-file.ts';

export { isSignaturesFile, SIGNATURES_FILE } from './signatures-file.ts';
export { goGlobMatch } from './go-glob.ts';

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
