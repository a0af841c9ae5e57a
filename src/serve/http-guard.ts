/**
 * What `toolgate serve --http` checks before a request reaches the MCP transport, as pure
 * functions of the request's headers and body text (cli/ does the reading).
 *
 * - `Host` must name the loopback address the server listens on, and an `Origin`, when a browser
 *   sends one, must be that same loopback origin: a page on another site that rebinds its DNS name
 *   to 127.0.0.1 sends its own Host and Origin, and is refused (MCP transports, security warning:
 *   "Servers MUST validate the Origin header").
 * - A POST body is at most MAX_BODY_BYTES and one JSON-RPC message or a batch of 1 to MAX_BATCH;
 *   anything else is answered with a JSON-RPC error (JSON-RPC 2.0 §5.1, §6: an empty batch is an
 *   invalid request), never passed on.
 */
import { parseJsonInput } from '../canonical/strict-json.ts';
import { isToolgateError } from '../errors.ts';

/** Largest POST body read, in bytes (a tools/call with its arguments is a few KB). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Most messages in one JSON-RPC batch. */
export const MAX_BATCH = 32;

export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;

/** A refusal: the HTTP status and the JSON-RPC error that goes in the body. */
export interface Refusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

/** Host names the server answers under, for the port it is bound to. */
export function loopbackHosts(port: number): readonly string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/**
 * Refuses a Host that is not the server's loopback name, and an Origin that is not the server's
 * own loopback origin. No Origin (a non-browser client) is fine.
 * @example checkOrigin({ host: '127.0.0.1:8080', origin: 'https://evil.example' }, 8080)?.status // 403
 */
export function checkOrigin(headers: { readonly host?: string | undefined; readonly origin?: string | undefined }, port: number): Refusal | undefined {
  const hosts = loopbackHosts(port);
  if (!hosts.includes(headers.host ?? '')) return { status: 403, code: JSONRPC_INVALID_REQUEST, message: `forbidden Host ${JSON.stringify(headers.host ?? '')}: this server answers only on ${hosts.join(' or ')}` };
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  if (!hosts.some((h) => origin === `http://${h}`)) {
    return { status: 403, code: JSONRPC_INVALID_REQUEST, message: `forbidden Origin ${JSON.stringify(origin)}: only http://${hosts.join(' or http://')} may call this server` };
  }
  return undefined;
}

/** The JSON-RPC error object for a refusal (id null: the request's id is unknown or absent). */
export function refusalBody(r: Refusal): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: r.code, message: r.message } });
}

/**
 * Parses a POST body and checks its shape: one message object, or a batch of 1 to MAX_BATCH
 * message objects. Returns the parsed value to hand to the transport, or the refusal.
 */
export function checkBody(bytes: Uint8Array): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly refusal: Refusal } {
  let value: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, refusal: { status: 400, code: JSONRPC_PARSE_ERROR, message: 'parse error: the request body is not UTF-8' } };
  }
  try {
    value = parseJsonInput(text, 'request body');
  } catch (e) {
    if (!isToolgateError(e)) throw e;
    return { ok: false, refusal: { status: 400, code: JSONRPC_PARSE_ERROR, message: `parse error: ${e.message}` } };
  }
  const invalid = (message: string) => ({ ok: false as const, refusal: { status: 400, code: JSONRPC_INVALID_REQUEST, message } });
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid('invalid request: an empty batch');
    if (value.length > MAX_BATCH) return invalid(`invalid request: a batch of ${value.length} messages (at most ${MAX_BATCH})`);
    const i = value.findIndex((m) => m === null || typeof m !== 'object' || Array.isArray(m));
    if (i !== -1) return invalid(`invalid request: batch item ${i} is not a JSON-RPC message object`);
    return { ok: true, value };
  }
  if (value === null || typeof value !== 'object') return invalid('invalid request: the body must be a JSON-RPC message object or a batch');
  return { ok: true, value };
}
