/**
 * Private keys (PKCS #1, PKCS #8, SEC 1; RFC 8017, RFC 5958, RFC 5915) as Go's JSON of its key types
 * or as a JWK, with Go's consistency checks, and the check that a public and a private key are a pair.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { bytesToBigInt } from './der.ts';
import { b64, fail, type Json } from './gox509-fields.ts';

const bitLen = (x: bigint) => (x <= 0n ? 0 : x.toString(2).length);
const mod = (a: bigint, m: bigint) => ((a % m) + m) % m;

/** Go's consistency checks of an RSA private key (crypto/internal/fips140/rsa), in Go's order; node:crypto does none. */
function rsaKeyProblem(n: bigint, e: bigint, d: bigint, p: bigint, q: bigint, dp: bigint, dq: bigint, qi: bigint): string | undefined {
  if (n === 0n) return 'crypto/rsa: missing public modulus';
  if (n % 2n === 0n) return 'crypto/rsa: public modulus is even';
  if (e < 2n) return 'crypto/rsa: public exponent too small or negative';
  if (e % 2n === 0n) return 'crypto/rsa: public exponent is even';
  if (e > 2n ** 31n - 1n) return 'crypto/rsa: public exponent too large';
  if (p >= n || q >= n) return 'crypto/rsa: invalid prime';
  if (mod(p * q, n) !== 0n) return 'crypto/rsa: p * q != n';
  if (p < 2n || q < 2n) return 'crypto/rsa: invalid prime';
  if (dp >= p - 1n || mod(e * dp, p - 1n) !== 1n) return 'crypto/rsa: invalid CRT exponent';
  if (dq >= q - 1n || mod(e * dq, q - 1n) !== 1n) return 'crypto/rsa: invalid CRT exponent';
  if (mod(q * qi, p) !== 1n) return 'crypto/rsa: invalid CRT coefficient';
  if (mod(d, p - 1n) !== dp) return 'crypto/rsa: d does not match dP';
  if (mod(d, q - 1n) !== dq) return 'crypto/rsa: d does not match dQ';
  if (p === q) return 'crypto/rsa: p == q';
  if (bitLen(p > q ? p - q : q - p) <= Math.floor(bitLen(n) / 2) - 100) return 'crypto/rsa: |p - q| too small';
  if (bitLen(d) <= Math.floor(bitLen(n) / 2)) return 'crypto/rsa: d too small';
  return undefined;
}

const unb64 = (s: string | undefined) => (s === undefined ? 0n : bytesToBigInt(Buffer.from(s, 'base64url')));

/** A private key as Go's JSON of *rsa.PrivateKey, *ecdsa.PrivateKey or ed25519.PrivateKey. */
export function privateKeyJson(der: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): Json {
  let jwk;
  try {
    const key = createPrivateKey({ key: Buffer.from(der), format: 'der', type: format });
    jwk = key.export({ format: 'jwk' });
  } catch {
    fail(format === 'pkcs1' ? 'x509: failed to parse private key' : format === 'sec1' ? 'x509: failed to parse EC private key' : 'x509: failed to parse private key');
  }
  if (jwk.kty === 'RSA') {
    const problem = rsaKeyProblem(unb64(jwk.n), unb64(jwk.e), unb64(jwk.d), unb64(jwk.p), unb64(jwk.q), unb64(jwk.dp), unb64(jwk.dq), unb64(jwk.qi));
    if (problem !== undefined) fail(format === 'pkcs8' ? `x509: failed to parse RSA private key embedded in PKCS#8: ${problem}` : problem);
    return {
      N: unb64(jwk.n),
      E: Number(unb64(jwk.e)),
      D: unb64(jwk.d),
      Primes: [unb64(jwk.p), unb64(jwk.q)],
      Precomputed: { Dp: unb64(jwk.dp), Dq: unb64(jwk.dq), Qinv: unb64(jwk.qi), CRTValues: [] },
    };
  }
  if (jwk.kty === 'EC') return { Curve: {}, X: unb64(jwk.x), Y: unb64(jwk.y), D: unb64(jwk.d) };
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') {
    // Go's ed25519.PrivateKey is the seed followed by the public key
    return b64(Buffer.concat([Buffer.from(jwk.d ?? '', 'base64url'), Buffer.from(jwk.x ?? '', 'base64url')]));
  }
  fail('x509: unknown private key type');
}

/** A private key as a JWK (the fields lestrrat-go/jwx writes, which node:crypto writes too). */
export function privateKeyJwk(der: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): Json {
  const jwk = createPrivateKey({ key: Buffer.from(der), format: 'der', type: format }).export({ format: 'jwk' });
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(jwk)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Go's tls.X509KeyPair check that a public key (SPKI DER) and a private key are a pair. */
export function assertKeysMatch(spkiDer: Uint8Array, privateDer: Uint8Array, format: 'pkcs1' | 'pkcs8' | 'sec1'): void {
  const pub = createPublicKey({ key: Buffer.from(spkiDer), format: 'der', type: 'spki' }).export({ format: 'jwk' });
  const priv = createPublicKey(createPrivateKey({ key: Buffer.from(privateDer), format: 'der', type: format })).export({ format: 'jwk' });
  if (pub.kty !== priv.kty || pub.crv !== priv.crv) fail('tls: private key type does not match public key type');
  if (JSON.stringify(pub) !== JSON.stringify(priv)) fail('tls: private key does not match public key');
}
