/** A bundle signature's compact JWS, read as OPA reads it (OPA: v1/bundle/verify.go verifyJWTSignature). */
import { ToolgateError } from '../errors.ts';
import { parseGoJson, type JNode } from './go-json.ts';
import { decodeUtf8, goInt64, goList, goString, goStruct } from './go-struct-json.ts';
import { SIGNATURES_FILE, verifyFail } from './signatures-file.ts';

/** base64url without padding, strictly (Go's RawURLEncoding refuses `=`, `+` and `/`). */
function rawB64url(seg: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(seg) || seg.length % 4 === 1) return undefined;
  return Buffer.from(seg, 'base64url');
}

export interface DecodedToken {
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

export function decodeToken(token: string, source: string): DecodedToken {
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
