/**
 * What OPA's status and decision-log plugins POST to a bundle service, checked before anything is
 * appended: bodies bounded before and after gunzip, JSON parsed, and the shape OPA sends required.
 * Status (https://www.openpolicyagent.org/docs/management-status): one JSON object per POST with
 * `labels {id, version}` and `bundles {<name>: {active_revision, ...}}`. Decision logs
 * (https://www.openpolicyagent.org/docs/management-decision-logs): a gzip-compressed JSON array of
 * events `{labels, decision_id, bundles, path, input, result, timestamp, ...}`.
 *
 * Pure: bytes in, values out; the caller appends them.
 */
import { rfc3339Ms } from '../parse/rfc3339.ts';
import { gunzipSync } from 'node:zlib';
import { isJsonObject } from '../canonical/json-object.ts';
import { ToolgateError } from '../errors.ts';

export interface ReportLimits {
  /** Largest accepted request body as sent (bytes). */
  readonly maxBodyBytes: number;
  /** Largest accepted body after gunzip (bytes): a gzip bomb stops here. */
  readonly maxInflatedBytes: number;
}

export const DEFAULT_REPORT_LIMITS: ReportLimits = { maxBodyBytes: 1024 * 1024, maxInflatedBytes: 16 * 1024 * 1024 };

export type ReportKind = 'status' | 'logs';

function bad(kind: ReportKind, message: string): never {
  throw new ToolgateError('REPORT_INVALID', `POST /${kind}: ${message}`);
}

/** The body as JSON text: gunzipped when `Content-Encoding: gzip`, within the limits. */
export function reportText(kind: ReportKind, body: Uint8Array, contentEncoding: string | undefined, limits: ReportLimits = DEFAULT_REPORT_LIMITS): string {
  if (body.length > limits.maxBodyBytes) bad(kind, `body of ${body.length} bytes exceeds the ${limits.maxBodyBytes}-byte limit`);
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  let raw: Uint8Array = body;
  if (enc === 'gzip') {
    try {
      raw = gunzipSync(body, { maxOutputLength: limits.maxInflatedBytes });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') bad(kind, `body inflates beyond the ${limits.maxInflatedBytes}-byte limit`);
      bad(kind, `body is not valid gzip (${code ?? (e as Error).message})`);
    }
  } else if (enc !== '' && enc !== 'identity') {
    bad(kind, `unsupported Content-Encoding ${JSON.stringify(contentEncoding)} (gzip or none)`);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    bad(kind, 'body is not valid UTF-8');
  }
}

function parse(kind: ReportKind, text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    bad(kind, `body is not JSON: ${(e as Error).message}`);
  }
}

/** One status report: an object with `labels.id` and, when present, `bundles` of objects. */
export function parseStatusReport(text: string): Record<string, unknown> {
  const v = parse('status', text);
  if (!isJsonObject(v)) bad('status', 'expected a JSON object');
  if (!isJsonObject(v.labels) || typeof v.labels.id !== 'string') bad('status', 'expected labels.id (a string)');
  if (v.bundles !== undefined) {
    if (!isJsonObject(v.bundles)) bad('status', 'expected bundles to be an object');
    for (const [name, b] of Object.entries(v.bundles)) {
      if (!isJsonObject(b)) bad('status', `bundles.${name} is not an object`);
      if (b.active_revision !== undefined && typeof b.active_revision !== 'string') bad('status', `bundles.${name}.active_revision is not a string`);
    }
  }
  return v;
}

/** A batch of decision-log events: an array of objects, each with decision_id, timestamp and labels. */
export function parseDecisionLogBatch(text: string): Record<string, unknown>[] {
  const v = parse('logs', text);
  if (!Array.isArray(v)) bad('logs', 'expected a JSON array of decision events');
  v.forEach((e, i) => {
    if (!isJsonObject(e)) bad('logs', `event ${i} is not an object`);
    if (typeof e.decision_id !== 'string' || e.decision_id === '') bad('logs', `event ${i}: expected decision_id (a string)`);
    if (typeof e.timestamp !== 'string' || rfc3339Ms(e.timestamp) === undefined) bad('logs', `event ${i}: expected timestamp (RFC 3339)`);
    if (!isJsonObject(e.labels)) bad('logs', `event ${i}: expected labels (an object)`);
  });
  return v as Record<string, unknown>[];
}
