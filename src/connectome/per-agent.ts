/**
 * The per-agent report of a window of OPA decisions: for each agent, its calls, the calls no grant
 * declares, the grants it never exercised (dead authority) and its coverage, against the estate's
 * grants (src/connectome/opa-decision-logs.ts agentActivity). `observe --activity-out` writes it from
 * the events' window; `diff --per-agent` from the diff's window, so it sits beside the diff record
 * of the same window. The connectome diff itself has no agents (its graphs hold servers and tools),
 * hence a report of its own rather than a section of the record.
 *
 * Pure: calls, window and grants in, a value out.
 */
import { ToolgateError } from '../errors.ts';
import { agentActivity, type AgentActivity, type DecisionCall } from './opa-decision-logs.ts';
import { parseWindowBound, type ObservationWindow } from './observed.ts';

export const PER_AGENT_KIND = 'toolgate.observed-activity';

export interface WindowText {
  readonly started_at: string;
  readonly ended_at: string;
}

export interface PerAgentReport {
  readonly kind: typeof PER_AGENT_KIND;
  readonly schema_version: 1;
  readonly window: WindowText;
  /** Calls inside the window, all agents. */
  readonly calls: number;
  readonly agents: Readonly<Record<string, AgentActivity>>;
}

/**
 * @example
 * perAgentReport(calls, { startMs, endMs }, { started_at, ended_at }, new Map([['ci-bot', new Set(['git::git_log'])]]))
 * // { kind: 'toolgate.observed-activity', ..., agents: { 'ci-bot': { dead_authority: [...], ... } } }
 */
export function perAgentReport(calls: readonly DecisionCall[], window: ObservationWindow, text: WindowText, grants: ReadonlyMap<string, ReadonlySet<string>>): PerAgentReport {
  const inside = calls.filter((c) => c.atMs >= window.startMs && c.atMs < window.endMs).length;
  return { kind: PER_AGENT_KIND, schema_version: 1, window: text, calls: inside, agents: agentActivity(calls, window, grants) };
}

/**
 * The bounds of a diff window file (`{"started_at", "ended_at"}`, as `observe --window-out` writes
 * it). The diff record carries any window verbatim; the per-agent report needs times to count by.
 */
export function windowBounds(window: unknown, source: string): { window: ObservationWindow; text: WindowText } {
  const w = window as Record<string, unknown> | null;
  const bad = (why: string): never => {
    throw new ToolgateError('DIFF_REFUSED', `window ${source}: ${why}; the per-agent report counts calls between its started_at and ended_at (RFC 3339)`, { at: [{ file: source }] });
  };
  if (typeof w !== 'object' || w === null || Array.isArray(w)) return bad('not a JSON object');
  const { started_at: s, ended_at: e } = w;
  if (typeof s !== 'string' || typeof e !== 'string') return bad('started_at and ended_at must both be strings');
  let startMs: number;
  let endMs: number;
  try {
    startMs = parseWindowBound(s, 'started_at');
    endMs = parseWindowBound(e, 'ended_at');
  } catch (err) {
    return bad((err as Error).message);
  }
  if (!(startMs < endMs)) bad('ended_at must be after started_at');
  return { window: { startMs, endMs }, text: { started_at: s, ended_at: e } };
}
