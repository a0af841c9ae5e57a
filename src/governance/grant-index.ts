/**
 * The estate's grant indexes (per agent its tools, per tool its grants), built from the grants, or
 * from the previous build's when the manifest was read in YAML pieces (a watch's next save): a run
 * of grants that is one of the previous build's keeps its resolved grants, wherever it now sits,
 * and only the agents and tools of the grants that changed are indexed again. Both give the same maps,
 * in the same order but for `byTool`'s keys (test/unit/governance/grant-index.test.ts). A resolved
 * grant holds no place in the manifest, so a grant written above a kept run does not touch it;
 * `position` finds it.
 */
import type { Grant, Manifest } from '../manifest/types.ts';
import { rowRuns } from '../manifest/row-runs.ts';

export interface ResolvedGrant extends Grant {
  readonly tool_key: string;
}

export interface GrantIndex {
  readonly byAgent: ReadonlyMap<string, ReadonlyMap<string, ResolvedGrant>>;
  /** Each tool's grants in manifest order. The order of its keys means nothing: every reader looks a tool up, or sorts. */
  readonly byTool: ReadonlyMap<string, readonly ResolvedGrant[]>;
  /** A resolved grant's index in the manifest's grants. */
  position(grant: ResolvedGrant): number;
}

/** A run of the manifest's grants (one YAML piece's items) with its resolved grants. */
interface GrantRun {
  readonly value: readonly Grant[];
  readonly resolved: readonly ResolvedGrant[];
}

/** The agents and tool keys a run's grants name, made when first asked (a run is kept from save to save). */
const namesOf = new WeakMap<GrantRun, { agents: Set<string>; keys: Set<string> }>();

function runNames(run: GrantRun): { agents: Set<string>; keys: Set<string> } {
  let names = namesOf.get(run);
  if (names === undefined) {
    names = { agents: new Set(), keys: new Set() };
    for (const rg of run.resolved) (names.agents.add(rg.agent), names.keys.add(rg.tool_key));
    namesOf.set(run, names);
  }
  return names;
}

const meets = (names: ReadonlySet<string>, wanted: ReadonlySet<string>): boolean => {
  for (const n of wanted) if (names.has(n)) return true;
  return false;
};

/** `position` over resolved grants in manifest order, given as consecutive runs; its map is built on first use. */
function positions(runs: readonly (readonly ResolvedGrant[])[]): (grant: ResolvedGrant) => number {
  let at: Map<ResolvedGrant, number> | undefined;
  return (grant) => {
    if (at === undefined) {
      at = new Map();
      let i = 0;
      for (const run of runs) for (const rg of run) at.set(rg, i++);
    }
    const index = at.get(grant);
    if (index === undefined) throw new Error('position: not a grant of this index');
    return index;
  };
}

/**
 * The runs an index was built from, by its per-agent map: only for a build whose grants all named
 * a tool the catalog exposes once (no drift node or notice, no ambiguity, which a reuse would not
 * repeat).
 */
const runsOf = new WeakMap<object, readonly GrantRun[]>();

// The fields copied one by one: a spread of the parsed row was most of the index build's time at
// 200,000 grants. An optional field stays absent when the row has none.
function resolvedGrant(g: Grant, tool_key: string): ResolvedGrant {
  const rg: { -readonly [K in keyof ResolvedGrant]: ResolvedGrant[K] } = { agent: g.agent, tool: g.tool, tool_key };
  if (g.granted_by !== undefined) rg.granted_by = g.granted_by;
  if (g.provenance !== undefined) rg.provenance = g.provenance;
  return rg;
}

/** The manifest's grants as the runs it was read in, or undefined when it was not read so. */
function grantRuns(manifest: Manifest): (readonly Grant[])[] | undefined {
  return manifest.pieces ? rowRuns(manifest.pieces, 'grants', manifest.grants) : undefined;
}

/**
 * The grant indexes, resolving each grant's tool with `resolveRef` (which notes drift and
 * ambiguity) and telling `duplicate` of a grant that repeats an agent's tool. `clean`: whether
 * every reference resolved to a tool the catalog exposes, so a later build may start from this one.
 */
export function indexGrants(manifest: Manifest, resolveRef: (ref: string, index: number) => string, duplicate: (index: number, firstIndex: number, first: ResolvedGrant) => void, clean: () => boolean): GrantIndex {
  const byAgent = new Map<string, Map<string, ResolvedGrant>>();
  const byTool = new Map<string, ResolvedGrant[]>();
  for (const a of manifest.agents) byAgent.set(a.id, new Map());
  const resolved: ResolvedGrant[] = new Array(manifest.grants.length);
  // Where each grant read so far is, from the first duplicate on: a manifest of many stays linear.
  let placed: Map<ResolvedGrant, number> | undefined;
  manifest.grants.forEach((g, index) => {
    const key = resolveRef(g.tool, index);
    const rg = resolvedGrant(g, key);
    resolved[index] = rg;
    placed?.set(rg, index);
    const tools = byAgent.get(g.agent)!;
    const first = tools.get(key);
    if (first !== undefined) {
      placed ??= new Map(resolved.slice(0, index + 1).map((r, i) => [r, i]));
      duplicate(index, placed.get(first)!, first);
    }
    tools.set(key, rg);
    const list = byTool.get(key);
    if (list === undefined) byTool.set(key, [rg]);
    else list.push(rg);
  });
  const runs = grantRuns(manifest);
  if (runs !== undefined && clean()) {
    let start = 0;
    runsOf.set(
      byAgent,
      runs.map((value) => {
        const run = { value, resolved: resolved.slice(start, start + value.length) };
        start += value.length;
        return run;
      }),
    );
  }
  return { byAgent, byTool, position: positions([resolved]) };
}

/**
 * The grant indexes from `previous` (built for a catalog with the same tool names), re-indexing only the agents and
 * tools of the grants that changed (a run kept in place or moved keeps its resolved grants; so does a
 * grant of a changed run that is, unchanged, where it was). `resolve`: a reference's tool
 * key when the catalog exposes it once, else undefined. Undefined when `previous` kept no runs, the
 * grants were not read in runs, a changed run names a tool `resolve` does not know, or an agent
 * is granted a tool twice: the caller then indexes in full, which notes or refuses each of those.
 */
export function reindexGrants(manifest: Manifest, previous: GrantIndex, resolve: (ref: string) => string | undefined): GrantIndex | undefined {
  const before = runsOf.get(previous.byAgent);
  const values = grantRuns(manifest);
  if (before === undefined || values === undefined) return undefined;
  const byValue = new Map(before.map((r, order) => [r.value, { run: r, order }]));
  if (byValue.size !== before.length) return undefined;
  const kept = new Set<GrantRun>();
  // The runs in order: a kept one as it was, a new one (its grants not yet resolved) as its rows.
  const order: (GrantRun | readonly Grant[])[] = [];
  // The kept runs must keep their order: an agent's or tool's entries that no changed run names are taken as they were.
  let lastKept = -1;
  for (const value of values) {
    const old = byValue.get(value);
    if (old !== undefined && !kept.has(old.run)) {
      if (old.order < lastKept) return undefined;
      lastKept = old.order;
      kept.add(old.run);
      order.push(old.run);
    } else order.push(value);
  }
  const removed = before.filter((r) => !kept.has(r));
  const fresh = order.flatMap((r, i) => (Array.isArray(r) ? [i] : []));
  // One edited stretch (the new runs where the removed ones were, between the same kept runs): a
  // grant of it equal to the removed one at the same place from its start or its end is that
  // grant, so only the grants in between are changes. With edits in several places every grant of
  // the new runs is one.
  const oneStretch = fresh.length > 0 && fresh[fresh.length - 1]! - fresh[0]! === fresh.length - 1 && removed.length > 0 && before.indexOf(removed[0]!) === fresh[0] && before.indexOf(removed[removed.length - 1]!) === fresh[0]! + removed.length - 1;
  const was = oneStretch ? removed.flatMap((r) => r.resolved) : [];
  const now = fresh.flatMap((i) => order[i] as readonly Grant[]);
  const same = (g: Grant, o: ResolvedGrant | undefined): o is ResolvedGrant =>
    o !== undefined && o.agent === g.agent && o.tool === g.tool && o.granted_by === g.granted_by && JSON.stringify(o.provenance) === JSON.stringify(g.provenance) && resolve(g.tool) === o.tool_key;
  let head = 0;
  while (head < now.length && same(now[head]!, was[head])) head++;
  let tail = 0;
  while (tail < now.length - head && tail < was.length - head && same(now[now.length - 1 - tail]!, was[was.length - 1 - tail])) tail++;
  const agents = new Set<string>();
  const keys = new Set<string>();
  const resolvedNow: ResolvedGrant[] = [];
  for (let i = 0; i < now.length; i++) {
    if (i < head) resolvedNow.push(was[i]!);
    else if (i >= now.length - tail) resolvedNow.push(was[was.length - (now.length - i)]!);
    else {
      const g = now[i]!;
      const key = resolve(g.tool);
      if (key === undefined) return undefined;
      resolvedNow.push(resolvedGrant(g, key));
      agents.add(g.agent);
      keys.add(key);
    }
  }
  const gone = oneStretch ? was.slice(head, was.length - tail) : removed.flatMap((r) => r.resolved);
  for (const rg of gone) (agents.add(rg.agent), keys.add(rg.tool_key));
  let next = 0;
  const runs: GrantRun[] = order.map((r) => {
    if (!Array.isArray(r)) return r as GrantRun;
    const run = { value: r, resolved: resolvedNow.slice(next, next + r.length) };
    next += r.length;
    return run;
  });
  // Every run kept, in order: the maps are the previous ones (an agent added with no grant gets an empty map).
  if (agents.size === 0) {
    const byAgent = new Map<string, ReadonlyMap<string, ResolvedGrant>>(manifest.agents.map((a) => [a.id, previous.byAgent.get(a.id) ?? new Map()]));
    runsOf.set(byAgent, runs);
    return { byAgent, byTool: previous.byTool, position: positions(runs.map((r) => r.resolved)) };
  }
  // The changed agents' and tools' entries again, in manifest order, from the runs that name them
  // (no other run holds any of them); every other tool's list as it was.
  const agentMaps = new Map<string, Map<string, ResolvedGrant>>([...agents].map((a) => [a, new Map()]));
  const lists = new Map<string, ResolvedGrant[]>([...keys].map((k) => [k, []]));
  for (const r of runs) {
    const names = runNames(r);
    if (!meets(names.agents, agents) && !meets(names.keys, keys)) continue;
    for (const rg of r.resolved) {
      const tools = agentMaps.get(rg.agent);
      if (tools !== undefined) {
        if (tools.has(rg.tool_key)) return undefined;
        tools.set(rg.tool_key, rg);
      }
      lists.get(rg.tool_key)?.push(rg);
    }
  }
  const byTool = new Map(previous.byTool);
  for (const [k, list] of lists) {
    if (list.length > 0) byTool.set(k, list);
    else byTool.delete(k);
  }
  const byAgent = new Map<string, ReadonlyMap<string, ResolvedGrant>>(manifest.agents.map((a) => [a.id, agentMaps.get(a.id) ?? previous.byAgent.get(a.id) ?? new Map()]));
  runsOf.set(byAgent, runs);
  return { byAgent, byTool, position: positions(runs.map((r) => r.resolved)) };
}
