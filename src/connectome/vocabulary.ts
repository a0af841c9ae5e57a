/**
 * The connectome's closed vocabulary (reference: beam_mcp docs/connectome.md), at our schema
 * version 4: version 3's words plus the `resource_template` node kind. Anything outside these
 * lists is refused by the graph builder, never corrected.
 */

/** The schema version toolgate writes by default. */
export const SCHEMA_VERSION = 4 as const;
/** Versions a graph may be read from: 3 (a BEAM host's bytes) or 4. */
export const READABLE_SCHEMA_VERSIONS: readonly number[] = [3, 4];
/**
 * Versions the bytes may be written at: 4 by default; 3, beam_mcp's, for a graph whose nodes are
 * all of version 3's kinds, so a BEAM host's graph read in comes back out byte for byte.
 */
export const WRITABLE_SCHEMA_VERSIONS = [3, 4] as const;
export type SchemaVersion = (typeof WRITABLE_SCHEMA_VERSIONS)[number];

export const NODE_KINDS = ['server', 'tool', 'resource', 'resource_template', 'prompt', 'process', 'module'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];
/** Version 3's node kinds: no `resource_template`. */
export const NODE_KINDS_V3: readonly NodeKind[] = ['server', 'tool', 'resource', 'prompt', 'process', 'module'];

export const EDGE_KINDS = ['invoke', 'read', 'message', 'supervise'] as const;
export type EdgeKind = (typeof EDGE_KINDS)[number];

export const SIGNS = ['allow', 'deny', 'hold', 'ungoverned', 'unset'] as const;
export type Sign = (typeof SIGNS)[number];

export const PROVENANCES = ['declared', 'observed'] as const;
/** Where a connectome edge comes from (the manifest's `Provenance` is an authored edge's evidence). */
export type ConnectomeProvenance = (typeof PROVENANCES)[number];

/** Levels, finest first: `mfa` < `module` < `boundary` < `server`. */
export const LEVELS = ['mfa', 'module', 'boundary', 'server'] as const;
export type Level = (typeof LEVELS)[number];

export const BOUNDARY_SOURCES = ['application', 'boundary_module'] as const;
export type BoundarySource = (typeof BOUNDARY_SOURCES)[number];

const member =
  <T extends string>(list: readonly T[]) =>
  (v: unknown): v is T =>
    typeof v === 'string' && (list as readonly string[]).includes(v);

export const isNodeKind = member(NODE_KINDS);
export const isEdgeKind = member(EDGE_KINDS);
export const isSign = member(SIGNS);
export const isProvenance = member(PROVENANCES);
export const isLevel = member(LEVELS);
export const isBoundarySource = member(BOUNDARY_SOURCES);

/** Rank of a level: 0 for `mfa` (finest) to 3 for `server` (coarsest). */
export function levelRank(level: Level): number {
  return LEVELS.indexOf(level);
}
