/** `toolgate bundle serve`: OPA's bundle service API over compile output folders (src/bundle-service/handler.ts). */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createBundleHandler } from '../../bundle-service/handler.ts';
import { ToolgateError } from '../../errors.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import { fileReportSink, folderSpec, watchFolders } from '../bundle-folder.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';

const usage = `usage: toolgate bundle serve DIR|NAME=DIR... [--port P] [--host ADDR] [--receive DIR]
                            [--token-env VAR] [--max-wait SECONDS] [--verbose]

Serves OPA's bundle service API from compile output folders, until SIGINT or SIGTERM:
  GET /bundles/NAME   DIR/bundle.tar.gz (NAME defaults to DIR's base name), ETag "<sha256>",
                      304 on If-None-Match, long polling (Prefer: wait=N, held until a new
                      revision or N seconds, at most --max-wait, default 60), and DIR/delta.tar.gz
                      instead to an OPA on the bundle that delta was compiled from
  POST /status, POST /logs   (with --receive DIR) OPA status reports and gzip decision-log batches,
                      validated, size-bounded, appended to DIR/status.jsonl and
                      DIR/decision-logs.jsonl and fsynced before the reply (507 when they cannot be
                      stored, so OPA retries)
A new revision is served once a compile has put a bundle.tar.gz in place that reads as a bundle;
until then (and whenever a folder holds no readable bundle) the previous one stays. Nothing else is
reachable: other paths are 404, and there is no listing.
  --host        address to listen on (default 127.0.0.1); any non-loopback address needs a token
  --port        port (default 8282; 0 picks a free one); the URL is printed as JSON on stdout
  --token-env   environment variable holding a bearer token every request must carry
                (default TOOLGATE_BUNDLE_TOKEN; unset or empty means no authentication)`;

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export const bundleServeCommand: Command = {
  name: 'bundle serve',
  summary: "serve compile outputs over OPA's bundle service API (ETag, long polling, deltas, status and decision-log receivers)",
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        port: { type: 'string' },
        host: { type: 'string' },
        receive: { type: 'string' },
        'token-env': { type: 'string' },
        'max-wait': { type: 'string' },
        verbose: { type: 'boolean' },
      },
      usage,
    );
    if (positionals.length === 0) usageError('at least one compile output folder is required', usage);
    const port = intOption(values.port, 'port', usage) ?? 8282;
    if (port > 65535) usageError(`--port must be at most 65535, got ${port}`, usage);
    const maxWait = intOption(values['max-wait'], 'max-wait', usage) ?? 60;
    const host = values.host ?? '127.0.0.1';
    const tokenVar = values['token-env'] ?? 'TOOLGATE_BUNDLE_TOKEN';
    const token = io.env[tokenVar] !== undefined && io.env[tokenVar] !== '' ? io.env[tokenVar] : undefined;
    if (values['token-env'] !== undefined && token === undefined) usageError(`--token-env ${tokenVar}: the variable is unset or empty`, usage);
    if (!LOOPBACK.has(host) && token === undefined) usageError(`--host ${host} is not loopback: set a bearer token (--token-env) to listen beyond this machine`, usage);
    const specs = positionals.map((p) => {
      try {
        return folderSpec(p, io.cwd);
      } catch (e) {
        if (e instanceof ToolgateError) usageError(e.message, usage);
        throw e;
      }
    });

    const verbose = values.verbose ?? false;
    const source = await watchFolders(specs, {
      warn: io.stderr,
      onCommit: (b) => io.stderr(`toolgate: ${b.name}: serving revision ${b.revision ?? '?'} (etag ${b.etag.slice(0, 12)}${b.delta ? ', with a delta' : ''})\n`),
    });
    const sink = values.receive !== undefined ? fileReportSink(resolve(io.cwd, values.receive)) : undefined;
    const handler = createBundleHandler({
      source,
      ...(sink ? { sink } : {}),
      ...(token !== undefined ? { token } : {}),
      maxWaitSeconds: maxWait,
      log: verbose ? (line) => io.stderr(`toolgate: ${line}\n`) : undefined,
    });
    let bound = port;
    const loopbackHosts = () => new Set([`127.0.0.1:${bound}`, `localhost:${bound}`, `[::1]:${bound}`]);
    const http = createServer((req: IncomingMessage, res: ServerResponse) => {
      // On loopback, only loopback Host names: a page a browser loaded cannot rebind to us.
      if (LOOPBACK.has(host) && !loopbackHosts().has(req.headers.host ?? '')) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden host\n');
        return;
      }
      handler(req, res);
    });
    http.requestTimeout = 0; // long polls outlive node's default request timeout
    http.headersTimeout = 30_000;
    await new Promise<void>((ok, reject) => {
      http.once('error', (e: NodeJS.ErrnoException) => reject(new ToolgateError('USAGE', `cannot listen on ${host}:${port}: ${e.code ?? e.message}`)));
      http.listen(port, host, () => ok());
    });
    bound = (http.address() as AddressInfo).port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
    io.stdout(`${JSON.stringify({
      url,
      bundles: specs.map((s) => {
        const b = source.get(s.name)!;
        return { name: s.name, dir: s.dir, resource: `bundles/${s.name}`, revision: b.revision, etag: b.etag };
      }),
      receive: sink ? sink.files : null,
      auth: token !== undefined ? 'bearer' : 'none',
    })}\n`);
    io.stderr(`toolgate: serving ${specs.map((s) => s.name).join(', ')} on ${url}\n`);
    await new Promise<void>((done) => {
      const stop = () => {
        source.close();
        http.closeAllConnections();
        http.close(() => done());
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return EXIT.OK;
  },
};
