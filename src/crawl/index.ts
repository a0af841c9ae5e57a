/**
 * `toolgate crawl`'s library side: servers files and registry entries in, one deterministic
 * catalog out (crawl-fleet.ts), secrets redacted.
 */
export { parseServersFile, resolveLaunch, type ServersFile, type ServerSpec, type Launch, type LaunchContext } from './servers.ts';
export { parseRegistryServerJson, registryServerSpec, type RegistryServer } from './registry-server-json.ts';
export { crawlServer, type CrawlServerOptions } from './crawl-server.ts';
export { assembleCatalog, catalogFileBytes, rfc3339FromEpoch, sortServerLists } from './catalog.ts';
export { redact, redactValue, secretForms } from './redact.ts';

export { crawlFleet, DEFAULT_TIMEOUT_MS, DEFAULT_CONCURRENCY, type CrawlOptions, type CrawlResult } from './crawl-fleet.ts';
