/**
 * The governance graph of one estate, as indexes built once from a catalog and a manifest:
 * Server -EXPOSES-> Tool, Agent -CAN_CALL-> Tool, Tool -READS|WRITES-> Resource,
 * Resource|Tool -GOVERNED_BY-> Policy. Every query reads these indexes; none walks the raw input.
 *
 * Tool references resolve here: `server::tool` as written (a tool no server exposes is drift);
 * a bare name only when exactly one server exposes it (two or more is AMBIGUOUS_TOOL, an error).
 * Resource URIs are keyed by `resourceKey` (RFC 3986 normalisation), so every index, row and
 * evidence path names a resource by its key.
 */
import { ToolgateError, formatAt, type SourceAt } from '../errors.ts';
import type { Catalog } from '../catalog/types.ts';
import type { Agent, DataAccess, ExpectedException, Grant, GovernedBy, Manifest, Policy } from '../manifest/types.ts';
import type { DenyReach, ToolResolution } from './types.ts';
import type { Writable } from './writable.types.ts';
import { reportProvenance } from './provenance.ts';
import { resourceKey } from './resource-uri.ts';
import { indexGrants, reindexGrants, type ResolvedGrant } from './grant-index.ts';
import { addingDrift, catalogTools, type ToolNode } from './catalog-tools.ts';
import { push } from './map-lists.ts';

export type { ToolNode } from './catalog-tools.ts';

export type { ResolvedGrant } from './grant-index.ts';

export interface Notice {
  readonly kind: 'DRIFT' | 'UNUSED_EXCEPTION';
  readonly message: string;
  readonly at: SourceAt;
}

export interface ResolvedAccess extends DataAccess {
  readonly tool_key: string;
  readonly index: number;
}

export interface ResolvedBinding extends GovernedBy {
  /** `tool` when the target is a tool reference; otherwise a resource URI. */
  readonly target_kind: 'tool' | 'resource';
  readonly target_key: string;
}

export interface Estate {
  readonly manifest: Manifest;
  readonly catalog: Catalog;
  readonly tools: ReadonlyMap<string, ToolNode>;
  readonly exposedByName: ReadonlyMap<string, readonly string[]>;
  readonly agents: ReadonlyMap<string, Agent>;
  readonly policies: ReadonlyMap<string, Policy>;
  readonly grantsByAgent: ReadonlyMap<string, ReadonlyMap<string, ResolvedGrant>>;
  readonly grantsByTool: ReadonlyMap<string, readonly ResolvedGrant[]>;
  /** Where a resolved grant was written: its index in the manifest's grants. */
  grantIndex(grant: ResolvedGrant): number;
  readonly accessByTool: ReadonlyMap<string, readonly ResolvedAccess[]>;
  readonly accessByResource: ReadonlyMap<string, readonly ResolvedAccess[]>;
  readonly bindingsByTarget: ReadonlyMap<string, readonly ResolvedBinding[]>;
  readonly bindingsByPolicy: ReadonlyMap<string, readonly ResolvedBinding[]>;
  /** Resource keys known to the graph (`resourceKey`): from data_access, governed_by and the catalog's resources. */
  readonly resources: ReadonlySet<string>;
  readonly exceptions: readonly ExpectedException[];
  readonly notices: readonly Notice[];
  /** Every DENY policy a tool reaches (directly or through a resource), whoever calls it. */
  denyReach(toolKey: string): readonly DenyReach[];
  resolveTool(ref: string): ToolResolution;
}

export interface BuildEstateOptions {
  /** Reject the manifest when it references a tool no server exposes (`--strict-drift`): such a grant governs nothing. */
  readonly strictDrift?: boolean;
  /** The estate a watch built at its previous save: its grant indexes (./grant-index.ts) and its data access index are reused where those rows and the catalog's tool names did not change. */
  readonly previous?: Estate;
}

// Copies the schema's fields one by one, as grant-index.ts does for grants: a spread of the parsed
// row costs more than the rest of the index build. An optional field stays absent when the row has none.
function resolvedAccess(d: DataAccess, resource: string, tool_key: string, index: number): ResolvedAccess {
  const ra: Writable<ResolvedAccess> = { tool: d.tool, resource, mode: d.mode, tool_key, index };
  if (d.provenance !== undefined) ra.provenance = d.provenance;
  return ra;
}

export function buildEstate(manifest: Manifest, catalog: Catalog, options: BuildEstateOptions = {}): Estate {
  const built = catalogTools(catalog, options.previous);
  // A shared map is copied before a drift node is added to it.
  let tools = built.tools as Map<string, ToolNode>;
  let toolsShared = built.shared;
  const exposedByName = built.exposedByName;
  const resources = new Set<string>();
  for (const server of catalog.servers) for (const r of server.resources ?? []) resources.add(resourceKey(r.uri));

  const notices: Notice[] = [];
  const ambiguous: { at: SourceAt; text: string }[] = [];
  const duplicates: { at: SourceAt; text: string }[] = [];

  const resolveTool = (ref: string): ToolResolution => {
    if (ref.includes('::')) return tools.has(ref) ? { status: 'found', key: ref } : { status: 'not_found' };
    const keys = exposedByName.get(ref);
    if (!keys || keys.length === 0) return tools.has(ref) ? { status: 'found', key: ref } : { status: 'not_found' };
    if (keys.length > 1) return { status: 'ambiguous', candidates: keys };
    return { status: 'found', key: keys[0]! };
  };

  // The key of the tool a reference names when a server exposes it (a bare name: exactly one), else undefined.
  const exposedOnce = (ref: string): string | undefined => {
    let key: string | undefined = ref;
    if (!ref.includes('::')) {
      const r = resolveTool(ref);
      key = r.status === 'found' ? r.key : undefined;
    }
    const node = key === undefined ? undefined : tools.get(key);
    return node?.exposed === true ? node.key : undefined;
  };

  /**
   * Resolves the tool reference at `section[index].tool` (or `governed_by[index]`), creating a drift
   * node for a tool no server exposes. A `server::tool` a server exposes is the common case and
   * resolves to the node's own key string, so the indexes built here share one string per tool
   * (lookups then compare them by identity); the location is built only for a fault.
   */
  const resolveRef = (ref: string, section: string, index: string | number): string => {
    const exposed = exposedOnce(ref);
    if (exposed !== undefined) return exposed;
    const qualified = ref.includes('::');
    const node = qualified ? tools.get(ref) : undefined;
    if (node !== undefined) return node.key;
    const r = qualified ? ({ status: 'not_found' } as const) : resolveTool(ref);
    if (r.status === 'found') return r.key;
    const path = section === 'governed_by' ? [section, index] : [section, index, 'tool'];
    if (r.status === 'ambiguous') {
      ambiguous.push({ at: manifest.locate(path), text: `tool reference ${JSON.stringify(ref)} is ambiguous: exposed by ${r.candidates.join(', ')}; write it as server::tool` });
      return ref;
    }
    const sep = ref.indexOf('::');
    if (toolsShared) {
      tools = new Map(tools);
      toolsShared = false;
    }
    addingDrift(tools);
    tools.set(ref, { key: ref, server: sep === -1 ? null : ref.slice(0, sep), name: sep === -1 ? ref : ref.slice(sep + 2), exposed: false });
    notices.push({ kind: 'DRIFT', at: manifest.locate(path), message: `${path.join('.')} names tool ${JSON.stringify(ref)}, which no server in the catalog exposes` });
    return ref;
  };

  const agents = new Map(manifest.agents.map((a) => [a.id, a]));
  const policies = new Map(manifest.policies.map((p) => [p.id, p]));

  const previous = options.previous;
  // Every tool reference resolves as it did in the previous estate.
  const resolvesAlike = previous !== undefined && (built.sameNames || sameToolNames(previous.catalog, catalog));
  const grants =
    (resolvesAlike ? reindexGrants(manifest, { byAgent: previous.grantsByAgent, byTool: previous.grantsByTool, position: previous.grantIndex }, exposedOnce) : undefined) ??
    indexGrants(
      manifest,
      (ref, index) => resolveRef(ref, 'grants', index),
      (index, firstIndex, first) => {
        const g = manifest.grants[index]!;
        duplicates.push({ at: manifest.locate(['grants', index]), text: `grant ${g.agent} -> ${g.tool} duplicates grants[${firstIndex}] (same tool ${first.tool_key})` });
      },
      () => notices.length === 0 && ambiguous.length === 0 && duplicates.length === 0,
    );
  const grantsByAgent = grants.byAgent;
  const grantsByTool = grants.byTool;

  // The previous estate's data access index holds when its rows are the very rows read now and every
  // tool they name is exposed (so none is drift, whose notice this estate must give again).
  const keptAccess =
    resolvesAlike &&
    previous.manifest.data_access.length === manifest.data_access.length &&
    manifest.data_access.every((d, i) => d === previous.manifest.data_access[i]) &&
    [...previous.accessByTool.keys()].every((key) => tools.get(key)?.exposed === true);
  const indexAccess = () => {
    const byTool = new Map<string, ResolvedAccess[]>();
    const byResource = new Map<string, ResolvedAccess[]>();
    manifest.data_access.forEach((d, index) => {
      const key = resolveRef(d.tool, 'data_access', index);
      const resource = resourceKey(d.resource);
      const ra = resolvedAccess(d, resource, key, index);
      push(byTool, key, ra);
      push(byResource, resource, ra);
    });
    return { byTool, byResource };
  };
  const { byTool: accessByTool, byResource: accessByResource } = keptAccess ? { byTool: previous.accessByTool, byResource: previous.accessByResource } : indexAccess();
  for (const resource of accessByResource.keys()) resources.add(resource);

  const bindingsByTarget = new Map<string, ResolvedBinding[]>();
  const bindingsByPolicy = new Map<string, ResolvedBinding[]>();
  for (const b of manifest.governed_by) {
    // A target is a tool when written `server::tool`, or when it is a bare name a server exposes
    // that nothing uses as a resource URI; everything else is a resource URI.
    const isTool = b.target.includes('::') || (exposedByName.has(b.target) && !resources.has(resourceKey(b.target)));
    const targetKey = isTool ? resolveRef(b.target, 'governed_by', b.target) : resourceKey(b.target);
    if (!isTool) resources.add(targetKey);
    const rb: ResolvedBinding = { ...b, target_kind: isTool ? 'tool' : 'resource', target_key: targetKey };
    push(bindingsByTarget, targetKey, rb);
    push(bindingsByPolicy, b.policy, rb);
  }

  manifest.expected_exceptions.forEach((x, i) => {
    if (x.tool === '*' || x.tool.endsWith('::*')) return;
    const r = resolveTool(x.tool);
    if (r.status === 'ambiguous') ambiguous.push({ at: manifest.locate(['expected_exceptions', i, 'tool']), text: `tool reference ${JSON.stringify(x.tool)} is ambiguous: exposed by ${r.candidates.join(', ')}` });
    else if (r.status === 'not_found') notices.push({ kind: 'DRIFT', at: manifest.locate(['expected_exceptions', i, 'tool']), message: `expected_exceptions.${i}.tool names tool ${JSON.stringify(x.tool)}, which no server in the catalog exposes` });
  });

  for (const [code, faults] of [['AMBIGUOUS_TOOL', ambiguous], ['DUPLICATE_ENTRY', duplicates]] as const) {
    if (faults.length === 0) continue;
    throw new ToolgateError(code, faults[0]!.text, { at: [faults[0]!.at], details: faults.length > 1 ? faults.map((f) => `${formatAt(f.at)}: ${f.text}`) : [] });
  }
  const drift = notices.filter((n) => n.kind === 'DRIFT');
  if (options.strictDrift && drift.length > 0) {
    throw new ToolgateError('STRICT_DRIFT', `${drift.length} governance reference(s) name tools no server exposes (--strict-drift): ${drift[0]!.message}`, {
      at: [drift[0]!.at],
      details: drift.map((n) => `${formatAt(n.at)}: DRIFT: ${n.message}`),
    });
  }

  const denyCache = new Map<string, DenyReach[]>();
  const denyReach = (key: string): readonly DenyReach[] => {
    let rows = denyCache.get(key);
    if (rows) return rows;
    rows = [];
    for (const b of bindingsByTarget.get(key) ?? []) {
      const p = policies.get(b.policy)!;
      if (p.effect !== 'DENY') continue;
      rows.push({
        tool_key: key,
        resource: null,
        via: 'GOVERNED_BY',
        policy: p.id,
        scope: p.scope ?? null,
        provenance: reportProvenance(b.provenance),
        ...(b.provenance ? { policy_provenance: reportProvenance(b.provenance) } : {}),
      });
    }
    for (const a of accessByTool.get(key) ?? []) {
      for (const b of bindingsByTarget.get(a.resource) ?? []) {
        if (b.target_kind !== 'resource') continue;
        const p = policies.get(b.policy)!;
        if (p.effect !== 'DENY') continue;
        rows.push({
          tool_key: key,
          resource: a.resource,
          via: a.mode,
          policy: p.id,
          scope: p.scope ?? null,
          provenance: reportProvenance(a.provenance),
          ...(b.provenance ? { policy_provenance: reportProvenance(b.provenance) } : {}),
        });
      }
    }
    rows.sort(compareReach);
    denyCache.set(key, rows);
    return rows;
  };

  const estate: Estate = {
    manifest,
    catalog,
    tools,
    exposedByName,
    agents,
    policies,
    grantsByAgent,
    grantsByTool,
    grantIndex: grants.position,
    accessByTool,
    accessByResource,
    bindingsByTarget,
    bindingsByPolicy,
    resources,
    exceptions: manifest.expected_exceptions,
    notices,
    denyReach,
    resolveTool,
  };
  return estate;
}

/** Whether two catalogs expose the same tools under the same servers, in the same order: every tool reference resolves alike in both. */
function sameToolNames(a: Catalog, b: Catalog): boolean {
  if (a === b) return true;
  if (a.servers.length !== b.servers.length) return false;
  return a.servers.every((s, i) => {
    const t = b.servers[i]!;
    const [x, y] = [s.tools ?? [], t.tools ?? []];
    return s.name === t.name && x.length === y.length && x.every((tool, j) => tool.name === y[j]!.name);
  });
}

function compareReach(a: DenyReach, b: DenyReach): number {
  return cmp(a.resource ?? '', b.resource ?? '') || cmp(a.via, b.via) || cmp(a.policy, b.policy);
}

export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
