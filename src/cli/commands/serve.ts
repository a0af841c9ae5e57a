/** `toolgate serve [--http PORT]`: the query surface as an MCP server, over stdio or streamable HTTP on loopback. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ToolgateError } from '../../errors.ts';
import { GraphStateTracker, SERVE_TOOL_NAMES, createServeServer, type DiffFiles, type DiffInputs, type LoadedEstate } from '../../serve/server.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import type { CliIo, Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { ESTATE_OPTIONS, ESTATE_USAGE, loadEstate, locateEstate, type EstateSource } from '../estate-input.ts';
import { FileKeyedCache, type CacheStats } from '../estate-cache.ts';
import { readDiffInputs } from './diff.ts';

const usage = `usage: toolgate serve [estate] [--http PORT]
Serves toolgate's queries as MCP tools (${SERVE_TOOL_NAMES.join(', ')}), each read-only and
idempotent, answering with structured content that carries the graph_state and input digests it
was computed from. The estate is kept between calls while its files are unchanged (same device,
inode, size, mtime and ctime) and read again as soon as one changes; an input that cannot be read
gives a typed error envelope {error_kind, retryable, message, code}. The diff tool's file paths
are resolved against the working directory.
  --http PORT   streamable HTTP on http://127.0.0.1:PORT/mcp (PORT 0 picks a free port; the
                address is printed on stderr) instead of stdio
${ESTATE_USAGE}`;

const SERVER_INFO = { name: 'toolgate', version: '0.1.0' };

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the queries as an MCP server (stdio, or streamable HTTP on loopback with --http)',
  usage,
  async run(args: string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseCommandArgs(args, { ...ESTATE_OPTIONS, http: { type: 'string' } }, usage);
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    const port = intOption(values.http, 'http', usage);
    if (port !== undefined && port > 65535) usageError(`--http expects a port number, got ${port}`, usage);
    const source = locateEstate(values, io);
    const strictDrift = values['strict-drift'] ?? false;
    const { load } = cachedEstateLoader(source, io, strictDrift);
    // Refuse a broken estate at start (and warm the cache); after that each call reports its own faults.
    for (const n of load().notices) io.stderr(`toolgate: ${n}\n`);
    const loadDiff = (files: DiffFiles): DiffInputs => readDiffInputs(io, files);
    const state = new GraphStateTracker();
    return port === undefined ? serveStdio(load, loadDiff, state) : serveHttp(port, load, loadDiff, state, io);
  },
};

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

async function serveStdio(load: () => LoadedEstate, loadDiff: (files: DiffFiles) => DiffInputs, state: GraphStateTracker): Promise<number> {
  const server = createServeServer({ load, loadDiff, serverInfo: SERVER_INFO, state });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  // The client ends the session by closing our stdin (MCP stdio lifecycle).
  process.stdin.once('end', () => void server.close());
  await closed;
  return EXIT.OK;
}

async function serveHttp(port: number, load: () => LoadedEstate, loadDiff: (files: DiffFiles) => DiffInputs, state: GraphStateTracker, io: CliIo): Promise<number> {
  let bound = port;
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    // Loopback only, and only under a loopback Host name: refuses DNS-rebinding requests.
    const host = req.headers.host ?? '';
    if (![`127.0.0.1:${bound}`, `localhost:${bound}`].includes(host)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden host\n');
      return;
    }
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found; the MCP endpoint is /mcp\n');
      return;
    }
    // Stateless: one server and transport per request, sharing the graph-state tracker.
    const server = createServeServer({ load, loadDiff, serverInfo: SERVER_INFO, state });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
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
