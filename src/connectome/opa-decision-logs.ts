/**
 * OPA decision logs (https://www.openpolicyagent.org/docs/management-decision-logs) as observations:
 * each event for one of toolgate's entrypoints (`path` under `toolgate/authz`) whose input is
 * `{agent, tool}` becomes one observed `invoke` of that tool from its server (src/connectome/observed.ts),
 * and one call by that agent in the per-agent record. Only identity is taken: the agent, the
 * qualified tool and whether the decision allowed it; never any other input field, the result's
 * body or the event's labels. The window is the events' own (first timestamp to just after the
 * last) unless the caller gives one.
 *
 * Input: one event per line (what `toolgate bundle serve --receive` appends, or OPA's console
 * decision logger), or a file holding one JSON array of events (a `POST /logs` body).
 *
 * Pure: text in, values out.
 */
import { rfc3339Ms } from '../parse/rfc3339.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { ToolgateError, isToolgateError } from '../errors.ts';
import { observeFromRecords, type ObservationWindow, type ObserveResult } from './observed.ts';

export interface DecisionCall {
  readonly agent: string;
  readonly server: string;
  readonly tool: string;
  readonly atMs: number;
  readonly allowed: boolean | null;
}

export interface DecisionLogRead {
  readonly calls: readonly DecisionCall[];
  /** Events for other paths, or whose input is not `{agent, tool}` with a qualified tool. */
  readonly skipped: number;
}

/** Whether a decision-log path is one of toolgate's entrypoints. */
export function isToolgatePath(path: unknown): boolean {
  return typeof path === 'string' && /^(data\.|\/?v1\/data\/)?toolgate[./]authz([./]|$)/.test(path);
}

function allowedOf(result: unknown): boolean | null {
  if (typeof result === 'boolean') return result;
  if (isJsonObject(result) && typeof result.allow === 'boolean') return result.allow;
  return null;
}

/** JSON text read strictly, its faults as DECISION_LOG_INVALID at their line:col in the file. */
function readJson(text: string, source: string, line: number): unknown {
  try {
    return parseJsonInput(text, source, { line });
  } catch (e) {
    if (!isToolgateError(e)) throw e;
    throw new ToolgateError('DECISION_LOG_INVALID', e.message, { at: e.at });
  }
}

/** Reads decision-log events from one file's text. */
export function readDecisionLogs(text: string, source: string): DecisionLogRead {
  const calls: DecisionCall[] = [];
  let skipped = 0;
  const trimmed = text.trimStart();
  const records: { value: unknown; line: number }[] = [];
  if (trimmed.startsWith('[')) {
    const v = readJson(text, source, 1);
    (v as unknown[]).forEach((value) => records.push({ value, line: 1 }));
  } else {
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      records.push({ value: readJson(line, source, i + 1), line: i + 1 });
    });
  }
  for (const { value: e, line } of records) {
    const fail = (why: string): never => {
      throw new ToolgateError('DECISION_LOG_INVALID', `${source}:${line}: ${why}`, { at: [{ file: source, line }] });
    };
    if (!isJsonObject(e)) fail('an event must be a JSON object');
    const ev = e as Record<string, unknown>;
    if (typeof ev.decision_id !== 'string') fail('an event names no decision_id (not an OPA decision-log event)');
    const atMs = typeof ev.timestamp === 'string' ? rfc3339Ms(ev.timestamp) : undefined;
    if (atMs === undefined) return fail(`event ${ev.decision_id as string}: timestamp ${JSON.stringify(ev.timestamp)} is not RFC 3339`);
    const input = ev.input;
    if (!isToolgatePath(ev.path) || !isJsonObject(input) || typeof input.agent !== 'string' || typeof input.tool !== 'string') {
      skipped++;
      continue;
    }
    const sep = input.tool.indexOf('::');
    if (input.agent === '' || sep <= 0 || sep + 2 >= input.tool.length) {
      skipped++;
      continue;
    }
    calls.push({ agent: input.agent, server: input.tool.slice(0, sep), tool: input.tool.slice(sep + 2), atMs, allowed: allowedOf(ev.result) });
  }
  return { calls, skipped };
}

/** The window the calls span: the first timestamp to 1 ms after the last. */
export function windowOf(calls: readonly DecisionCall[]): ObservationWindow | undefined {
  if (calls.length === 0) return undefined;
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const c of calls) {
    startMs = Math.min(startMs, c.atMs);
    endMs = Math.max(endMs, c.atMs);
  }
  return { startMs, endMs: endMs + 1 };
}

/** The observed connectome of the calls: one `invoke` edge per (server, tool), weighted by calls. */
export function observeDecisionCalls(calls: readonly DecisionCall[], window: ObservationWindow): ObserveResult {
  return observeFromRecords(calls.map((c) => ({ server: c.server, kind: 'invoke', target: c.tool, at: c.atMs })), window);
}

export interface AgentActivity {
  /** Calls per qualified tool within the window: total, allowed, refused. */
  readonly calls: Readonly<Record<string, { calls: number; allowed: number; refused: number }>>;
  /** Called, but no grant declares it. */
  readonly undeclared: readonly string[];
  /** Granted, never called in the window (dead authority). */
  readonly dead_authority: readonly string[];
  /** Granted tools exercised / granted tools (null when nothing is granted). */
  readonly coverage: number | null;
  readonly granted: number;
  readonly exercised: number;
}

/**
 * Per agent: calls, calls nobody declared, grants never exercised, and coverage, against the
 * grants of the estate (`grants.get(agent)` = the agent's granted qualified tools). An agent the
 * estate does not know appears with every call undeclared.
 */
export function agentActivity(calls: readonly DecisionCall[], window: ObservationWindow, grants: ReadonlyMap<string, ReadonlySet<string>>): Record<string, AgentActivity> {
  const byAgent = new Map<string, Map<string, { calls: number; allowed: number; refused: number }>>();
  for (const c of calls) {
    if (c.atMs < window.startMs || c.atMs >= window.endMs) continue;
    const key = `${c.server}::${c.tool}`;
    const m = byAgent.get(c.agent) ?? new Map();
    byAgent.set(c.agent, m);
    const row = m.get(key) ?? { calls: 0, allowed: 0, refused: 0 };
    row.calls++;
    if (c.allowed === true) row.allowed++;
    else if (c.allowed === false) row.refused++;
    m.set(key, row);
  }
  const out: Record<string, AgentActivity> = {};
  for (const agent of [...new Set([...grants.keys(), ...byAgent.keys()])].sort()) {
    const called = byAgent.get(agent) ?? new Map();
    const granted = grants.get(agent) ?? new Set<string>();
    const exercised = [...granted].filter((t) => called.has(t)).length;
    out[agent] = {
      calls: Object.fromEntries([...called.entries()].sort(([a], [b]) => (a < b ? -1 : 1))),
      undeclared: [...called.keys()].filter((t) => !granted.has(t)).sort(),
      dead_authority: [...granted].filter((t) => !called.has(t)).sort(),
      coverage: granted.size === 0 ? null : exercised / granted.size,
      granted: granted.size,
      exercised,
    };
  }
  return out;
}
