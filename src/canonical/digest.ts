/**
 * Digests over bytes (never over objects): SHA-256 by default, SHA-384 and SHA-512 by option,
 * via node:crypto (OpenSSL): a compile hashes every artifact it writes, and for a large estate
 * that is ~100 MB, which @noble/hashes' pure-JS SHA-256 takes over a second to do and OpenSSL
 * a tenth of that. Any other algorithm name is refused before anything is hashed or written.
 */
import { createHash } from 'node:crypto';
import { ToolgateError } from '../errors.ts';

export type DigestAlgorithm = 'sha256' | 'sha384' | 'sha512';
export const DIGEST_ALGORITHMS: readonly DigestAlgorithm[] = ['sha256', 'sha384', 'sha512'];


export function isDigestAlgorithm(name: unknown): name is DigestAlgorithm {
  return typeof name === 'string' && (DIGEST_ALGORITHMS as readonly string[]).includes(name);
}

/** Narrows an algorithm name, refusing anything outside sha256/sha384/sha512. */
export function assertDigestAlgorithm(name: unknown): asserts name is DigestAlgorithm {
  if (!isDigestAlgorithm(name)) {
    throw new ToolgateError(
      'DIGEST_ALGORITHM_UNSUPPORTED',
      `unsupported digest algorithm ${JSON.stringify(name)}: expected one of ${DIGEST_ALGORITHMS.join(', ')}`,
    );
  }
}

/** Digest bytes. @example digestOf(new Uint8Array(), 'sha256').length // 32 */
export function digestOf(bytes: Uint8Array, algorithm: DigestAlgorithm = 'sha256'): Uint8Array {
  assertDigestAlgorithm(algorithm);
  return new Uint8Array(createHash(algorithm).update(bytes).digest());
}

/** An incremental digest: feed it bytes in pieces, then take the digest once. */
export interface IncrementalDigest {
  update(bytes: Uint8Array): IncrementalDigest;
  digest(): Uint8Array;
}

/** Starts an incremental digest. @example createDigest('sha256').update(a).update(b).digest() */
export function createDigest(algorithm: DigestAlgorithm = 'sha256'): IncrementalDigest {
  assertDigestAlgorithm(algorithm);
  const hash = createHash(algorithm);
  const incremental: IncrementalDigest = {
    update(bytes) {
      hash.update(bytes);
      return incremental;
    },
    digest: () => new Uint8Array(hash.digest()),
  };
  return incremental;
}

/** Lowercase hex digest. @example digestHex(new TextEncoder().encode('abc')) // 'ba7816bf…' */
export function digestHex(bytes: Uint8Array, algorithm: DigestAlgorithm = 'sha256'): string {
  assertDigestAlgorithm(algorithm);
  return createHash(algorithm).update(bytes).digest('hex');
}

/**
 * SHA-256 (hex) of a string's UTF-8 bytes, without making them a Uint8Array first (a canonical
 * text can be tens of megabytes). The string must be well-formed, as canonical text is.
 */
export function textDigestHex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** An incremental SHA-256 over the UTF-8 bytes of strings fed one after another, as `textDigestHex` of their concatenation. */
export interface IncrementalTextDigest {
  update(text: string): void;
  hex(): string;
}

export function createTextDigest(): IncrementalTextDigest {
  const hash = createHash('sha256');
  return {
    update: (text) => void hash.update(text, 'utf8'),
    hex: () => hash.digest('hex'),
  };
}
