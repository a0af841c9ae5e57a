/**
 * Crawl results -> one deterministic catalog (schemas/catalog.schema.json): servers sorted by name,
 * tools and prompts by name, resources by uri, templates by uriTemplate, keys in RFC 8785 order,
 * and no timestamp but the caller's `crawled_at`. Re-crawling an unchanged server gives the same bytes.
 */
import { CATALOG_KIND, CATALOG_SCHEMA_VERSION, type Catalog, type CatalogServer } from '../catalog/types.ts';
import { parseCatalog } from '../catalog/parse.ts';
import { canonicalString, compareUtf16 } from '../canonical/json.ts';
import { ToolgateError, isToolgateError } from '../errors.ts';

const SORT_KEYS = { tools: 'name', resources: 'uri', resourceTemplates: 'uriTemplate', prompts: 'name' } as const;

/** The entry with its lists sorted by their identity (the list order a server sends carries no meaning). */
export function sortServerLists(entry: CatalogServer): CatalogServer {
  const out: Record<string, unknown> = { ...entry };
  for (const [list, key] of Object.entries(SORT_KEYS)) {
    const items = out[list];
    if (Array.isArray(items)) {
      out[list] = [...items].sort((a, b) => compareUtf16(String((a as Record<string, unknown>)[key]), String((b as Record<string, unknown>)[key])));
    }
  }
  return out as unknown as CatalogServer;
}

/**
 * Checks a crawled `ok` entry against the catalog schema and the duplicate-row rule, and that it
 * has canonical bytes; a server whose lists break them becomes a failed entry saying why.
 */
export function checkCrawledEntry(entry: CatalogServer): CatalogServer {
  if (entry.status !== 'ok') return entry;
  try {
    const text = canonicalString({ servers: [entry] }, { allowFloats: true });
    parseCatalog(`crawl of ${entry.name}`, text);
    return entry;
  } catch (e) {
    if (!isToolgateError(e)) throw e;
    const where = e.at[0]?.path ? ` at ${e.at[0].path.replace(/^\/servers\/0/, '')}` : '';
    const failed: Record<string, unknown> = { name: entry.name, status: 'failed', error: `server returned malformed lists${where}: ${e.message}` };
    if (entry.protocol_version !== undefined) failed.protocol_version = entry.protocol_version;
    if (entry.server_info !== undefined) failed.server_info = entry.server_info;
    return failed as unknown as CatalogServer;
  }
}

/**
 * Assembles the catalog: crawled entries plus hand-written ones (`extra`, e.g. servers that cannot
 * be crawled here). A name present on both sides is refused rather than silently picking one.
 */
export function assembleCatalog(crawled: readonly CatalogServer[], crawledAt: string, extra: readonly CatalogServer[] = []): Catalog {
  const names = new Set(crawled.map((s) => s.name));
  const clash = extra.find((s) => names.has(s.name));
  if (clash) {
    throw new ToolgateError('DUPLICATE_CATALOG_ROW', `server ${JSON.stringify(clash.name)} is both crawled and in the merged catalog; remove it from one of them`);
  }
  const servers = [...crawled.map(sortServerLists), ...extra.map(sortServerLists)].sort((a, b) => compareUtf16(a.name, b.name));
  return { kind: CATALOG_KIND, schema_version: CATALOG_SCHEMA_VERSION, crawled_at: crawledAt, servers };
}

/**
 * The catalog's file bytes: canonical key order and string form (RFC 8785, floats allowed since
 * JSON Schemas in tool contracts may hold them), indented two spaces for review, newline-terminated.
 */
export function catalogFileBytes(catalog: Catalog): Uint8Array {
  const canonical = canonicalString(catalog, { allowFloats: true });
  return new TextEncoder().encode(`${JSON.stringify(JSON.parse(canonical), null, 2)}\n`);
}

/** RFC 3339 UTC time, whole seconds, from seconds since the epoch. @example rfc3339FromEpoch(0) // '1970-01-01T00:00:00Z' */
export function rfc3339FromEpoch(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
