/**
 * `providers.aws.sign_req`: an http.send request object signed with AWS Signature Version 4
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html), as OPA signs it: the
 * canonical request over the lower-cased headers plus `host` and `x-amz-date` (and the payload hash
 * for s3 and glacier, the session token when given), HMAC-SHA256 key derivation from the secret, and
 * the time taken from the third operand, so the answer is a pure function of its operands.
 */
import { createHash, createHmac } from 'node:crypto';
import { ObjectValue, SetValue, isNumber, typeName, type Value } from '../value.ts';
import { toBigInt } from '../number-value.ts';
import { BuiltinError, builtinError, registerBuiltins, type BuiltinDef } from './registry.ts';
import { formatValue } from './core.ts';
import { requestKeysFault } from './http-request.ts';
import { GoURLError, parseGoURL } from './lib/gourl.ts';
import { marshalJson } from './lib/json.ts';

const NAME = 'providers.aws.sign_req';

/** OPA's operand errors: `operand N <message>`, an eval_type_error (N as OPA numbers it, not always 1-based). */
function operandFault(n: number, message: string): BuiltinError {
  return new BuiltinError('eval_type_error', `${NAME}: operand ${n} ${message}`);
}

function mustBe(n: number, want: string, got: Value): BuiltinError {
  return operandFault(n, `must be ${want} but got ${typeName(got)}`);
}

const setText = (names: readonly string[]) => formatValue(new SetValue(names));

const REQUIRED_CONFIG = ['aws_access_key', 'aws_region', 'aws_secret_access_key', 'aws_service'];

/** Headers AWS leaves out of the signature. */
const UNSIGNED_HEADERS: ReadonlySet<string> = new Set(['authorization', 'user-agent', 'x-amzn-trace-id']);

const stringOr = (v: Value | undefined) => (typeof v === 'string' ? v : '');
const hmac = (key: Buffer | string, msg: string) => createHmac('sha256', key).update(msg, 'utf8').digest();
const sha256Hex = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function keysOf(o: ObjectValue): Value[] {
  return o.entries().map(([k]) => k);
}

function checkConfig(config: ObjectValue): void {
  const keys = new Set(keysOf(config).filter((k): k is string => typeof k === 'string'));
  const missing = REQUIRED_CONFIG.filter((k) => !keys.has(k));
  if (missing.length > 0) throw operandFault(2, `missing required AWS config parameters(s): ${setText(missing)}`);
  const invalid = REQUIRED_CONFIG.filter((k) => typeof config.get(k) !== 'string');
  if (invalid.length > 0) throw operandFault(2, `invalid values for required AWS config parameters(s): ${setText(invalid)}`);
}

function checkRequest(req: ObjectValue): void {
  const fault = requestKeysFault(req, formatValue);
  if (fault !== undefined) throw operandFault(1, fault);
}

/** Go's time.Format for `20060102T150405Z` of a Unix time in nanoseconds, UTC. */
function amzDate(ns: bigint): string {
  const ms = ns / 1_000_000n - (ns % 1_000_000n < 0n ? 1n : 0n);
  const d = new Date(Number(ms));
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

function signRequest(a: Value[]): Value {
  const [reqV, configV, timeV] = a as [Value, Value, Value];
  if (!(reqV instanceof ObjectValue)) throw mustBe(1, 'object', reqV);
  if (!(configV instanceof ObjectValue)) throw mustBe(1, 'object', configV);
  checkConfig(configV);
  if (!isNumber(timeV)) throw mustBe(1, 'number', timeV);
  const ns = toBigInt(timeV);
  if (ns === undefined || ns > 2n ** 63n - 1n || ns < -(2n ** 63n)) throw operandFault(3, 'could not convert time_ns value into a unix timestamp');
  checkRequest(reqV);
  const headersV = reqV.get('headers') ?? new ObjectValue();
  if (!(headersV instanceof ObjectValue)) throw mustBe(0, 'object', headersV);
  const url = reqV.get('url');
  const method = reqV.get('method');
  const badParams = [...(typeof method !== 'string' ? ['method'] : []), ...(typeof url !== 'string' ? ['url'] : [])];
  if (badParams.length > 0) throw operandFault(1, `invalid values for required request parameters(s): ${setText(badParams)}`);
  let u;
  try {
    u = parseGoURL(url as string);
  } catch (e) {
    if (e instanceof GoURLError) throw builtinError(NAME, e.message);
    throw e;
  }
  const rawBody = reqV.get('raw_body');
  const body = reqV.get('body');
  const payload = rawBody !== undefined ? stringOr(rawBody) : body !== undefined ? marshalJson(body) : '';
  const unsignedFlag = configV.get('disable_payload_signing');
  if (unsignedFlag !== undefined && typeof unsignedFlag !== 'boolean') throw operandFault(2, "invalid value for 'disable_payload_signing' in AWS config");

  const service = stringOr(configV.get('aws_service'));
  const region = stringOr(configV.get('aws_region'));
  const accessKey = stringOr(configV.get('aws_access_key'));
  const secret = stringOr(configV.get('aws_secret_access_key'));
  const token = configV.get('aws_session_token') === undefined ? '' : stringOr(configV.get('aws_session_token'));
  const contentSha = unsignedFlag === true ? 'UNSIGNED-PAYLOAD' : sha256Hex(Buffer.from(payload, 'utf8'));
  const iso = amzDate(ns);
  const date = iso.slice(0, 8);

  const amzHeaders = new Map<string, string>([['host', u.host], ['x-amz-date', iso]]);
  if (service === 's3' || service === 'glacier') amzHeaders.set('x-amz-content-sha256', contentSha);
  if (token !== '') amzHeaders.set('x-amz-security-token', token);
  const given = headersV.entries().map(([k, v]) => [stringOr(k), stringOr(v)] as const);
  const toSign = new Map(amzHeaders);
  for (const [k, v] of given) if (!UNSIGNED_HEADERS.has(k.toLowerCase())) toSign.set(k.toLowerCase(), v);
  // Go sorts header names by bytes, which for these ASCII names is code-unit order.
  const names = [...toSign.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const canonical = [method as string, u.escapedPath, u.rawQuery, ...names.map((k) => `${k}:${toSign.get(k)}`), '', names.join(';'), contentSha].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${iso}\n${scope}\n${sha256Hex(canonical)}`;
  let key = hmac(`AWS4${secret}`, date);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const signature = hmac(key, stringToSign).toString('hex');

  const headers = new ObjectValue();
  for (const [k, v] of given) headers.set(k, v);
  headers.set('Authorization', `AWS4-HMAC-SHA256 Credential=${accessKey}/${scope},SignedHeaders=${names.join(';')},Signature=${signature}`);
  for (const [k, v] of amzHeaders) headers.set(k, v);
  const out = new ObjectValue();
  for (const [k, v] of reqV.entries()) out.set(k, v);
  out.set('headers', headers);
  return out;
}

export const AWS_BUILTINS: BuiltinDef[] = [{ name: NAME, arity: 3, fn: (a) => signRequest(a) }];

registerBuiltins(AWS_BUILTINS);
