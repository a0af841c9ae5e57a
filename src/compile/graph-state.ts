/**
 * graph_state {instance_id, generation}: a collision-safe cache identity for a compiled estate.
 * The instance id is stable for an estate (the manifest's `instance_id`, else the previous
 * artifact's, else one derived from the estate's server and agent names). The generation starts
 * at 1 and rises by one when the input digests differ from the previous artifact's, and only then.
 */
import { digestHex } from '../canonical/digest.ts';
import type { Estate } from '../governance/estate.ts';
import type { GraphState } from '../governance/types.ts';

export interface InputDigests {
  readonly governance_digest: string;
  readonly catalog_digest: string;
  readonly [other: string]: string | null;
}

export interface PreviousState {
  readonly graph_state: GraphState;
  readonly digests: InputDigests;
  readonly created_at?: string;
}

export function derivedInstanceId(estate: Estate): string {
  const servers = estate.catalog.servers.map((s) => s.name).sort();
  const agents = [...estate.agents.keys()].sort();
  const seed = JSON.stringify({ servers, agents });
  return `tg-${digestHex(new TextEncoder().encode(seed)).slice(0, 16)}`;
}

/**
 * Whether the inputs are those `previous` was made from. A digest `previous` does not record is not
 * compared: the peer's single-agent bundle (toolgraph-v1) and its run artifacts carry no
 * connectome_digest, and reading one back must not count as a change of the graph.
 */
function sameDigests(previous: InputDigests, current: InputDigests): boolean {
  for (const k of new Set([...Object.keys(previous), ...Object.keys(current)])) {
    const was = previous[k] ?? null;
    if (was !== null && was !== (current[k] ?? null)) return false;
  }
  return true;
}

export interface NextState {
  readonly graph_state: GraphState;
  /** True when the inputs are unchanged since the previous artifact (its created_at may be kept). */
  readonly unchanged: boolean;
}

export function nextGraphState(estate: Estate, digests: InputDigests, previous: PreviousState | undefined): NextState {
  const instance_id = estate.manifest.instance_id ?? previous?.graph_state.instance_id ?? derivedInstanceId(estate);
  if (!previous || previous.graph_state.instance_id !== instance_id) return { graph_state: { instance_id, generation: 1 }, unchanged: false };
  if (sameDigests(previous.digests, digests)) return { graph_state: previous.graph_state, unchanged: true };
  return { graph_state: { instance_id, generation: previous.graph_state.generation + 1 }, unchanged: false };
}
