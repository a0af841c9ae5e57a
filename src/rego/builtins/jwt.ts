/**
 * JWT builtins as OPA's topdown/tokens.go computes them: io.jwt.decode, io.jwt.verify_<alg>,
 * io.jwt.decode_verify and io.jwt.encode_sign / encode_sign_raw (the first key of a JWK or JWK
 * set). Verification is synchronous (builtins are), so it runs on node:crypto (`crypto.verify`,
 * HMAC) rather than on jose's WebCrypto-based, asynchronous API. Keys are what OPA
 * accepts: a PEM certificate, a PEM public key, or a JWK / JWK set (keys with an unknown `alg` are
 * skipped, `kid` picks the key when the token names one); HS algorithms take the secret as text.
 *
 * OPA's error texts are kept (`encoded JWT had no period separators`, `JWT header had invalid
 * encoding: ...`, `bad JWT header: invalid JSON: ...`); a signature that does not verify, with any
 * key of the wrong type, is `false`, not an error, as in OPA.
 *
 * One file past 400 lines: decoding, verifying and signing share the token splitting, the header
 * rules, the algorithm table and the error texts, as tokens.go has them in one place.
 */
import { createHmac, createPrivateKey, createPublicKey, timingSafeEqual, sign as cryptoSign, verify as cryptoVerify, X509Certificate, constants, type KeyObject } from 'node:crypto';
import { marshalJson } from './lib/json.ts';
import { Decimal, compareNumbers, type NumberValue } from '../number-value.ts';
import { ObjectValue, isNumber, type Value } from '../value.ts';
import { BuiltinError, builtinError, lookupBuiltin, registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import { obj, str } from './args.ts';

const ALGS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512', 'EdDSA']);

/** A failure inside the family; the builtin's name is put in front by `wrap`. */
class JwtFault extends Error {}

/** Calls another builtin for its exact result and error text (without its name). */
function call(name: string, args: Value[], ctx: BuiltinContext): Value {
  try {
    return lookupBuiltin(name)!.fn!(args, ctx) as Value;
  } catch (e) {
    if (e instanceof BuiltinError) throw new JwtFault(e.message.replace(`${name}: `, ''));
    throw e;
  }
}

interface Token {
  readonly header: string;
  readonly payload: string;
  readonly signature: string;
}

function splitToken(name: string, a: Value[], i: number): Token {
  const s = str(name, a, i);
  if (!s.includes('.')) throw new JwtFault('encoded JWT had no period separators');
  const parts = s.split('.');
  if (parts.length !== 3) throw new JwtFault(`encoded JWT must have 3 sections, found ${parts.length}`);
  return { header: parts[0]!, payload: parts[1]!, signature: parts[2]! };
}

function jsonObject(text: string, ctx: BuiltinContext): ObjectValue {
  let v: Value;
  try {
    v = call('json.unmarshal', [text], ctx);
  } catch (e) {
    if (e instanceof JwtFault) throw new JwtFault(`invalid JSON: ${e.message}`);
    throw e;
  }
  if (!(v instanceof ObjectValue)) throw new JwtFault('decoded JSON type was not an Object');
  return v;
}

function decodeHeader(t: Token, ctx: BuiltinContext): ObjectValue {
  let text: Value;
  try {
    text = call('base64url.decode', [t.header], ctx);
  } catch (e) {
    if (e instanceof JwtFault) throw new JwtFault(`JWT header had invalid encoding: ${e.message}`);
    throw e;
  }
  let h: ObjectValue;
  try {
    h = jsonObject(text as string, ctx);
  } catch (e) {
    if (e instanceof JwtFault) throw new JwtFault(`bad JWT header: ${e.message}`);
    throw e;
  }
  if (h.get('enc') !== undefined) throw new JwtFault('JWT is a JWE object, which is not supported');
  return h;
}

function decodePayloadText(t: Token, ctx: BuiltinContext): string {
  try {
    return call('base64url.decode', [t.payload], ctx) as string;
  } catch (e) {
    if (e instanceof JwtFault) throw new JwtFault(`JWT payload had invalid encoding: ${e.message}`);
    throw e;
  }
}

function signatureBytes(s: string, ctx: BuiltinContext): Buffer {
  call('base64url.decode', [s], ctx);
  return Buffer.from(s, 'base64url');
}

interface Header {
  alg: string;
  kid: string;
  cty: string;
  crit: Set<string> | undefined;
  unknown: string[];
}

function parseHeader(h: ObjectValue): Header {
  const out: Header = { alg: '', kid: '', cty: '', crit: undefined, unknown: [] };
  for (const [k, v] of h.entries()) {
    const key = k as string;
    if (key === 'alg' || key === 'kid' || key === 'typ' || key === 'cty') {
      if (typeof v !== 'string') throw new JwtFault(`${key}: must be a string`);
      if (key !== 'typ') out[key] = v;
    } else if (key === 'crit') {
      if (!Array.isArray(v)) throw new JwtFault('crit: must be a list');
      out.crit = new Set(v.filter((x): x is string => typeof x === 'string'));
      if (out.crit.size === 0) throw new JwtFault('crit: must be a nonempty list');
    } else out.unknown.push(key);
  }
  return out;
}

function headerValid(h: Header): boolean {
  if (h.alg === '') return false;
  return !h.unknown.some((u) => h.crit?.has(u));
}

interface VerificationKey {
  readonly alg: string;
  readonly kid: string;
  readonly key: KeyObject | Buffer;
}

const keyCache = new Map<string, VerificationKey[]>();

/** OPA's parseKeysFromCertOrJWK. */
function parseKeys(text: string): VerificationKey[] {
  const hit = keyCache.get(text);
  if (hit) return hit;
  let keys: VerificationKey[];
  const pem = /-----BEGIN ([^-\r\n]+)-----\r?\n[\s\S]*?\r?\n-----END \1-----\r?\n?/.exec(text);
  if (pem) {
    const rest = text.slice(pem.index + pem[0].length);
    if (rest.length > 0) throw new JwtFault('extra data after a PEM certificate block');
    if (pem[1] === 'CERTIFICATE') {
      try {
        keys = [{ alg: '', kid: '', key: new X509Certificate(pem[0]).publicKey }];
      } catch (e) {
        throw new JwtFault(`failed to parse a PEM certificate: ${(e as Error).message}`);
      }
    } else if (pem[1] === 'PUBLIC KEY') {
      try {
        keys = [{ alg: '', kid: '', key: createPublicKey(pem[0]) }];
      } catch (e) {
        throw new JwtFault(`failed to parse a PEM public key: ${(e as Error).message}`);
      }
    } else throw new JwtFault('failed to extract a Key from the PEM certificate');
  } else {
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new JwtFault(`failed to parse a JWK key (set): ${(e as Error).message}`);
    }
    const list = doc !== null && typeof doc === 'object' && Array.isArray((doc as { keys?: unknown }).keys) ? ((doc as { keys: unknown[] }).keys) : [doc];
    keys = [];
    for (const j of list) {
      if (j === null || typeof j !== 'object') throw new JwtFault('failed to parse a JWK key (set): invalid key');
      const jwk = j as Record<string, unknown>;
      const alg = typeof jwk.alg === 'string' ? jwk.alg : '';
      if (alg !== '' && !ALGS.has(alg)) continue;
      let key: KeyObject | Buffer;
      try {
        key = jwk.kty === 'oct' && typeof jwk.k === 'string' ? Buffer.from(jwk.k, 'base64url') : createPublicKey({ key: jwk as never, format: 'jwk' });
      } catch (e) {
        throw new JwtFault(`failed to parse a JWK key (set): ${(e as Error).message}`);
      }
      keys.push({ alg, kid: typeof jwk.kid === 'string' ? jwk.kid : '', key });
    }
  }
  if (keyCache.size > 100) keyCache.clear();
  keyCache.set(text, keys);
  return keys;
}

const HASH: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

/** Verifies a JWS signature with one key; any mismatch of key and algorithm is `false`. */
/**
 * `pssSaltEqualsHash`: decode_verify goes through jwx, which wants a PSS salt as long as the hash;
 * verify_ps<n> use Go's rsa.VerifyPSS without options, which accepts any salt length.
 */
function verifyWith(key: KeyObject | Buffer, alg: string, data: Buffer, sig: Buffer, pssSaltEqualsHash = false): boolean {
  try {
    const fam = alg.slice(0, 2);
    const hash = HASH[alg.slice(2)];
    if (fam === 'HS') {
      if (!Buffer.isBuffer(key) || hash === undefined) return false;
      const mac = createHmac(hash, key).update(data).digest();
      return mac.length === sig.length && timingSafeEqual(mac, sig);
    }
    if (Buffer.isBuffer(key)) return false;
    if (alg === 'EdDSA') return key.asymmetricKeyType === 'ed25519' && cryptoVerify(null, data, key, sig);
    if (hash === undefined) return false;
    if (fam === 'RS') return key.asymmetricKeyType === 'rsa' && cryptoVerify(hash, data, key, sig);
    if (fam === 'PS') {
      return key.asymmetricKeyType === 'rsa' && cryptoVerify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pssSaltEqualsHash ? Number(alg.slice(2)) / 8 : constants.RSA_PSS_SALTLEN_AUTO }, sig);
    }
    if (fam === 'ES') return key.asymmetricKeyType === 'ec' && cryptoVerify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, sig);
    return false;
  } catch {
    return false;
  }
}

/**
 * OPA's key choice: the key named by the header's `kid` alone when there is one, else every key
 * without an alg or with the header's alg; each is tried with `alg`.
 */
function verifyKeys(keys: readonly VerificationKey[], h: Header, alg: string, data: Buffer, sig: Buffer, pssSaltEqualsHash = false): boolean {
  if (h.kid !== '') {
    const k = keys.find((x) => x.kid === h.kid);
    if (k) return verifyWith(k.key, alg, data, sig, pssSaltEqualsHash);
  }
  for (const k of keys) {
    if (k.alg !== '' && k.alg !== h.alg) continue;
    if (verifyWith(k.key, alg, data, sig, pssSaltEqualsHash)) return true;
  }
  return false;
}

function wrap(name: string, fn: (a: Value[], ctx: BuiltinContext) => Value | undefined): BuiltinDef['fn'] {
  return (a, ctx) => {
    try {
      return fn(a, ctx);
    } catch (e) {
      if (e instanceof JwtFault) throw builtinError(name, e.message);
      throw e;
    }
  };
}

function decode(name: string, a: Value[], ctx: BuiltinContext): Value {
  const t = splitToken(name, a, 0);
  const header = decodeHeader(t, ctx);
  let p = decodePayloadText(t, ctx);
  const cty = header.get('cty');
  if (cty === 'JWT') {
    p = p.replace(/^["']+|["']+$/g, '');
    return decode(name, [p], ctx);
  }
  const payload = jsonObject(p, ctx);
  try {
    call('base64url.decode', [t.signature], ctx);
  } catch (e) {
    if (e instanceof JwtFault) throw new JwtFault(`JWT signature had invalid encoding: ${e.message}`);
    throw e;
  }
  const sig = Buffer.from(t.signature, 'base64url').toString('hex');
  return [header, payload, sig];
}

/** io.jwt.verify_<alg>: RS/PS/ES/EdDSA with a certificate, public key or JWK (set). */
function verifyAsym(name: string, alg: string): BuiltinDef {
  return {
    name,
    arity: 2,
    fn: wrap(name, (a, ctx) => {
      const t = splitToken(name, a, 0);
      const keys = parseKeys(str(name, a, 1));
      const sig = signatureBytes(t.signature, ctx);
      const h = parseHeader(decodeHeader(t, ctx));
      const data = Buffer.from(`${t.header}.${t.payload}`);
      // OPA verifies with the builtin's own algorithm whatever the header says
      return verifyKeys(keys, h, alg, data, sig);
    }),
  };
}

function verifyHs(name: string, alg: string): BuiltinDef {
  return {
    name,
    arity: 2,
    fn: wrap(name, (a, ctx) => {
      str(name, a, 0);
      const secret = str(name, a, 1);
      const t = splitToken(name, a, 0);
      const sig = signatureBytes(t.signature, ctx);
      return verifyWith(Buffer.from(secret, 'utf8'), alg, Buffer.from(`${t.header}.${t.payload}`), sig);
    }),
  };
}

function unverified(): Value {
  return [false, new ObjectValue(), new ObjectValue()];
}

function toFloat(v: NumberValue): number {
  if (v instanceof Decimal) return Number(`${v.m}e${v.e}`);
  return Number(v);
}

function timeOf(v: Value): number {
  if (!isNumber(v)) throw new JwtFault('token time constraint: must be a number');
  const f = toFloat(v);
  if (!Number.isFinite(f)) throw new JwtFault('token time constraint: unvalid float64');
  if (f < 0) throw new JwtFault('token time constraint: must not be negative');
  return f;
}

function decodeVerify(a: Value[], ctx: BuiltinContext): Value {
  const name = 'io.jwt.decode_verify';
  const c = obj(name, a, 1);
  let keys: VerificationKey[] | undefined;
  let secret = '';
  let alg = '';
  let iss = '';
  let aud = '';
  let time = -1;
  for (const [k, v] of c.entries()) {
    const key = k as string;
    if (key === 'cert') {
      if (typeof v !== 'string') throw new JwtFault('cert constraint: must be a string');
      keys = parseKeys(v);
    } else if (key === 'secret' || key === 'alg' || key === 'iss' || key === 'aud') {
      if (typeof v !== 'string') throw new JwtFault(`${key} constraint: must be a string`);
      if (key === 'secret') secret = v;
      else if (key === 'alg') alg = v;
      else if (key === 'iss') iss = v;
      else aud = v;
    } else if (key === 'time') time = timeOf(v);
    else throw new JwtFault(`unknown token validation constraint: ${key}`);
  }
  if (time === -1) time = Number(ctx.now());
  const nKeys = (keys !== undefined ? 1 : 0) + (secret !== '' ? 1 : 0);
  if (nKeys > 1) throw new JwtFault('duplicate key constraints');
  if (nKeys < 1) throw new JwtFault('no key constraint');

  let jwt: Value = a[0] as Value;
  let headerObj: ObjectValue;
  let p: string;
  for (;;) {
    const t = splitToken(name, [jwt], 0);
    headerObj = decodeHeader(t, ctx);
    const h = parseHeader(headerObj);
    if (!headerValid(h)) return unverified();
    if (alg !== '' && alg !== h.alg) return unverified();
    const sig = signatureBytes(t.signature, ctx);
    const data = Buffer.from(`${t.header}.${t.payload}`);
    const ok = keys !== undefined ? verifyKeys(keys, h, h.alg, data, sig, true) : ALGS.has(h.alg) && verifyWith(Buffer.from(secret, 'utf8'), h.alg, data, sig);
    if (!ok) return unverified();
    p = decodePayloadText(t, ctx);
    if (h.cty.toLowerCase() === 'jwt') {
      jwt = p;
      continue;
    }
    break;
  }
  const payload = jsonObject(p, ctx);
  if (iss !== '') {
    const v = payload.get('iss');
    if (v === undefined || v !== iss) return unverified();
  }
  const av = payload.get('aud');
  if (av !== undefined) {
    const okAud = typeof av === 'string' ? av === aud : Array.isArray(av) ? av.some((x) => typeof x === 'string' && x === aud) : false;
    if (!okAud) return unverified();
  } else if (aud !== '') return unverified();
  const now = time / 1e9;
  const exp = payload.get('exp');
  if (exp !== undefined) {
    if (!isNumber(exp)) throw new JwtFault('exp value must be a number');
    if (compareNumbers(now, exp) !== -1) return unverified();
  }
  const nbf = payload.get('nbf');
  if (nbf !== undefined) {
    if (!isNumber(nbf)) throw new JwtFault('nbf value must be a number');
    if (compareNumbers(now, nbf) === -1) return unverified();
  }
  return [true, headerObj, payload];
}

/** OPA's commonBuiltinJWTEncodeSign: header and payload bytes as given, signed with the first JWK. */
function encodeSign(headerText: string, payloadText: string, jwkText: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(jwkText);
  } catch (e) {
    throw new JwtFault(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
  const list = doc !== null && typeof doc === 'object' && Array.isArray((doc as { keys?: unknown }).keys) ? (doc as { keys: unknown[] }).keys : [doc];
  if (list.length === 0) throw new JwtFault('no keys found in JWK set');
  const jwk = list[0] as Record<string, unknown>;
  let header: unknown;
  try {
    // fastjson takes any run of number characters for a number (`e`), which has no `alg`
    header = /^\s*[-+0-9eE.]+\s*$/.test(headerText) ? 0 : JSON.parse(headerText);
  } catch (e) {
    // OPA's jwx reads the header with fastjson, whose own detail follows this prefix; only the
    // empty header's detail is reproduced exactly
    const detail = headerText.trim() === '' ? 'cannot parse empty string; unparsed tail: ""' : (e as Error).message;
    throw new JwtFault(`missing or invalid 'alg' header: cannot parse JSON: ${detail}`);
  }
  const h = (header !== null && typeof header === 'object' ? header : {}) as Record<string, unknown>;
  const alg = h.alg;
  if (typeof alg !== 'string') {
    const got = alg === null ? 'null' : Array.isArray(alg) ? 'array' : typeof alg === 'object' ? 'object' : typeof alg;
    throw new JwtFault(`missing or invalid 'alg' header: ${alg === undefined ? 'jwsbb: header "alg" not found' : `value doesn't contain string; it contains ${got}`}`);
  }
  if (!ALGS.has(alg)) throw new JwtFault(`unknown JWS algorithm: ${alg}`);
  const typ = h.typ;
  if (typeof typ !== 'string' || typ === 'JWT') {
    try {
      JSON.parse(payloadText);
    } catch {
      throw new JwtFault('type is JWT but payload is not JSON');
    }
  }
  const input = `${Buffer.from(headerText).toString('base64url')}.${Buffer.from(payloadText).toString('base64url')}`;
  const data = Buffer.from(input);
  const hash = HASH[alg.slice(2)];
  let sig: Buffer;
  try {
    if (alg.startsWith('HS')) {
      if (jwk.kty !== 'oct' || typeof jwk.k !== 'string') throw new Error(`invalid key type for ${alg}`);
      sig = createHmac(hash!, Buffer.from(jwk.k, 'base64url')).update(data).digest();
    } else {
      const key = createPrivateKey({ key: jwk as never, format: 'jwk' });
      if (alg === 'EdDSA') sig = cryptoSign(null, data, key);
      else if (alg.startsWith('PS')) sig = cryptoSign(hash!, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(alg.slice(2)) / 8 });
      else if (alg.startsWith('ES')) sig = cryptoSign(hash!, data, { key, dsaEncoding: 'ieee-p1363' });
      else sig = cryptoSign(hash!, data, key);
    }
  } catch (e) {
    // jwx's own wording of a key that does not fit the algorithm is not reproduced
    throw new JwtFault(`jwsbb.Sign: invalid key for ${alg}: ${(e as Error).message}`);
  }
  return `${input}.${sig.toString('base64url')}`;
}

export const JWT_BUILTINS: BuiltinDef[] = [
  {
    name: 'io.jwt.encode_sign',
    arity: 3,
    fn: wrap('io.jwt.encode_sign', (a) => encodeSign(marshalJson(a[0] as Value), marshalJson(a[1] as Value), marshalJson(a[2] as Value))),
  },
  {
    name: 'io.jwt.encode_sign_raw',
    arity: 3,
    fn: wrap('io.jwt.encode_sign_raw', (a) => {
      const name = 'io.jwt.encode_sign_raw';
      const jwk = str(name, a, 2);
      return encodeSign(str(name, a, 0), str(name, a, 1), jwk);
    }),
  },
  { name: 'io.jwt.decode', arity: 1, fn: wrap('io.jwt.decode', (a, ctx) => decode('io.jwt.decode', a, ctx)) },
  { name: 'io.jwt.decode_verify', arity: 2, nondeterministic: true, fn: wrap('io.jwt.decode_verify', decodeVerify) },
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'].map((alg) => verifyAsym(`io.jwt.verify_${alg.toLowerCase()}`, alg)),
  ...['HS256', 'HS384', 'HS512'].map((alg) => verifyHs(`io.jwt.verify_${alg.toLowerCase()}`, alg)),
];

registerBuiltins(JWT_BUILTINS);
