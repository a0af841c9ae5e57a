/**
 * The catalog: what each MCP server advertises, field names as MCP lists them
 * (`inputSchema`, `annotations.readOnlyHint`, `uriTemplate`, ...). Schema: schemas/catalog.schema.json.
 */

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
  readonly [extra: string]: unknown;
}

export interface CatalogTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations?: ToolAnnotations;
  readonly [extra: string]: unknown;
}

export interface CatalogResource {
  readonly uri: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly [extra: string]: unknown;
}

export interface CatalogResourceTemplate {
  readonly uriTemplate: string;
  readonly name?: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly [extra: string]: unknown;
}

export interface CatalogPrompt {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly unknown[];
  readonly [extra: string]: unknown;
}

/**
 * Who a server is by the MCP Registry (its server.json): reverse-DNS name, version, the source
 * repository (its forge id survives renames, so a re-created repository is told apart), and which
 * package or remote the crawl launched.
 */
export interface CatalogRegistryIdentity {
  readonly name: string;
  readonly version: string;
  readonly repository?: { readonly url: string; readonly source: string; readonly id?: string; readonly subfolder?: string };
  readonly launched?: { readonly registryType: string; readonly identifier: string; readonly version: string } | { readonly remote: string; readonly type: string };
}

export interface CatalogServer {
  readonly name: string;
  /** Present when the server was read from an MCP Registry server.json. */
  readonly registry?: CatalogRegistryIdentity;
  readonly protocol_version?: string;
  readonly server_info?: { readonly name?: string; readonly version?: string; readonly title?: string; readonly [extra: string]: unknown };
  /** Crawl outcome; absent in hand-written catalogs, which count as `ok`. */
  readonly status?: 'ok' | 'failed';
  readonly error?: string;
  readonly tools?: readonly CatalogTool[];
  readonly resources?: readonly CatalogResource[];
  readonly resourceTemplates?: readonly CatalogResourceTemplate[];
  readonly prompts?: readonly CatalogPrompt[];
}

export interface Catalog {
  readonly kind?: 'toolgate.catalog';
  readonly schema_version?: 1;
  readonly crawled_at?: string;
  readonly servers: readonly CatalogServer[];
}

export const CATALOG_KIND = 'toolgate.catalog';
export const CATALOG_SCHEMA_VERSION = 1;

/** The qualified key of a tool: `server::tool`. */
export function toolKey(server: string, tool: string): string {
  return `${server}::${tool}`;
}

/** The four MCP annotation hints, self-claims a server makes about its own tool. */
export const ANNOTATION_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
export type AnnotationHint = (typeof ANNOTATION_HINTS)[number];

/** The hints a tool's server actually sent as booleans (absent or non-boolean hints are left out). */
export function hintsSent(annotations: ToolAnnotations | undefined): Partial<Record<AnnotationHint, boolean>> {
  const sent: Partial<Record<AnnotationHint, boolean>> = {};
  for (const h of ANNOTATION_HINTS) {
    const v = annotations?.[h];
    if (typeof v === 'boolean') sent[h] = v;
  }
  return sent;
}
