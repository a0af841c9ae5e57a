/**
 * `.signatures.json` for OPA bundles, written and checked as OPA does (reference/opa-bundle-format.md
 * §3; OPA: v1/bundle/sign.go, verify.go): one compact JWS whose payload lists every file of the
 * bundle but the signatures file itself, `{name, hash, algorithm}`, hashed by OPA's rules
 * (opa-hash.ts). JWS through `jose`. toolgate never generates, stores or logs a key: the caller
 * passes a PEM it holds, or a signer callback for a key held elsewhere.
 */
import { createPrivateKey, createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import { CompactSign, compactVerify, decodeProtectedHeader } from 'jose';
import { canonicalString } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { isOpaHashAlgorithm, opaFileHash, type OpaHashAlgorithm } from './opa-hash.ts';

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

/** The `files` claim for a bundle: every file but `.signatures.json`, sorted by name as the tarball is. */
export function bundleFileEntries(files: readonly BundleFile[], algorithm: OpaHashAlgorithm = 'SHA-256', source = 'bundle'): FileEntry[] {
  return files
    .filter((f) => f.name !== SIGNATURES_FILE)
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

export interface VerifyOptions {
  /** PEM public key (SPKI or certificate), or for HS* the shared secret text. */
  readonly key: string;
  /** The algorithm the verifier is configured with (OPA's default is RS256); the header must name it. */
  readonly algorithm?: SigningAlgorithm;
  /** The scope the verifier expects; the payload's must equal it (both absent is equal). */
  readonly scope?: string;
  /** Files left out of the check (shell globs on the slash-less name; `*` does not cross `/`). */
  readonly excludeFiles?: readonly string[];
}

export interface VerifiedBundle {
  readonly keyId: string | null;
  readonly algorithm: string;
  readonly files: readonly FileEntry[];
  readonly claims: Record<string, unknown>;
}

function verifyFail(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_VERIFY_FAILED', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}

function globMatch(glob: string, name: string): boolean {
  const re = new RegExp(`^${glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
  return re.test(name);
}

function publicKeyOf(text: string, alg: string, source: string): KeyObject {
  try {
    if (alg.startsWith('HS')) return createSecretKey(Buffer.from(text, 'utf8'));
    return createPublicKey(text);
  } catch (e) {
    verifyFail(source, `the verification key is not a usable PEM public key (${(e as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

/**
 * Checks a bundle's `.signatures.json` as OPA's verifier does: exactly one JWS, signed by the key
 * with the configured algorithm, the scope as configured, and a `files` list that matches the
 * bundle exactly (no file missing from either side, every digest equal).
 */
export async function verifyBundle(files: readonly BundleFile[], options: VerifyOptions, source = 'bundle'): Promise<VerifiedBundle> {
  const sigFile = files.find((f) => f.name === SIGNATURES_FILE);
  if (sigFile === undefined) verifyFail(source, `the bundle is not signed (no ${SIGNATURES_FILE})`);
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(sigFile.bytes));
  } catch (e) {
    verifyFail(source, `${SIGNATURES_FILE} is not valid JSON: ${(e as Error).message}`, SIGNATURES_FILE);
  }
  const sigs = (doc as { signatures?: unknown })?.signatures;
  if (!Array.isArray(sigs) || sigs.length !== 1 || typeof sigs[0] !== 'string') {
    verifyFail(source, `${SIGNATURES_FILE} must hold exactly one JWS in "signatures"`, SIGNATURES_FILE);
  }
  const jws = sigs[0] as string;
  let header: { alg?: string; kid?: string };
  try {
    header = decodeProtectedHeader(jws) as { alg?: string; kid?: string };
  } catch (e) {
    verifyFail(source, `the signature is not a compact JWS: ${(e as Error).message}`, SIGNATURES_FILE);
  }
  const expectedAlg = options.algorithm ?? 'RS256';
  if (header.alg !== expectedAlg) verifyFail(source, `signature algorithm ${JSON.stringify(header.alg)} is not the configured ${expectedAlg}`, SIGNATURES_FILE);
  const key = publicKeyOf(options.key, expectedAlg, source);
  let payloadBytes: Uint8Array;
  try {
    payloadBytes = (await compactVerify(jws, key, { algorithms: [expectedAlg] })).payload;
  } catch (e) {
    verifyFail(source, `signature does not verify with the given key: ${(e as Error).message}`, SIGNATURES_FILE);
  }
  let claims: Record<string, unknown>;
  try {
    claims = JSON.parse(new TextDecoder().decode(payloadBytes)) as Record<string, unknown>;
  } catch {
    verifyFail(source, 'the signed payload is not JSON', SIGNATURES_FILE);
  }
  if ((claims.scope ?? undefined) !== options.scope) {
    verifyFail(source, `scope mismatch (want: ${JSON.stringify(options.scope ?? null)}, got: ${JSON.stringify(claims.scope ?? null)})`, SIGNATURES_FILE);
  }
  if (!Array.isArray(claims.files)) verifyFail(source, 'the signed payload has no "files" list', SIGNATURES_FILE);
  const excluded = (name: string) => (options.excludeFiles ?? []).some((g) => globMatch(g, name));
  const listed = new Map<string, FileEntry>();
  for (const [i, f] of (claims.files as unknown[]).entries()) {
    const e = f as Partial<FileEntry>;
    if (typeof e?.name !== 'string' || typeof e.hash !== 'string' || !isOpaHashAlgorithm(e.algorithm)) {
      verifyFail(source, `files[${i}] needs a name, a hash and one of OPA's hash algorithms`, SIGNATURES_FILE);
    }
    if (listed.has(e.name)) verifyFail(source, `files lists ${e.name} twice`, SIGNATURES_FILE);
    listed.set(e.name, e as FileEntry);
  }
  const present = files.filter((f) => f.name !== SIGNATURES_FILE && !excluded(f.name));
  for (const f of present) {
    const e = listed.get(f.name);
    if (e === undefined) verifyFail(source, `file ${f.name} is in the bundle but not in the signature (extra file)`, f.name);
    const got = opaFileHash(f.name, f.bytes, e.algorithm, source);
    if (got !== e.hash.toLowerCase()) verifyFail(source, `digest mismatch for ${f.name} (want: ${e.hash}, got: ${got})`, f.name);
  }
  const names = new Set(present.map((f) => f.name));
  for (const name of listed.keys()) {
    if (!names.has(name) && !excluded(name)) verifyFail(source, `file ${name} is signed but missing from the bundle`, name);
  }
  return { keyId: header.kid ?? (typeof claims.keyid === 'string' ? claims.keyid : null), algorithm: expectedAlg, files: [...listed.values()], claims };
}
