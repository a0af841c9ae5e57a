/**
 * The digest envelope that travels beside canonical bytes: the algorithm, the lowercase hex
 * digest, and signature metadata. `scheme` and `key_id` are copied from what the host asserts,
 * `null` where it asserts nothing; they are never inside the hashed bytes. toolgate holds no key
 * and verifies no signature: a host-supplied signer is the only thing that produces one
 * (reference: beam_mcp docs/connectome-canonical.md, "Signing the bytes").
 */
import { canonicalBytes } from './json.ts';
import { assertDigestAlgorithm, digestHex, type DigestAlgorithm } from './digest.ts';
import { ToolgateError } from '../errors.ts';

/** What the host asserts about its signature. Absent fields become `null`. */
export interface SignatureMetadata {
  readonly scheme?: string | null;
  readonly keyId?: string | null;
}

/** A host-supplied signer: it receives exactly the canonical bytes and returns the signature (text, e.g. base64). */
export type Signer = (canonicalBytes: Uint8Array) => string | Uint8Array | Promise<string | Uint8Array>;

export interface DigestEnvelope {
  readonly algorithm: DigestAlgorithm;
  readonly digest: string;
  readonly key_id: string | null;
  readonly scheme: string | null;
  /** The signer's output (base64 when it returned bytes), or null when no signer was attached. */
  readonly signature: string | null;
  /** Size in bytes of what was hashed. */
  readonly size: number;
}

function metaString(v: unknown, field: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ToolgateError('CONFIG_INVALID', `signature ${field} must be a string, got ${typeof v}`);
  return v;
}

/**
 * The envelope for bytes already encoded, with no signature.
 * @example digestEnvelope(bytes, 'sha256').digest.length // 64
 */
export function digestEnvelope(bytes: Uint8Array, algorithm: DigestAlgorithm = 'sha256', meta: SignatureMetadata = {}): DigestEnvelope {
  assertDigestAlgorithm(algorithm);
  return {
    algorithm,
    digest: digestHex(bytes, algorithm),
    key_id: metaString(meta.keyId, 'key_id'),
    scheme: metaString(meta.scheme, 'scheme'),
    signature: null,
    size: bytes.length,
  };
}

/** The envelope with the host signer's signature over exactly `bytes`. Signer failures are SIGNER_FAILED. */
export async function signedEnvelope(bytes: Uint8Array, algorithm: DigestAlgorithm, signer: Signer, meta: SignatureMetadata = {}): Promise<DigestEnvelope> {
  const base = digestEnvelope(bytes, algorithm, meta);
  let sig: string | Uint8Array;
  try {
    sig = await signer(bytes);
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    throw new ToolgateError('SIGNER_FAILED', `the host signer failed: ${(e as Error).message ?? String(e)}`, { cause: e });
  }
  const signature = typeof sig === 'string' ? sig : Buffer.from(sig).toString('base64');
  if (typeof signature !== 'string' || signature.length === 0) throw new ToolgateError('SIGNER_FAILED', 'the host signer returned no signature');
  return { ...base, signature };
}

/** The envelope's own bytes (canonical JSON, members sorted). */
export function envelopeBytes(envelope: DigestEnvelope): Uint8Array {
  return canonicalBytes(envelope);
}
