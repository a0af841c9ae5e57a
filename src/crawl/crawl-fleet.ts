/**
 * Every server of a servers file, crawled concurrently (a few at a time), each under its own
 * deadline, into one deterministic catalog. One server failing never loses the others; the result
 * says which failed.
 */
import type { Catalog, CatalogServer } from '../catalog/types.ts';
import { assembleCatalog } from './catalog.ts';
import { crawlServer } from './crawl-server.ts';
import { resolveLaunch, type LaunchContext, type ServersFile } from './servers.ts';

export const DEFAULT_TIMEOUT_MS = 20_000;
export const DEFAULT_CONCURRENCY = 4;

export interface CrawlOptions extends LaunchContext {
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  /** RFC 3339 time recorded as `crawled_at` (the caller reads SOURCE_DATE_EPOCH). */
  readonly crawledAt: string;
  /** Hand-written entries merged in (servers that cannot be crawled). */
  readonly extra?: readonly CatalogServer[];
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Quote a failed server's stderr (redacted) in its error; off by default. */
  readonly quoteServerStderr?: boolean;
  /** Stops a spawned server that failed its crawl at once, given its pid (SIGKILL). */
  readonly killServer: (pid: number) => void;
  /** Called once per server when its crawl ends (for progress lines; entries hold no secrets). */
  readonly onServer?: (entry: CatalogServer) => void;
}

export interface CrawlResult {
  readonly catalog: Catalog;
  /** Names of servers whose crawl failed, sorted. */
  readonly failed: readonly string[];
}

/** Crawls every server of `servers` and assembles the catalog. */
export async function crawlFleet(servers: ServersFile, options: CrawlOptions): Promise<CrawlResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const clientInfo = options.clientInfo ?? { name: 'toolgate-crawl', version: '0.1.0' };
  const specs = servers.servers;
  // Refuse a name clash with the merged catalog before spawning anything.
  assembleCatalog(specs.map((s) => ({ name: s.name })), options.crawledAt, options.extra);
  const results: CatalogServer[] = new Array(specs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < specs.length) {
      const i = next++;
      const spec = specs[i]!;
      const launch = resolveLaunch(spec, options);
      const entry: CatalogServer =
        'error' in launch ? { name: spec.name, status: 'failed', error: launch.error } : await crawlServer(launch, { timeoutMs: spec.timeout_ms ?? timeoutMs, clientInfo, quoteServerStderr: options.quoteServerStderr === true, killServer: options.killServer });
      results[i] = spec.registry === undefined ? entry : { ...entry, registry: spec.registry };
      options.onServer?.(entry);
    }
  };
  const n = Math.max(1, Math.min(options.concurrency ?? DEFAULT_CONCURRENCY, specs.length));
  await Promise.all(Array.from({ length: n }, worker));
  const catalog = assembleCatalog(results, options.crawledAt, options.extra);
  const failed = results.filter((r) => r.status === 'failed').map((r) => r.name).sort();
  return { catalog, failed };
}
