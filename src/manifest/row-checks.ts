/**
 * The duplicate and unknown-agent checks of the manifest's grants and data access rows, from the
 * previous read's when the manifest was read in YAML pieces (a watch's next save): only the runs of
 * rows that are not the previous read's own are looked at. A previous read passed its checks, so
 * the rows it kept pass them still, against each other; a row read now can only repeat one of them,
 * or name an agent no longer declared. Whether a fault may exist is all this decides: when one may,
 * the caller's full check finds it and says where (test/unit/manifest/row-checks.test.ts).
 */
import type { DataAccess, Grant } from './types.ts';

/**
 * What the checks saw: per agent the tools granted it, and every data access row's key, with the runs
 * they were read from. Only presence is read here; the number is where the full check first saw the
 * row, or -1.
 */
export interface RowsChecked {
  readonly agentIds: ReadonlySet<string>;
  readonly grantRuns: readonly (readonly Grant[])[];
  readonly grantTools: ReadonlyMap<string, ReadonlyMap<string, number>>;
  readonly accessRuns: readonly (readonly DataAccess[])[];
  readonly accessKeys: ReadonlyMap<string, number>;
}

/** A data access row's identity: two rows with one key are the same row written twice. */
export function accessKey(d: DataAccess): string {
  return `${d.tool}\u0000${d.resource}\u0000${d.mode}`;
}

/** The runs of `now` that are not in `before`, and those of `before` that are not in `now`; undefined when a run appears twice in `now`. */
function changedRuns<T>(before: readonly T[], now: readonly T[]): { added: T[]; removed: T[] } | undefined {
  const previous = new Set(before);
  const seen = new Set<T>();
  const added: T[] = [];
  for (const run of now) {
    if (seen.has(run)) return undefined;
    seen.add(run);
    if (!previous.has(run)) added.push(run);
  }
  return { added, removed: before.filter((run) => !seen.has(run)) };
}

/**
 * The checks of rows read in runs, from `previous`'s: undefined when a row read now may repeat
 * another or name an unknown agent (or the runs cannot be matched), and the caller checks in full.
 */
export function recheckRows(previous: RowsChecked, agentIds: ReadonlySet<string>, grantRuns: readonly (readonly Grant[])[], accessRuns: readonly (readonly DataAccess[])[]): RowsChecked | undefined {
  for (const id of previous.agentIds) if (!agentIds.has(id)) return undefined;
  const grants = changedRuns(previous.grantRuns, grantRuns);
  const access = changedRuns(previous.accessRuns, accessRuns);
  if (grants === undefined || access === undefined) return undefined;

  // Each changed agent's tools are copied before they change: the previous read's stay as they were.
  const grantTools = new Map(previous.grantTools);
  const own = new Set<string>();
  const toolsOf = (agent: string): Map<string, number> => {
    if (!own.has(agent)) {
      own.add(agent);
      grantTools.set(agent, new Map(grantTools.get(agent)));
    }
    return grantTools.get(agent) as Map<string, number>;
  };
  for (const run of grants.removed) for (const g of run) toolsOf(g.agent).delete(g.tool);
  for (const run of grants.added) {
    for (const g of run) {
      if (!agentIds.has(g.agent)) return undefined;
      const tools = toolsOf(g.agent);
      if (tools.has(g.tool)) return undefined;
      tools.set(g.tool, -1);
    }
  }

  let accessKeys = previous.accessKeys;
  if (access.added.length > 0 || access.removed.length > 0) {
    const keys = new Map(accessKeys);
    for (const run of access.removed) for (const d of run) keys.delete(accessKey(d));
    for (const run of access.added) {
      for (const d of run) {
        const key = accessKey(d);
        if (keys.has(key)) return undefined;
        keys.set(key, -1);
      }
    }
    accessKeys = keys;
  }
  return { agentIds, grantRuns, grantTools, accessRuns, accessKeys };
}
