/**
 * What a recompile changed, read off the previous and the new compile state: agents added,
 * removed or with different decisions, each decision that changed (`eligible` or `rejected:REASON`,
 * null where the pair was not granted), and tools whose contract appeared, vanished or changed.
 * A full compile (no usable previous state) reports why and how much it computed, not every agent.
 */
import type { CompileState } from './compile-state.ts';

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

function verdicts(dataText: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (dataText === undefined) return out;
  const rows = (JSON.parse(dataText) as { tools: Record<string, Row> }).tools;
  for (const [k, r] of Object.entries(rows)) out.set(k, r.decision === 'eligible' ? 'eligible' : `rejected:${r.reason ?? ''}`);
  return out;
}

function keyChanges<V>(before: ReadonlyMap<string, V>, after: ReadonlyMap<string, V>, same: (a: V, b: V) => boolean): KeyChanges {
  const added = [...after.keys()].filter((k) => !before.has(k)).sort();
  const removed = [...before.keys()].filter((k) => !after.has(k)).sort();
  const changed = [...after.keys()].filter((k) => before.has(k) && !same(before.get(k)!, after.get(k)!)).sort();
  return { added, removed, changed };
}

export function changeSummary(previous: CompileState | undefined, state: CompileState, run: { recomputedAgents: readonly string[]; fullBecause?: string }): RecompileSummary {
  const recomputedTools = [...state.tools].filter(([k, t]) => previous?.tools.get(k) !== t).length;
  const recomputed = { agents: run.recomputedAgents.length, tools: recomputedTools };
  if (previous === undefined) {
    const none = { added: [], removed: [], changed: [] };
    return { mode: 'full', reason: run.fullBecause ?? 'no compile state', agents: none, decisions: [], tools: none, recomputed };
  }
  const agents = keyChanges(previous.agents, state.agents, (a, b) => a.data === b.data);
  const decisions: DecisionChange[] = [];
  for (const agent of [...agents.added, ...agents.removed, ...agents.changed].sort()) {
    const before = verdicts(previous.agents.get(agent)?.data);
    const after = verdicts(state.agents.get(agent)?.data);
    for (const tool_key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
      const b = before.get(tool_key) ?? null;
      const a = after.get(tool_key) ?? null;
      if (a !== b) decisions.push({ agent, tool_key, before: b, after: a });
    }
  }
  const tools = keyChanges(previous.tools, state.tools, (a, b) => a.contract_key === b.contract_key);
  return { mode: 'incremental', agents, decisions, tools, recomputed };
}
