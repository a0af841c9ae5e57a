/**
 * Crawls one MCP server (MCP lifecycle: initialize, then `tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`, each followed through `nextCursor`) into one catalog
 * entry. Only lists for capabilities the server declares are asked for. Every outcome is a value:
 * a server that cannot be started, hangs past its deadline, closes the connection or answers with
 * a malformed list gives `status: "failed"` with a redacted `error`, never an exception.
 *
 * The SDK's `Client` does the protocol and validates every answer against MCP's result schemas;
 * what goes into the catalog is the raw result as the server sent it (captured by `RecordingTransport`),
 * so fields the SDK does not model are kept and a hint the server stops sending is simply absent.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ListPromptsResultSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesResultSchema,
  ListToolsResultSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '../canonical/json-object.ts';
import type { CatalogServer } from '../catalog/types.ts';
import { checkCrawledEntry } from './catalog.ts';
import { credentialsFromUrl, redact, redactValue, tail, urlSecrets } from './redact.ts';
import type { Launch } from './servers.ts';

export interface CrawlServerOptions {
  /** Deadline for the whole crawl of this server, from spawn to the last list (ms). */
  readonly timeoutMs: number;
  /** How toolgate introduces itself in `initialize`. */
  readonly clientInfo: { readonly name: string; readonly version: string };
  /**
   * Quote the tail of a failed stdio server's stderr (redacted) in its error text. Off by default:
   * a child's stderr is the likeliest place for a secret to appear in a form nobody configured.
   */
  readonly quoteServerStderr?: boolean;
  /** Stops a spawned server at once (SIGKILL), given its pid: the caller owns the process table. */
  readonly killServer: (pid: number) => void;
}

/** Most pages followed in one list before the server is declared to be looping. */
export const MAX_PAGES = 10_000;
/** Longest error text kept in a catalog entry. */
const MAX_ERROR_CHARS = 1200;

type ListKind = 'tools' | 'resources' | 'resourceTemplates' | 'prompts';

const LISTS: readonly { kind: ListKind; method: string; capability: 'tools' | 'resources' | 'prompts'; schema: typeof ListToolsResultSchema | typeof ListResourcesResultSchema | typeof ListResourceTemplatesResultSchema | typeof ListPromptsResultSchema }[] = [
  { kind: 'tools', method: 'tools/list', capability: 'tools', schema: ListToolsResultSchema },
  { kind: 'resources', method: 'resources/list', capability: 'resources', schema: ListResourcesResultSchema },
  { kind: 'resourceTemplates', method: 'resources/templates/list', capability: 'resources', schema: ListResourceTemplatesResultSchema },
  { kind: 'prompts', method: 'prompts/list', capability: 'prompts', schema: ListPromptsResultSchema },
];

/**
 * Wraps a transport and keeps the raw `result` of the last response to each request method, so
 * the catalog records what the server sent rather than what the SDK's schemas model.
 */
class RecordingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly methodById = new Map<string | number, string>();
  readonly lastResult = new Map<string, unknown>();
  closed = false;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => {
      this.closed = true;
      this.onclose?.();
    };
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (message, extra) => {
      const m = message as { id?: string | number; result?: unknown };
      if (m.id !== undefined && 'result' in m) {
        const method = this.methodById.get(m.id);
        if (method !== undefined) this.lastResult.set(method, m.result);
      }
      this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  /** Pid of the spawned child (stdio), kept after the SDK forgets it so a failed crawl can stop it. */
  pid: number | undefined;

  async start(): Promise<void> {
    await this.inner.start();
    const pid = (this.inner as { pid?: number | null }).pid;
    if (typeof pid === 'number') this.pid = pid;
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as { id?: string | number; method?: string };
    if (m.id !== undefined && typeof m.method === 'string') this.methodById.set(m.id, m.method);
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

class Deadline extends Error {}

/**
 * Crawls one server. Never throws: failures are entries with `status: "failed"`, as are lists
 * that break the catalog's rules (checkCrawledEntry). Every known secret of the launch (and of
 * its URL) is masked in the entry, whatever the server sent.
 *
 * @example
 * const entry = await crawlServer(launch, { timeoutMs: 20_000, clientInfo: { name: 'toolgate', version: '0.1.0' }, killServer: (pid) => process.kill(pid, 'SIGKILL') });
 * entry.status // 'ok' | 'failed'
 */
export async function crawlServer(launch: Launch, options: CrawlServerOptions): Promise<CatalogServer> {
  const secrets = [...launch.secrets];
  let entry: CatalogServer;
  try {
    entry = await crawl(launch, options, secrets);
  } catch (e) {
    // A URL the transport cannot take (crawl itself returns every other failure as a value).
    entry = { name: launch.name, status: 'failed', error: redact(`cannot connect: ${e instanceof Error ? e.message : String(e)}`, secrets) };
  }
  // Checked on what the server sent, then redacted before anything is written (a server may echo
  // a secret in its lists or its info); a mask can break a list's shape (a secret that is also a
  // field name), which fails the entry too, its text masked again.
  return redactEntry(checkCrawledEntry(redactEntry(checkCrawledEntry(entry), secrets)), secrets);
}

/** The entry with every known secret masked; the name (the servers file's) and status (toolgate's) kept. */
function redactEntry(entry: CatalogServer, secrets: readonly string[]): CatalogServer {
  const { name, status, error, ...sent } = entry;
  const out: Record<string, unknown> = { name, status, ...redactValue(sent, secrets) };
  if (typeof error === 'string') out.error = redact(error, secrets);
  return out as unknown as CatalogServer;
}

/** The transport for an HTTP launch: userinfo moved into an Authorization header, its values made secrets. */
function httpTransport(launch: Extract<Launch, { kind: 'http' }>, secrets: string[]): Transport {
  const given = new URL(launch.url);
  secrets.push(...urlSecrets(given));
  const { url, authorization } = credentialsFromUrl(given);
  const headers: Record<string, string> = { ...launch.headers };
  if (authorization !== undefined) {
    secrets.push(authorization, authorization.slice('Basic '.length));
    // A header the servers file sets explicitly wins over the URL's userinfo.
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.Authorization = authorization;
  }
  return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
}

async function crawl(launch: Launch, options: CrawlServerOptions, secrets: string[]): Promise<CatalogServer> {
  let stderr = '';
  let phase = 'start';
  let stdio: StdioClientTransport | undefined;
  let inner: Transport;
  if (launch.kind === 'stdio') {
    stdio = new StdioClientTransport({ command: launch.command, args: [...launch.args], env: { ...launch.env }, cwd: launch.cwd, stderr: 'pipe' });
    // Captured, never passed through: it is only quoted (redacted, tail only) in an error text.
    stdio.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-16_384);
    });
    inner = stdio;
  } else {
    inner = httpTransport(launch, secrets);
  }
  const transport = new RecordingTransport(inner);
  const client = new Client({ name: options.clientInfo.name, version: options.clientInfo.version }, { capabilities: {} });
  // The SDK reports transport errors here too; the request that fails carries the reason.
  client.onerror = () => {};

  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new Deadline());
    }, options.timeoutMs);
  });
  const requestOptions = { signal: abort.signal, timeout: options.timeoutMs, maxTotalTimeout: options.timeoutMs };

  const failed = (reason: string, extra: Partial<CatalogServer> = {}): CatalogServer => {
    // Redacted whole before the tail is cut, so a secret at the cut is never left half shown.
    const quoted = options.quoteServerStderr !== true || stderr.trim() === '' ? '' : `; server stderr: ${tail(redact(stderr, secrets))}`;
    let text = redact(`${reason}${quoted}`, secrets);
    if (text.length > MAX_ERROR_CHARS) text = `${text.slice(0, MAX_ERROR_CHARS)}…`;
    return { name: launch.name, ...extra, status: 'failed', error: text };
  };

  let failedRun = true;
  let protocolVersion: string | undefined;
  let serverInfo: CatalogServer['server_info'];
  try {
    const work = (async (): Promise<CatalogServer> => {
      phase = 'initialize';
      await client.connect(transport, requestOptions);
      const init = transport.lastResult.get('initialize') as { protocolVersion?: unknown; serverInfo?: unknown } | undefined;
      protocolVersion = typeof init?.protocolVersion === 'string' ? init.protocolVersion : undefined;
      serverInfo = isJsonObject(init?.serverInfo) ? (init.serverInfo as CatalogServer['server_info']) : undefined;
      const caps = client.getServerCapabilities() ?? {};
      const entry: Record<string, unknown> = { name: launch.name, status: 'ok' };
      if (protocolVersion !== undefined) entry.protocol_version = protocolVersion;
      if (serverInfo !== undefined) entry.server_info = serverInfo;
      for (const list of LISTS) {
        if (!caps[list.capability]) continue;
        phase = list.method;
        entry[list.kind] = await listAll(client, transport, list.method, list.kind, list.schema, requestOptions);
      }
      return entry as unknown as CatalogServer;
    })();
    work.catch(() => {});
    const entry = await Promise.race([work, deadline]);
    failedRun = false;
    return entry;
  } catch (e) {
    const extra: Partial<CatalogServer> = {};
    if (protocolVersion !== undefined) (extra as Record<string, unknown>).protocol_version = protocolVersion;
    if (serverInfo !== undefined) (extra as Record<string, unknown>).server_info = serverInfo;
    if (e instanceof Deadline || abort.signal.aborted) return failed(`timed out after ${options.timeoutMs} ms during ${phase}`, extra);
    return failed(describeFailure(e, phase, transport.closed), extra);
  } finally {
    clearTimeout(timer);
    // A server that failed gets no grace period. The SDK's polite close (end stdin, wait, SIGTERM)
    // runs on unref'd timers, and after a failed initialize it has already forgotten the child, so
    // a short-lived crawler could exit first and orphan a hung server: stop it here by its pid.
    if (failedRun && transport.pid !== undefined) {
      try {
        options.killServer(transport.pid);
      } catch {
        // already gone
      }
    }
    await client.close().catch(() => {});
  }
}

async function listAll(
  client: Client,
  transport: RecordingTransport,
  method: string,
  kind: ListKind,
  schema: (typeof LISTS)[number]['schema'],
  requestOptions: { signal: AbortSignal; timeout: number; maxTotalTimeout: number },
): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    await client.request({ method, params: cursor === undefined ? {} : { cursor } } as never, schema, requestOptions);
    const raw = transport.lastResult.get(method) as Record<string, unknown> | undefined;
    const got = raw?.[kind];
    if (!Array.isArray(got)) throw new Error(`${method} result has no ${kind} array`);
    items.push(...got);
    const next = raw?.nextCursor;
    if (next === undefined || next === null) return items;
    if (typeof next !== 'string') throw new Error(`${method} returned a non-string nextCursor`);
    if (seen.has(next)) throw new Error(`${method} pagination loops: nextCursor repeats after ${page + 1} pages`);
    seen.add(next);
    cursor = next;
  }
  throw new Error(`${method} pagination exceeded ${MAX_PAGES} pages`);
}

function describeFailure(e: unknown, phase: string, closed: boolean): string {
  const err = e as { message?: unknown; code?: unknown; name?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  if (err?.code === 'ENOENT' || err?.code === 'EACCES') return `cannot start the server command (${String(err.code)})`;
  if (closed && /connection closed/i.test(message)) return `server closed the connection during ${phase}`;
  // zod issues arrive as JSON; keep them, flattened to one line.
  let flat = message.replace(/\s+/g, ' ').trim();
  // The streamable HTTP transport puts the HTTP status in `code` (JSON-RPC codes are negative).
  if (typeof err?.code === 'number' && err.code >= 100 && err.code < 600 && !flat.includes(String(err.code))) flat = `HTTP ${err.code}: ${flat}`;
  return flat.startsWith(phase) ? flat : `${phase} failed: ${flat}`;
}
