/**
 * Digests over bytes (never over objects): SHA-256 by default, SHA-384 and SHA-512 by option,
 * via @noble/hashes. Any other algorithm name is refused before anything is hashed or written.
 */
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { ToolgateError } from '../errors.ts';

export type DigestAlgorithm = 'sha256' | 'sha384' | 'sha512';
export const DIGEST_ALGORITHMS: readonly DigestAlgorithm[] = ['sha256', 'sha384', 'sha512'];

const HASHES = { sha256, sha384, sha512 } as const;

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
  return HASHES[algorithm](bytes);
}

/** An incremental digest: feed it bytes in pieces, then take the digest once. */
export interface IncrementalDigest {
  update(bytes: Uint8Array): IncrementalDigest;
  digest(): Uint8Array;
}

/** Starts an incremental digest. @example createDigest('sha256').update(a).update(b).digest() */
export function createDigest(algorithm: DigestAlgorithm = 'sha256'): IncrementalDigest {
  assertDigestAlgorithm(algorithm);
  return HASHES[algorithm].create();
}

/** Lowercase hex digest. @example digestHex(new TextEncoder().encode('abc')) // 'ba7816bf…' */
export function digestHex(bytes: Uint8Array, algorithm: DigestAlgorithm = 'sha256'): string {
  return bytesToHex(digestOf(bytes, algorithm));
}
