/**
 * What a recompile changed, read off the previous and the new compile state: agents added,
 * removed or with different decisions, each decision that changed (`eligible` or `rejected:REASON`,
 * null where the pair was not granted), and tools whose contract appeared, vanished or changed.
 * A full compile (no usable previous state) reports why and how much it computed, not every agent.
 */
import type { CompileState } from './compile-state.ts';
import { sameBytes } from '../../canonical/byte-segments.ts';
import { spanBytes } from './fragments.ts';

export interface DecisionChange {
  readonly agent: string;
  readonly tool_key: string;
  readonly before: string | null;
  readonly after: string | null;
}

export interface KeyChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

export interface RecompileSummary {
  readonly mode: 'full' | 'incremental';
  /** Why the previous state was not used (full mode only). */
  readonly reason?: string;
  readonly agents: KeyChanges;
  readonly decisions: readonly DecisionChange[];
  readonly tools: KeyChanges;
  /** How many agents' decisions and tools' entries were computed rather than reused. */
  readonly recomputed: { readonly agents: number; readonly tools: number };
}

type Row = { decision?: string; reason?: string | null };

const decoder = new TextDecoder();

/** An agent's decision map in the data document, as bytes. */
function dataOf(state: CompileState, agent: string): Uint8Array | undefined {
  const p = state.agents.get(agent);
  return p && spanBytes(state.bytes.data, p.data);
}

function verdicts(data: Uint8Array | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (data === undefined) return out;
  const rows = (JSON.parse(decoder.decode(data)) as { tools: Record<string, Row> }).tools;
  for (const [k, r] of Object.entries(rows)) out.set(k, r.decision === 'eligible' ? 'eligible' : `rejected:${r.reason ?? ''}`);
  return out;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();

const NONE: KeyChanges = { added: [], removed: [], changed: [] };

function keyChanges<V>(before: ReadonlyMap<string, V>, after: ReadonlyMap<string, V>, changed: (key: string) => boolean): KeyChanges {
  // A state's maps never change once made: the same map has the same entries.
  if (before === after) return NONE;
  const added: string[] = [];
  const kept: string[] = [];
  for (const k of after.keys()) (before.has(k) ? kept : added).push(k);
  const removed: string[] = [];
  for (const k of before.keys()) if (!after.has(k)) removed.push(k);
  return { added: added.sort(), removed: removed.sort(), changed: kept.filter(changed).sort() };
}

/**
 * `run`: the agents whose decisions and the tools whose entries this compile computed (the others
 * were copied from `previous`, so they are unchanged), whether the tools are the previous ones by
 * key (`sameToolKeys`), and why it was full, when it was.
 */
export function changeSummary(
  previous: CompileState | undefined,
  state: CompileState,
  run: { recomputedAgents: readonly string[]; recomputedTools: readonly string[]; sameToolKeys?: boolean; fullBecause?: string },
): RecompileSummary {
  const recomputed = { agents: run.recomputedAgents.length, tools: run.recomputedTools.length };
  if (previous === undefined) {
    return { mode: 'full', reason: run.fullBecause ?? 'no compile state', agents: NONE, decisions: [], tools: NONE, recomputed };
  }
  const redone = new Set(run.recomputedAgents);
  const agents = keyChanges(previous.agents, state.agents, (a) => redone.has(a) && !sameBytes(dataOf(previous, a)!, dataOf(state, a)!));
  const decisions: DecisionChange[] = [];
  for (const agent of sorted([...agents.added, ...agents.removed, ...agents.changed])) {
    const before = verdicts(dataOf(previous, agent));
    const after = verdicts(dataOf(state, agent));
    for (const tool_key of sorted(new Set([...before.keys(), ...after.keys()]))) {
      const b = before.get(tool_key) ?? null;
      const a = after.get(tool_key) ?? null;
      if (a !== b) decisions.push({ agent, tool_key, before: b, after: a });
    }
  }
  // With the same tool keys, the tools whose entries were computed are the ones whose contract changed.
  const tools = run.sameToolKeys
    ? { added: [], removed: [], changed: run.recomputedTools.filter((k) => previous.tools.get(k)!.contract_key !== state.tools.get(k)!.contract_key).sort() }
    : keyChanges(previous.tools, state.tools, (k) => previous.tools.get(k)!.contract_key !== state.tools.get(k)!.contract_key);
  return { mode: 'incremental', agents, decisions, tools, recomputed };
}
