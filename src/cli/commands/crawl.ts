/** `toolgate crawl`: connect to the MCP servers of a servers file and write what they advertise as a catalog. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseCatalog } from '../../catalog/parse.ts';
import type { CatalogServer } from '../../catalog/types.ts';
import { ToolgateError } from '../../errors.ts';
import { DEFAULT_TIMEOUT_MS, catalogFileBytes, crawlFleet, parseRegistryServerJson, parseServersFile, registryServerSpec, type ServerSpec } from '../../crawl/index.ts';
import { intOption, parseCommandArgs, usageError } from '../args.ts';
import { createdAtFromEnv } from '../clock.ts';
import type { Command } from '../command.ts';
import { EXIT } from '../exit-codes.ts';
import { readTextFile, writeFileAtomic } from '../fs-io.ts';
import { CATALOG_OUTPUT, assertReplaceableOutput } from '../output-guard.ts';

const usage = `usage: toolgate crawl (--servers servers.yaml | --server-json server.json ...) --out catalog.json [--timeout-ms N] [--concurrency N]
                     [--merge catalog.static.json ...] [--server-stderr]

Connects to every MCP server listed in the servers file (stdio: command, args, env, cwd;
streamable HTTP: url, headers from environment variables), initializes, and lists the tools,
resources, resource templates and prompts each declares, following pagination. Writes one
deterministic catalog (servers and lists sorted, canonical key order; crawled_at from
SOURCE_DATE_EPOCH when set, else the current time).

In command, args, cwd and literal env values: \${SERVERS_DIR} is the servers file's folder, \${CRAWL_TMPDIR} a fresh
empty folder made for this crawl and removed after it. A relative cwd is taken from the servers
file's folder (also the default cwd); a relative command with a slash from the cwd.

Options:
  --servers FILE      servers file (YAML or JSON; schemas/servers.schema.json)
  --server-json FILE  an MCP Registry server.json (schema 2025-09-29 or later; repeatable), crawled
                      under its reverse-DNS name, with name, version and repository recorded as
                      the entry's "registry". The first package or remote that runs here is used:
                      an npm stdio package via npx --no --offline NAME@VERSION in the working
                      folder (the project's node_modules; never downloaded), or a streamable-http
                      remote. pypi and oci packages, HTTP packages and SSE are not launched: such
                      a server is a failed entry saying why. Environment variables, headers and
                      arguments take the crawler's environment variable of the same name; a secret
                      (isSecret) only from there, and it is never written anywhere.
  --out FILE          catalog to write (atomically); an existing FILE is replaced only when it is
                      empty or a catalog toolgate crawl wrote (else OUTPUT_NOT_ARTIFACT, exit 1)
  --timeout-ms N      deadline per server, spawn to last list (default ${DEFAULT_TIMEOUT_MS});
                      a server's own timeout_ms in the servers file overrides it
  --concurrency N     servers crawled at once (default 4)
  --merge FILE        hand-written catalog whose servers are added (repeatable); a name both
                      crawled and merged is refused
  --server-stderr     quote the tail of a failed stdio server's stderr in its error (redacted);
                      by default a child's stderr never reaches the catalog or stderr

Exit: 0 all servers crawled; 1 one or more failed (the catalog is still written, each failed
server recorded with status "failed" and why) or an input was refused; 2 usage.
Env values, header values, a URL's userinfo, query values and token-like path segments never reach
the catalog or stderr, as given or re-encoded (percent, form, JSON, hex, base64); one shorter than
4 characters is masked where it stands alone. A url with userinfo (https://user:pass@host/mcp) is
crawled with it sent as an Authorization: Basic header unless the entry sets Authorization itself.`;

export const crawlCommand: Command = {
  name: 'crawl',
  summary: 'crawl MCP servers (stdio or streamable HTTP) into a deterministic catalog',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      args,
      {
        servers: { type: 'string' },
        out: { type: 'string' },
        'timeout-ms': { type: 'string' },
        concurrency: { type: 'string' },
        merge: { type: 'string', multiple: true },
        'server-json': { type: 'string', multiple: true },
        'server-stderr': { type: 'boolean' },
      },
      usage,
    );
    if (positionals.length > 0) usageError(`unexpected argument ${JSON.stringify(positionals[0])}`, usage);
    if (values.servers === undefined && (values['server-json'] ?? []).length === 0) usageError('--servers or --server-json is required', usage);
    if (values.out === undefined) usageError('--out is required', usage);
    const timeoutMs = intOption(values['timeout-ms'], 'timeout-ms', usage) ?? DEFAULT_TIMEOUT_MS;
    if (timeoutMs === 0) usageError('--timeout-ms must be positive', usage);
    const concurrency = intOption(values.concurrency, 'concurrency', usage);
    if (concurrency === 0) usageError('--concurrency must be positive', usage);

    const serversPath = values.servers === undefined ? undefined : resolve(io.cwd, values.servers);
    const outPath = resolve(io.cwd, values.out);
    // Refused before any server is started: a crawl can take minutes.
    assertReplaceableOutput(outPath, CATALOG_OUTPUT);
    const listed: ServerSpec[] = serversPath === undefined ? [] : [...parseServersFile(values.servers!, readTextFile(serversPath)).servers];
    for (const file of values['server-json'] ?? []) {
      const spec = registryServerSpec(parseRegistryServerJson(file, readTextFile(resolve(io.cwd, file))), { env: io.env, cwd: io.cwd });
      if (listed.some((s) => s.name === spec.name)) {
        throw new ToolgateError('DUPLICATE_ENTRY', `${file}: server ${JSON.stringify(spec.name)} is already listed by another --servers or --server-json input`, { at: [{ file }] });
      }
      listed.push(spec);
    }
    const servers = { servers: listed };
    const extra: CatalogServer[] = [];
    for (const m of values.merge ?? []) extra.push(...parseCatalog(m, readTextFile(resolve(io.cwd, m))).servers);
    const crawledAt = createdAtFromEnv(io.env);

    const crawlTmpDir = mkdtempSync(join(tmpdir(), 'toolgate-crawl-'));
    let result;
    let crawled = 0;
    io.progress?.report('servers crawled', crawled, listed.length);
    try {
      result = await crawlFleet(servers, {
        onServer: () => io.progress?.report('servers crawled', ++crawled, listed.length),
        serversDir: serversPath === undefined ? io.cwd : dirname(serversPath),
        crawlTmpDir,
        env: io.env,
        timeoutMs,
        ...(concurrency === undefined ? {} : { concurrency }),
        crawledAt,
        extra,
        quoteServerStderr: values['server-stderr'] === true,
        killServer: (pid) => process.kill(pid, 'SIGKILL'),
      });
    } finally {
      rmSync(crawlTmpDir, { recursive: true, force: true });
    }
    const crawledNames = new Set(servers.servers.map((s) => s.name));
    for (const s of result.catalog.servers) {
      if (!crawledNames.has(s.name)) continue;
      io.stderr(s.status === 'failed' ? `crawl: ${s.name}: failed: ${s.error}\n` : `crawl: ${s.name}: ok (${counts(s)})\n`);
    }
    writeFileAtomic({ path: outPath, flag: '--out' }, catalogFileBytes(result.catalog));
    if (result.failed.length > 0) {
      io.stderr(`crawl: ${result.failed.length} of ${servers.servers.length} servers failed: ${result.failed.join(', ')}\n`);
      return EXIT.FAILED;
    }
    return EXIT.OK;
  },
};

function counts(s: CatalogServer): string {
  const parts: string[] = [];
  if (s.tools) parts.push(`${s.tools.length} tools`);
  if (s.resources) parts.push(`${s.resources.length} resources`);
  if (s.resourceTemplates) parts.push(`${s.resourceTemplates.length} resource templates`);
  if (s.prompts) parts.push(`${s.prompts.length} prompts`);
  return parts.length > 0 ? parts.join(', ') : 'no lists declared';
}
