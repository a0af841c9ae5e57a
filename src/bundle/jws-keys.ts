/** Verification keys and signature checks under the configured algorithm, as OPA has them (OPA: verify.go; Go crypto/rsa, crypto/ecdsa). */
import { constants, createHmac, createPublicKey, createSecretKey, timingSafeEqual, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import type { SigningAlgorithm } from './signatures.ts';
import { verifyFail } from './signatures-file.ts';

const HASH_OF: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };
/** EC curves Go's x509 parses, in Node's names. */
const GO_EC_CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1', 'secp224r1']);

export function verificationKeyOf(text: string, alg: SigningAlgorithm, source: string): KeyObject {
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

export function signatureVerifies(alg: SigningAlgorithm, key: KeyObject, input: Buffer, sig: Buffer): boolean {
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
