/**
 * The estate's tool nodes from a catalog: one per tool a server exposes, keyed `server::tool`, with
 * the keys of each bare tool name. A watch builds an estate per save; when the catalog is the
 * previous estate's own, its maps are shared, and when only some tools' contracts are other
 * objects (a catalog read from its previous version shares every unchanged part), the previous map
 * is copied with those nodes replaced and remembers which keys they were, so a recompile asks
 * `toolChangesSince` instead of comparing every tool. A map is only read once built; a drift node
 * (a reference no server exposes) goes into a copy of a shared map and ends what the map remembers.
 */
import type { Catalog, CatalogServer, CatalogTool } from '../catalog/types.ts';
import { toolKey } from '../catalog/types.ts';
import { push } from './map-lists.ts';

export interface ToolNode {
  readonly key: string;
  readonly server: string | null;
  readonly name: string;
  /** True when a server in the catalog exposes it; false for governance references only (drift). */
  readonly exposed: boolean;
  readonly contract?: CatalogTool;
}

export interface CatalogTools {
  readonly tools: ReadonlyMap<string, ToolNode>;
  readonly exposedByName: ReadonlyMap<string, readonly string[]>;
  /** The tools map is the previous estate's own: copy it before adding to it. */
  readonly shared: boolean;
  /** The catalog has the previous estate's servers and tool names, in order: every reference resolves alike. */
  readonly sameNames: boolean;
}

/** The tool maps a drift node was added to. */
const withDrift = new WeakSet<ReadonlyMap<string, ToolNode>>();

/** Of a tool map copied from another: that map, and the keys whose node was replaced. */
const derivedFrom = new WeakMap<ReadonlyMap<string, ToolNode>, { readonly from: ReadonlyMap<string, ToolNode>; readonly changed: ReadonlySet<string> }>();

/** Notes that a drift node is being added to `tools` (a map not shared): it no longer differs from its source by catalog tools alone. */
export function addingDrift(tools: ReadonlyMap<string, ToolNode>): void {
  withDrift.add(tools);
  derivedFrom.delete(tools);
}

/** The keys whose node differs between `before` and `now` when `now` was copied from `before` with only those replaced; else undefined. */
export function toolChangesSince(now: ReadonlyMap<string, ToolNode>, before: ReadonlyMap<string, ToolNode>): ReadonlySet<string> | undefined {
  if (now === before) return new Set();
  const d = derivedFrom.get(now);
  return d !== undefined && d.from === before ? d.changed : undefined;
}

/** The catalog's tools by key, and the keys of each bare tool name, sorted. */
function freshTools(catalog: Catalog): CatalogTools {
  const tools = new Map<string, ToolNode>();
  const exposedByName = new Map<string, string[]>();
  for (const server of catalog.servers) {
    for (const t of server.tools ?? []) {
      const key = toolKey(server.name, t.name);
      tools.set(key, { key, server: server.name, name: t.name, exposed: true, contract: t });
      push(exposedByName, t.name, key);
    }
  }
  for (const list of exposedByName.values()) list.sort();
  return { tools, exposedByName, shared: false, sameNames: false };
}

/** A server whose tools cannot have changed in place since it was read: frozen, with its tools list. */
const sealed = (s: CatalogServer) => Object.isFrozen(s) && (s.tools === undefined || Object.isFrozen(s.tools));

/**
 * Which tools of `catalog` have another contract object than in `before` (same servers, tool names
 * and order), or undefined when the two differ in any server or tool name. A sealed server that is
 * the very one read before has the same tools.
 */
function otherContracts(before: Catalog, catalog: Catalog): { server: string; tool: CatalogTool }[] | undefined {
  if (before.servers.length !== catalog.servers.length) return undefined;
  const changed: { server: string; tool: CatalogTool }[] = [];
  for (let i = 0; i < catalog.servers.length; i++) {
    const [b, s] = [before.servers[i]!, catalog.servers[i]!];
    if (b === s && sealed(s)) continue;
    const [x, y] = [b.tools ?? [], s.tools ?? []];
    if (b.name !== s.name || x.length !== y.length) return undefined;
    for (let j = 0; j < y.length; j++) {
      if (x[j]!.name !== y[j]!.name) return undefined;
      if (x[j] !== y[j]) changed.push({ server: s.name, tool: y[j]! });
    }
  }
  return changed;
}

/**
 * The tool maps for `catalog`, from `previous` (the estate built at a watch's previous save, its
 * catalog and maps) when its map holds nothing but its catalog's tools, else built afresh.
 */
export function catalogTools(catalog: Catalog, previous?: { readonly catalog: Catalog; readonly tools: ReadonlyMap<string, ToolNode>; readonly exposedByName: ReadonlyMap<string, readonly string[]> }): CatalogTools {
  if (previous === undefined || withDrift.has(previous.tools)) return freshTools(catalog);
  if (previous.catalog === catalog) {
    let count = 0;
    for (const server of catalog.servers) count += server.tools?.length ?? 0;
    return previous.tools.size === count ? { tools: previous.tools, exposedByName: previous.exposedByName, shared: true, sameNames: true } : freshTools(catalog);
  }
  const changed = otherContracts(previous.catalog, catalog);
  if (changed === undefined) return freshTools(catalog);
  const tools = new Map(previous.tools);
  const keys = new Set<string>();
  for (const { server, tool } of changed) {
    const key = toolKey(server, tool.name);
    // The previous node's key string, so indexes built from either map share it.
    const node = tools.get(key);
    if (node === undefined) return freshTools(catalog);
    tools.set(node.key, { key: node.key, server, name: tool.name, exposed: true, contract: tool });
    keys.add(node.key);
  }
  derivedFrom.set(tools, { from: previous.tools, changed: keys });
  // The same servers and tool names: the same keys for each name.
  return { tools, exposedByName: previous.exposedByName, shared: false, sameNames: true };
}
