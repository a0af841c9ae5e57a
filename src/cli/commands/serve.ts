/** `toolgate serve [--http PORT]`: the query surface as an MCP server, over stdio or streamable HTTP on loopback. */
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ToolgateError } from '../../errors.ts';
import { COMPAT_DIALECTS, type CompatDialect } from '../../queries/compat-toolgraph.ts';
import { GraphStateTracker, SERVE_TOOL_NAMES, createServeServer, type LoadedEstate, type ServeFiles } from '../../serve/server.ts';
import { JSONRPC_INVALID_REQUEST, MAX_BATCH, MAX_BODY_BYTES, checkBody, checkOrigin, refusalBody, type Refusal } from '../../serve/http-guard.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { enforcementRego } from '../enforcement-rego.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, PACKAGE_ROOT, loadEstate, locateEstate, type EstateSource } from '../estate-input.ts';
import { FileKeyedCache, type CacheStats } from '../estate-cache.ts';
import { GuardedStdioTransport } from '../stdio-transport.ts';
import { createdAtFromEnv } from '../clock.ts';
import { readBytesFile } from '../fs-io.ts';
import { existsSync } from 'node:fs';

const usage = `usage: toolgate serve [estate] [--http PORT] [--diff-root DIR ...] [--compat toolgraph]
Serves toolgate's queries as MCP tools (${SERVE_TOOL_NAMES.join(', ')}), each read-only and
idempotent, answering with structured content that carries the graph_state and input digests it
was computed from. The estate is kept between calls while its files are unchanged (same device,
inode, size, mtime and ctime) and read again as soon as one changes; an input that cannot be read
gives a typed error envelope {error_kind, retryable, message, code}. The file paths a tool takes
(diff's connectomes and window, control_preflight's plan, review_candidates' report, visible_tools'
bundle) are resolved against the working directory and must lie, symlinks followed, under the
estate's folders (those of the manifest and the catalog) or a --diff-root; any other path is refused.
  --http PORT       streamable HTTP on http://127.0.0.1:PORT/mcp (PORT 0 picks a free port; the
                    address is printed on stderr) instead of stdio. Host must be 127.0.0.1:PORT or
                    localhost:PORT and an Origin, if sent, http:// one of those (403 otherwise); a
                    POST body is at most ${MAX_BODY_BYTES} bytes (413) and one JSON-RPC message or a
                    batch of 1 to ${MAX_BATCH} (400 with a JSON-RPC error otherwise). Over stdio the
                    same limits hold per line, each refusal answered with a JSON-RPC error line
  --diff-root DIR   another folder the tools may read files under (repeatable)
  --compat toolgraph  answer as the peer toolgraph's MCP server does, for a consumer written for it:
                    its thirteen tools only (drifted_tools, audit_report, ...; no diff, preflight or
                    other toolgate tool), its argument names (node, include_authorized,
                    only_granted), results unwrapped with graph_generation, graph_instance_id,
                    graph_state and graph_state_verified, its answers' fields and rows
                    (schemas/results/compat-toolgraph.schema.json), its evidence path strings,
                    and only an unreadable input as the typed backend_unavailable error
${ESTATE_USAGE}`;

const SERVER_INFO = { name: 'toolgate', version: '0.1.0' };

let resultSchemas: ReadonlyMap<string, object> | undefined;

/** schemas/results/*.schema.json by result name, read once: the query tools' output schemas. */
function readResultSchemas(): ReadonlyMap<string, object> {
  if (resultSchemas) return resultSchemas;
  const dir = join(PACKAGE_ROOT, 'schemas', 'results');
  const suffix = '.schema.json';
  resultSchemas = new Map(readdirSync(dir).filter((f) => f.endsWith(suffix)).sort().map((f) => [f.slice(0, -suffix.length), JSON.parse(readFileSync(join(dir, f), 'utf8')) as object]));
  return resultSchemas;
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the queries as an MCP server (stdio, or streamable HTTP on loopback with --http)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, http: { type: 'string' }, 'diff-root': { type: 'string', multiple: true }, compat: { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.compat !== undefined && !(COMPAT_DIALECTS as readonly string[]).includes(values.compat)) usageError(`--compat must be one of ${COMPAT_DIALECTS.join(', ')}, got ${JSON.stringify(values.compat)}`, usage);
    const compat = values.compat as CompatDialect | undefined;
    const port = intOption(values.http, 'http', usage);
    if (port !== undefined && port > 65535) usageError(`--http expects a port number, got ${port}`, usage);
    const source = locateEstate(values, io);
    const strictDrift = values['strict-drift'] ?? false;
    const { load } = cachedEstateLoader(source, io, strictDrift);
    // Refuse a broken estate at start (and warm the cache); after that each call reports its own faults.
    for (const n of load().notices) io.stderr(`toolgate: ${n}\n`);
    const roots = diffRoots(source, (values['diff-root'] ?? []).map((d) => resolve(io.cwd, d)));
    const files = confinedFiles(io, roots);
    const createdAt = () => createdAtFromEnv(io.env);
    const serving: Serving = { load, files, createdAt, enforcementRego, state: new GraphStateTracker(), compat };
    return port === undefined ? serveStdio(serving) : serveHttp(port, serving, io);
  },
};

/** The folders the diff tool reads under: the estate's and the --diff-root ones, symlinks resolved. */
function diffRoots(source: EstateSource, extra: readonly string[]): readonly string[] {
  const roots = new Set<string>();
  for (const dir of [dirname(source.manifestPath), dirname(source.catalogPath), ...extra]) {
    try {
      roots.add(realpathSync(dir));
    } catch {
      throw new ToolgateError('USAGE', `--diff-root ${dir}: no such folder`);
    }
  }
  return [...roots];
}

function isUnder(path: string, root: string): boolean {
  const r = relative(root, path);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

/**
 * A call's file, refused unless its real path (symlinks followed) lies under one of `roots`: a
 * client must not read arbitrary files of the machine through serve. A file that does not exist
 * under a root is left for the reader to report as unreadable. The path checked is the path read
 * (a symlink swapped after the check is not followed anew).
 */
function confine(io: CliIo, roots: readonly string[], arg: string, p: string): string {
  const abs = resolve(io.cwd, p);
  // Roots are real paths, so the file is compared by its own real path (or its folder's).
  const own = realpathOrUndefined(abs);
  const real = own ?? join(realpathOrUndefined(dirname(abs)) ?? dirname(abs), basename(abs));
  if (!roots.some((r) => isUnder(real, r))) {
    throw new ToolgateError('USAGE', `${arg} ${JSON.stringify(p)} is outside the folders this server reads (${roots.join(', ')}); start serve with --diff-root DIR to allow another`);
  }
  return own ?? abs;
}

function confinedFiles(io: CliIo, roots: readonly string[]): ServeFiles {
  return {
    read: (arg, p) => readBytesFile(confine(io, roots, arg, p)),
    readOptional: (arg, p) => {
      const path = confine(io, roots, arg, p);
      return existsSync(path) ? readBytesFile(path) : undefined;
    },
    realPath: (arg, p) => confine(io, roots, arg, p),
  };
}

function realpathOrUndefined(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The estate loader `serve` answers from: parsed once and kept while the manifest and catalog
 * files are unchanged (see FileKeyedCache), with the DRIFT and warning lines loading printed
 * collected as notices instead. `stats` counts calls and actual loads.
 */
export function cachedEstateLoader(source: EstateSource, io: CliIo, strictDrift: boolean): { load: () => LoadedEstate; stats: () => CacheStats } {
  const cache = new FileKeyedCache<LoadedEstate>();
  const paths = [source.manifestPath, source.catalogPath];
  return { load: () => cache.get(paths, () => loadQuietly(source, io, strictDrift)), stats: () => cache.stats() };
}

function loadQuietly(source: EstateSource, io: CliIo, strictDrift: boolean): LoadedEstate {
  const notices: string[] = [];
  const quiet: CliIo = { ...io, stdout: () => {}, stderr: (t) => notices.push(...t.split('\n').filter((l) => l !== '').map((l) => l.replace(/^toolgate: /, ''))) };
  return { estate: loadEstate(source, quiet, { strictDrift }), notices };
}

/** What every server of one `serve` process shares. */
interface Serving {
  readonly load: () => LoadedEstate;
  readonly files: ServeFiles;
  readonly createdAt: () => string;
  readonly enforcementRego: typeof enforcementRego;
  readonly state: GraphStateTracker;
  readonly compat: CompatDialect | undefined;
}

async function serveStdio(serving: Serving): Promise<number> {
  const server = createServeServer({ ...serving, serverInfo: SERVER_INFO, resultSchemas: readResultSchemas() });
  const transport = new GuardedStdioTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The client ends the session by closing our stdin (MCP stdio lifecycle).
  process.stdin.once('end', () => void server.close());
  await closed;
  return EXIT.OK;
}

/** The request body's bytes, or undefined once it passes MAX_BODY_BYTES (reading stops there). */
function readBody(req: IncomingMessage): Promise<Uint8Array | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        over = true;
        resolveBody(undefined);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolveBody(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

async function serveHttp(port: number, serving: Serving, io: CliIo): Promise<number> {
  let bound = port;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const refuse = (r: Refusal) => {
      res.writeHead(r.status, { 'content-type': 'application/json' }).end(refusalBody(r));
    };
    // Loopback only, under a loopback Host name and from no foreign Origin: refuses DNS rebinding.
    const foreign = checkOrigin({ host: req.headers.host, origin: req.headers.origin }, bound);
    if (foreign) return refuse(foreign);
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; the MCP endpoint is /mcp\n');
      return;
    }
    const answer = (parsedBody: unknown) => {
      // Stateless: one server and transport per request, sharing the graph-state tracker.
      const server = createServeServer({ ...serving, serverInfo: SERVER_INFO, resultSchemas: readResultSchemas() });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      server
        .connect(transport)
        .then(() => transport.handleRequest(req, res, parsedBody))
        .catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        });
    };
    if (req.method !== 'POST') return answer(undefined);
    readBody(req).then((body) => {
      if (body === undefined) {
        refuse({ status: 413, code: JSONRPC_INVALID_REQUEST, message: `request body larger than ${MAX_BODY_BYTES} bytes` });
        req.destroy();
        return;
      }
      const checked = checkBody(body);
      if (!checked.ok) return refuse(checked.refusal);
      answer(checked.value);
    }, () => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', (e: NodeJS.ErrnoException) => reject(new ToolgateError('USAGE', `--http ${port}: cannot listen on 127.0.0.1: ${e.code ?? e.message}`)));
    http.listen(port, '127.0.0.1', () => resolve());
  });
  bound = (http.address() as AddressInfo).port;
  io.stderr(`toolgate: serving MCP on http://127.0.0.1:${bound}/mcp\n`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      http.closeAllConnections();
      http.close(() => resolve());
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return EXIT.OK;
}
