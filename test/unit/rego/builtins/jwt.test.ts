/**
 * io.jwt.decode, io.jwt.verify_<alg> and io.jwt.decode_verify against the real opa on generated
 * keys, tokens and constraints, valid and invalid: the same results, and for every case OPA refuses,
 * the same error code and message (strict builtin errors).
 */
import { describe, it, expect, beforeAll } from 'vitest';
import { generateKeyPairSync, createHmac, randomBytes, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithOpa, runOpa } from '../../../helpers/opa.ts';
import { compileModules, fromJSON, toJSON } from '../../../../src/rego/index.ts';
import { RegoError } from '../../../../src/rego/errors.ts';

const NOW_S = 1_900_000_000;
const b64u = (b: Buffer | string) => Buffer.from(b).toString('base64url');

type Alg = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'HS256' | 'HS384' | 'HS512';

interface KeyPair {
  readonly alg: Alg;
  readonly priv: KeyObject | Buffer;
  /** PEM public key, or the secret for HS. */
  readonly pub: string;
  readonly jwk: Record<string, unknown>;
  readonly privJwk: Record<string, unknown>;
}

function makeKey(alg: Alg, kid: string): KeyPair {
  if (alg.startsWith('HS')) {
    const secret = randomBytes(24).toString('hex');
    return { alg, priv: Buffer.from(secret), privJwk: { kty: 'oct', k: b64u(secret), kid, alg }, pub: secret, jwk: { kty: 'oct', k: b64u(secret), kid, alg } };
  }
  const kp =
    alg.startsWith('RS') || alg.startsWith('PS')
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : alg === 'EdDSA'
        ? generateKeyPairSync('ed25519')
        : generateKeyPairSync('ec', { namedCurve: { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg as 'ES256'] });
  return { alg, priv: kp.privateKey, privJwk: { ...(kp.privateKey.export({ format: 'jwk' }) as object), kid, alg }, pub: kp.publicKey.export({ type: 'spki', format: 'pem' }) as string, jwk: { ...(kp.publicKey.export({ format: 'jwk' }) as object), kid, alg } };
}

function signToken(k: KeyPair, header: Record<string, unknown>, payload: unknown, raw?: string): string {
  const input = `${b64u(JSON.stringify({ alg: k.alg, ...header }))}.${raw ?? b64u(JSON.stringify(payload))}`;
  const hash = { '256': 'sha256', '384': 'sha384', '512': 'sha512' }[k.alg.slice(2)] ?? null;
  let sig: Buffer;
  if (k.alg.startsWith('HS')) sig = createHmac(hash!, k.priv as Buffer).update(input).digest();
  else if (k.alg === 'EdDSA') sig = cryptoSign(null, Buffer.from(input), k.priv as KeyObject);
  else if (k.alg.startsWith('PS')) sig = cryptoSign(hash, Buffer.from(input), { key: k.priv as KeyObject, padding: 6, saltLength: 32 });
  else if (k.alg.startsWith('ES')) sig = cryptoSign(hash, Buffer.from(input), { key: k.priv as KeyObject, dsaEncoding: 'ieee-p1363' });
  else sig = cryptoSign(hash, Buffer.from(input), k.priv as KeyObject);
  return `${input}.${b64u(sig)}`;
}

interface Case {
  readonly fn: string;
  readonly a: unknown;
  readonly b?: unknown;
  readonly k?: unknown;
  readonly v?: unknown;
}

const MODULE = `package d

out[i] := r if {
  some i
  c := input.cases[i]
  r := call(c)
}

one := call(input.c)

call(c) := io.jwt.decode(c.a) if c.fn == "decode"
call(c) := io.jwt.decode_verify(c.a, c.b) if c.fn == "decode_verify"
call(c) := io.jwt.encode_sign(c.a, c.b, c.k) if c.fn == "encode_sign"
call(c) := io.jwt.encode_sign_raw(c.a, c.b, c.k) if c.fn == "encode_sign_raw"
call(c) := io.jwt.decode_verify(io.jwt.encode_sign(c.a, c.b, c.k), c.v) if c.fn == "encode_verify"
${['rs256', 'rs384', 'rs512', 'ps256', 'ps384', 'ps512', 'es256', 'es384', 'es512', 'eddsa', 'hs256', 'hs384', 'hs512'].map((a) => `call(c) := io.jwt.verify_${a}(c.a, c.b) if c.fn == "verify_${a}"`).join('\n')}
`;

function generateCases(): Case[] {
  const algs: Alg[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'HS256', 'HS384', 'HS512'];
  const cases: Case[] = [];
  const payload = { sub: 'alice', iss: 'https://issuer', aud: ['mcp', 'other'], exp: NOW_S + 3600, nbf: NOW_S - 60, n: 1.5 };
  for (const alg of algs) {
    const k = makeKey(alg, `k-${alg}`);
    const other = makeKey(alg, `o-${alg}`);
    const fn = `verify_${alg.toLowerCase()}`;
    const good = signToken(k, { typ: 'JWT', kid: k.jwk.kid }, payload);
    const noKid = signToken(k, { typ: 'JWT' }, payload);
    const forged = `${good.split('.')[0]}.${b64u(JSON.stringify({ ...payload, sub: 'mallory' }))}.${good.split('.')[2]}`;
    const isHs = alg.startsWith('HS');
    const keyText = isHs ? k.pub : k.pub;
    cases.push({ fn: 'decode', a: good }, { fn: 'decode', a: noKid });
    cases.push({ fn, a: good, b: keyText }, { fn, a: good, b: other.pub }, { fn, a: forged, b: keyText }, { fn, a: noKid, b: keyText });
    if (!isHs) {
      cases.push({ fn, a: good, b: JSON.stringify(k.jwk) }, { fn, a: good, b: JSON.stringify({ keys: [other.jwk, k.jwk] }) }, { fn, a: noKid, b: JSON.stringify({ keys: [other.jwk, k.jwk] }) });
      cases.push({ fn, a: good, b: JSON.stringify({ keys: [{ ...k.jwk, kid: 'o' }, other.jwk] }) });
    }
    const cert = isHs ? { secret: k.pub } : { cert: k.pub };
    const jwks = isHs ? { secret: k.pub } : { cert: JSON.stringify({ keys: [other.jwk, k.jwk] }) };
    const dv = (b: Record<string, unknown>, a: string = good) => cases.push({ fn: 'decode_verify', a, b });
    dv({ ...cert, time: NOW_S * 1e9 });
    dv({ ...jwks, time: NOW_S * 1e9, alg });
    dv({ ...cert, time: NOW_S * 1e9, alg: alg === 'RS256' ? 'RS384' : 'RS256' });
    dv({ ...cert, time: NOW_S * 1e9, iss: 'https://issuer', aud: 'mcp' });
    dv({ ...cert, time: NOW_S * 1e9, iss: 'https://other' });
    dv({ ...cert, time: NOW_S * 1e9, aud: 'nope' });
    dv({ ...cert, time: NOW_S * 1e9 }, forged);
    dv({ ...cert, time: (NOW_S + 7200) * 1e9 });
    dv({ ...cert, time: (NOW_S - 120) * 1e9 });
    dv(isHs ? { secret: other.pub, time: NOW_S * 1e9 } : { cert: other.pub, time: NOW_S * 1e9 });
    // signing: deterministic algorithms compared as text, every one by verifying what was signed
    const hdr = { alg, typ: 'JWT', kid: 'x<y>&' };
    const deterministic = !alg.startsWith('ES') && !alg.startsWith('PS');
    if (deterministic) {
      cases.push({ fn: 'encode_sign', a: hdr, b: payload, k: k.privJwk }, { fn: 'encode_sign', a: { alg }, b: { z: [1, { b: 'é' }], a: null }, k: { keys: [k.privJwk, other.privJwk] } });
      cases.push({ fn: 'encode_sign_raw', a: JSON.stringify(hdr), b: JSON.stringify(payload), k: JSON.stringify(k.privJwk) });
      cases.push({ fn: 'encode_sign_raw', a: JSON.stringify({ alg, typ: 'text' }), b: 'not json', k: JSON.stringify(k.privJwk) });
    }
    cases.push({ fn: 'encode_verify', a: hdr, b: payload, k: k.privJwk, v: isHs ? { secret: k.pub, time: NOW_S * 1e9 } : { cert: JSON.stringify(k.jwk), time: NOW_S * 1e9 } });
    cases.push({ fn: 'encode_verify', a: hdr, b: payload, k: k.privJwk, v: isHs ? { secret: other.pub, time: NOW_S * 1e9 } : { cert: JSON.stringify(other.jwk), time: NOW_S * 1e9 } });
  }
  // structure and constraint errors
  const k = makeKey('HS256', 'h');
  const good = signToken(k, {}, { a: 1 });
  const [h, p, s] = good.split('.') as [string, string, string];
  for (const a of ['nodots', 'a.b', 'a.b.c.d', `%%%.${p}.${s}`, `${b64u('not json')}.${p}.${s}`, `${b64u('[1]')}.${p}.${s}`, `${b64u('{"alg":"HS256","enc":"A128GCM"}')}.${p}.${s}`, `${h}.%%%.${s}`, `${h}.${b64u('nope')}.${s}`, `${h}.${p}.%%%`, `${b64u('{"alg":1}')}.${p}.${s}`, `${h}.${b64u('[]')}.${s}`, 7]) {
    cases.push({ fn: 'decode', a }, { fn: 'verify_hs256', a, b: k.pub }, { fn: 'decode_verify', a, b: { secret: k.pub, time: 1 } }, { fn: 'verify_rs256', a, b: makeKeyCache.rsa.pub });
  }
  for (const b of [{}, { secret: 'x', cert: makeKeyCache.rsa.pub }, { secret: 1 }, { cert: 2 }, { secret: 'x', time: 'now' }, { secret: 'x', time: -1 }, { secret: 'x', foo: 1 }, { cert: 'not a key' }, { cert: `${makeKeyCache.rsa.pub}extra` }, { cert: '-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n' }, { secret: 'x', iss: 3 }, { secret: 'x', alg: [] }, 'notobj']) {
    cases.push({ fn: 'decode_verify', a: good, b });
  }
  const hsJwk = { kty: 'oct', k: b64u('s3cret') };
  cases.push({ fn: 'encode_sign', a: { alg: 1 }, b: {}, k: hsJwk }, { fn: 'encode_sign', a: { alg: 'RS256' }, b: {}, k: hsJwk });
  cases.push({ fn: 'encode_sign', a: { typ: 'JWT' }, b: {}, k: hsJwk }, { fn: 'encode_sign', a: { alg: 'none' }, b: {}, k: hsJwk }, { fn: 'encode_sign', a: { alg: 'HS256' }, b: {}, k: { keys: [] } });
  cases.push({ fn: 'encode_sign_raw', a: '{"alg":"HS256"}', b: 'nope', k: JSON.stringify(hsJwk) }, { fn: 'encode_sign_raw', a: '{"alg":"HS256","typ":"JWT"}', b: '{"a":1}', k: JSON.stringify(hsJwk) }, { fn: 'encode_sign_raw', a: 1, b: 'x', k: 'y' }, { fn: 'encode_sign_raw', a: 'x', b: 2, k: 3 });
  cases.push({ fn: 'verify_hs256', a: good, b: 5 }, { fn: 'verify_rs256', a: good, b: 'garbage' }, { fn: 'verify_rs256', a: good, b: JSON.stringify({ keys: [] }) });
  const expStr = signToken(k, {}, { exp: 'soon' });
  cases.push({ fn: 'decode_verify', a: expStr, b: { secret: k.pub, time: 1 } });
  const nbfStr = signToken(k, {}, { nbf: 'soon' });
  cases.push({ fn: 'decode_verify', a: nbfStr, b: { secret: k.pub, time: 1 } });
  const crit = signToken(k, { crit: ['x'], x: 1 }, { a: 1 });
  cases.push({ fn: 'decode_verify', a: crit, b: { secret: k.pub, time: 1 } }, { fn: 'decode', a: crit });
  const nested = signToken(k, { cty: 'JWT' }, undefined, b64u(JSON.stringify(good)));
  cases.push({ fn: 'decode', a: nested });
  return cases;
}

const makeKeyCache = { rsa: makeKey('RS256', 'r') };

describeWithOpa('io.jwt against opa eval', () => {
  let cases: Case[];
  let dir: string;
  beforeAll(() => {
    cases = generateCases();
    dir = mkdtempSync(join(tmpdir(), 'toolgate-jwt-'));
    writeFileSync(join(dir, 'd.rego'), MODULE);
  });

  it('agrees on every generated case (results; errors by code and message)', () => {
    expect(cases.length).toBeGreaterThan(250);
    writeFileSync(join(dir, 'input.json'), JSON.stringify({ cases }));
    const r = runOpa(['eval', '--format', 'json', '-d', join(dir, 'd.rego'), '-i', join(dir, 'input.json'), 'data.d.out']);
    expect(r.code, r.stderr).toBe(0);
    const want = (JSON.parse(r.stdout).result?.[0]?.expressions?.[0]?.value ?? {}) as Record<string, unknown>;
    const policy = compileModules([{ name: 'd.rego', text: MODULE }]);
    const got = toJSON(policy.evalRule('data.d.out', { input: fromJSON({ cases }), now: BigInt(NOW_S) * 1_000_000_000n })!) as Record<string, unknown>;
    const diffs: string[] = [];
    for (let i = 0; i < cases.length; i++) {
      if (JSON.stringify(got[i]) !== JSON.stringify(want[i])) diffs.push(`${i} ${JSON.stringify(cases[i]).slice(0, 200)}: opa ${JSON.stringify(want[i])?.slice(0, 200)} engine ${JSON.stringify(got[i])?.slice(0, 200)}`);
    }
    expect(diffs).toEqual([]);
    const verified = Object.values(want).filter((v) => v === true || (Array.isArray(v) && v[0] === true)).length;
    expect(verified).toBeGreaterThan(60);

    // every case OPA leaves undefined: the strict error, one evaluation each
    const failing = cases.map((c, i) => [c, i] as const).filter(([, i]) => !(String(i) in want));
    expect(failing.length).toBeGreaterThan(30);
    const errDiffs: string[] = [];
    for (const [c] of failing) {
      writeFileSync(join(dir, 'one.json'), JSON.stringify({ c }));
      const o = runOpa(['eval', '--format', 'json', '--strict-builtin-errors', '-d', join(dir, 'd.rego'), '-i', join(dir, 'one.json'), 'data.d.one']);
      const oe = (JSON.parse(o.stdout) as { errors?: { code: string; message: string }[] }).errors?.[0];
      let ge: { code: string; message: string } | undefined;
      try {
        policy.evalRule('data.d.one', { input: fromJSON({ c }), strict: true, now: 1n });
      } catch (e) {
        if (e instanceof RegoError) ge = { code: e.regoCode, message: e.regoMessage };
        else throw e;
      }
      // the key parsers' own texts after OPA's prefix are Go's (jwx, x509), not reproduced
      const norm = (m: string | undefined) => m?.replace(/(failed to parse a (PEM|JWK)[^:]*:|jwsbb\.Sign: invalid key).*$/s, '$1');
      if (oe?.code !== ge?.code || norm(oe?.message) !== norm(ge?.message)) errDiffs.push(`${JSON.stringify(c).slice(0, 160)}: opa ${JSON.stringify(oe)} engine ${JSON.stringify(ge)}`);
    }
    expect(errDiffs).toEqual([]);
    if (process.env.TOOLGATE_JWT_REPORT) console.info(`io.jwt: ${cases.length} cases, ${verified} verified, ${failing.length} errors compared`);
  }, 120_000);
});

describe('io.jwt without opa', () => {
  it('decode_verify uses the evaluation clock when no time is given', () => {
    const k = makeKey('HS256', 'h');
    const t = signToken(k, {}, { exp: NOW_S });
    const p = compileModules([{ name: 'j.rego', text: `package j\n\nv := io.jwt.decode_verify(input.t, {"secret": input.s})[0]` }]);
    const at = (s: number) => toJSON(p.evalRule('data.j.v', { input: fromJSON({ t, s: k.pub }), now: BigInt(s) * 1_000_000_000n })!);
    expect(at(NOW_S - 1)).toBe(true);
    expect(at(NOW_S)).toBe(false);
  });
});
