/**
 * OPA's bundle service API (https://www.openpolicyagent.org/docs/management-bundles), served from
 * the artifacts of compile outputs, plus the status and decision-log receivers an OPA fleet reports
 * to. OPA's HTTP downloader (open-policy-agent/opa v1/download/download.go) is the client:
 *
 * - `GET|HEAD /bundles/<name>`: the bundle tarball with `ETag: "<sha256 of the bytes>"`; `304` when
 *   `If-None-Match` names the current ETag. The reply's `Content-Type` is
 *   `application/vnd.openpolicyagent.bundles`, which is how OPA learns that this server long-polls.
 * - Long polling: a request whose `Prefer` header carries `wait=N` and whose ETag is current is
 *   held until a new revision is committed or N seconds (capped) pass, then answered 200 or 304.
 * - Delta bundles: when the client's ETag is the base a delta was compiled from and the delta
 *   leads to the current bundle, the (much smaller) delta is served instead; OPA applies it to the
 *   snapshot it holds (`patch.json`). Any other client gets the full bundle.
 * - `POST /status[/<partition>]`, `POST /logs[/<partition>]`: validated (src/bundle-service/reports.ts),
 *   bounded, appended by the caller's sink; a sink failure (a full disk) answers 507 so OPA keeps
 *   the events and retries, and nothing is acknowledged that was not written.
 *
 * Only the configured bundle names are reachable: a request path is matched, never joined to a
 * folder, so `..`, encoded slashes and other names are 404, and there is no listing. With a token
 * configured, every request needs `Authorization: Bearer <token>`.
 *
 * No I/O of its own: the caller passes the bundle source and the report sink (src/cli/).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isToolgateError } from '../errors.ts';
import { DEFAULT_REPORT_LIMITS, parseDecisionLogBatch, parseStatusReport, reportText, type ReportKind, type ReportLimits } from './reports.ts';

export const BUNDLE_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles';

/** One bundle as served now: the full tarball and, when one leads here, a delta from a base. */
export interface ServedBundle {
  readonly name: string;
  /** sha256 hex of `bytes`; the ETag, quoted. */
  readonly etag: string;
  readonly revision: string | null;
  readonly bytes: Uint8Array;
  readonly delta?: { readonly fromEtag: string; readonly bytes: Uint8Array };
}

export interface BundleSource {
  /** The committed bundle of that name, or undefined for a name not served. */
  get(name: string): ServedBundle | undefined;
  /** Calls `listener(name)` after a new revision of `name` is committed; returns an unsubscribe. */
  subscribe(listener: (name: string) => void): () => void;
}

export interface ReportSink {
  /** Appends the records as JSON lines, durably, or throws (the request then fails with 5xx). */
  append(kind: ReportKind, records: readonly unknown[]): Promise<void>;
}

export interface BundleHandlerOptions {
  readonly source: BundleSource;
  /** Without a sink, POST /status and /logs answer 404. */
  readonly sink?: ReportSink;
  /** Bearer token every request must present; none means no authentication. */
  readonly token?: string;
  /** Longest a long-poll request is held, whatever `wait=` asks (seconds, default 60). */
  readonly maxWaitSeconds?: number;
  readonly limits?: ReportLimits;
  /** One line per request served, for the operator's log (never a token or a body). */
  readonly log?: (line: string) => void;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Strips `W/` and quotes from each entity tag in an `If-None-Match` header. */
export function parseIfNoneMatch(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'))
    .filter((t) => t !== '');
}

/** The `wait=N` preference of a `Prefer` header, in seconds, or undefined. */
export function preferredWait(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(/[;,]/)) {
    const m = /^\s*wait\s*=\s*(\d{1,6})\s*$/.exec(part);
    if (m) return Number(m[1]);
  }
  return undefined;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

async function readBody(req: IncomingMessage, max: number): Promise<Uint8Array | 'too-large'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req as AsyncIterable<Buffer>) {
    size += c.length;
    if (size > max) return 'too-large';
    chunks.push(c);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** The request handler for `http.createServer`. */
export function createBundleHandler(options: BundleHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const maxWait = options.maxWaitSeconds ?? 60;
  const limits = options.limits ?? DEFAULT_REPORT_LIMITS;
  const tokenDigest = options.token !== undefined ? digest(`Bearer ${options.token}`) : undefined;
  const log = options.log ?? (() => {});

  const send = (res: ServerResponse, status: number, headers: Record<string, string> = {}, body?: Uint8Array | string) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(status, { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache', ...headers, 'Content-Length': String(bytes?.length ?? 0) });
    res.end(bytes);
  };
  const error = (res: ServerResponse, status: number, message: string, extra: Record<string, string> = {}) =>
    send(res, status, { 'Content-Type': 'application/json', ...extra }, `${JSON.stringify({ code: status, message })}\n`);

  const authorized = (req: IncomingMessage): boolean => {
    if (!tokenDigest) return true;
    const given = req.headers.authorization;
    return typeof given === 'string' && timingSafeEqual(digest(given), tokenDigest);
  };

  const serveBundle = (req: IncomingMessage, res: ServerResponse, name: string) => {
    const current = options.source.get(name);
    if (!current) return error(res, 404, 'not found');
    const known = parseIfNoneMatch(req.headers['if-none-match'] as string | undefined);
    const wait = preferredWait(req.headers.prefer as string | undefined);
    const reply = (b: ServedBundle) => {
      const headers = { 'Content-Type': BUNDLE_CONTENT_TYPE, ETag: `"${b.etag}"` };
      if (known.includes(b.etag)) {
        log(`${req.method} /bundles/${name} 304 ${b.etag.slice(0, 12)}`);
        return send(res, 304, headers);
      }
      const delta = b.delta && known.includes(b.delta.fromEtag) ? b.delta : undefined;
      const body = delta ? delta.bytes : b.bytes;
      log(`${req.method} /bundles/${name} 200 ${delta ? 'delta' : 'snapshot'} ${b.etag.slice(0, 12)} ${body.length} bytes`);
      return send(res, 200, headers, req.method === 'HEAD' ? undefined : body);
    };
    if (wait === undefined || wait <= 0 || !known.includes(current.etag)) return reply(current);
    // Long poll: hold until a new revision of this bundle is committed, or the wait ends.
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
      if (res.writableEnded || res.destroyed) return;
      reply(options.source.get(name) ?? current);
    };
    const unsubscribe = options.source.subscribe((changed) => {
      if (changed === name && options.source.get(name)?.etag !== current.etag) finish();
    });
    const timer = setTimeout(finish, Math.min(wait, maxWait) * 1000);
    res.once('close', () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      unsubscribe();
    });
  };

  const receive = async (req: IncomingMessage, res: ServerResponse, kind: ReportKind) => {
    if (!options.sink) return error(res, 404, 'not found');
    const body = await readBody(req, limits.maxBodyBytes);
    if (body === 'too-large') {
      log(`POST /${kind} 413`);
      res.setHeader('Connection', 'close');
      return error(res, 413, `body exceeds the ${limits.maxBodyBytes}-byte limit`);
    }
    let records: unknown[];
    try {
      const text = reportText(kind, body, req.headers['content-encoding'] as string | undefined, limits);
      records = kind === 'status' ? [parseStatusReport(text)] : parseDecisionLogBatch(text);
    } catch (e) {
      if (!isToolgateError(e)) throw e;
      log(`POST /${kind} 400 ${e.message}`);
      return error(res, 400, e.message);
    }
    try {
      await options.sink.append(kind, records);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? (isToolgateError(e) ? (e.cause as NodeJS.ErrnoException | undefined)?.code : undefined);
      log(`POST /${kind} 507 ${code ?? (e as Error).message}`);
      return error(res, code === 'ENOSPC' || code === 'EDQUOT' ? 507 : 503, `could not store the ${kind} report; retry later`);
    }
    log(`POST /${kind} 204 ${records.length} record(s)`);
    return send(res, 204);
  };

  return (req, res) => {
    const url = req.url ?? '';
    // The path is matched as sent (no decoding, no normalising): only exact names are served.
    const path = url.split('?')[0]!;
    void (async () => {
      if (!authorized(req)) {
        log(`${req.method} ${path.slice(0, 80)} 401`);
        return error(res, 401, 'unauthorized', { 'WWW-Authenticate': 'Bearer realm="toolgate"' });
      }
      const segments = path.split('/');
      if (segments[0] !== '' ) return error(res, 404, 'not found');
      const [, first, second, ...rest] = segments;
      if (first === 'bundles' && second !== undefined && rest.length === 0 && NAME.test(second)) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return error(res, 405, 'method not allowed', { Allow: 'GET, HEAD' });
        return serveBundle(req, res, second);
      }
      if ((first === 'status' || first === 'logs') && rest.length === 0 && (second === undefined || NAME.test(second))) {
        if (req.method !== 'POST') return error(res, 405, 'method not allowed', { Allow: 'POST' });
        return receive(req, res, first);
      }
      log(`${req.method} ${path.slice(0, 80)} 404`);
      return error(res, 404, 'not found');
    })().catch((e: unknown) => {
      log(`${req.method} ${path.slice(0, 80)} 500 ${(e as Error).message}`);
      if (!res.headersSent) error(res, 500, 'internal error');
      else res.destroy();
    });
  };
}
