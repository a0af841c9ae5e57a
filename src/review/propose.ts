/**
 * `policy propose`: proposed grants and removals from observed use, as a reviewable patch to the
 * manifest. Never applied by itself: the result is a proposal (and, on request, a patched copy of
 * the manifest written elsewhere) that a person reviews, edits into governance and compiles.
 *
 * Observations, one JSON object per line, in either of two forms (detected per line):
 * - the peer's observation window (`contracts/observation-window.schema.json`): at most one
 *   envelope record `{envelope: {governance_digest, graph_generation, profile, window_start,
 *   window_end, graph_instance_id?|instance_id?}}` and rows `{agent, tool_key|candidate,
 *   decision, calls?, ...}`;
 * - OPA decision-log entries of the compiled bundle (`{decision_id, path, input: {agent, tool},
 *   result, timestamp}`): each is one observed call of (agent, tool).
 *
 * Provenance: an envelope's governance_digest must equal the manifest's (else refused: the window
 * was recorded against other governance); without an envelope the caller must opt in to
 * `unverified` provenance. Categories, per observed (agent, tool) with calls > 0 that the agent
 * is not granted:
 *   additions              the hypothetical grant would be eligible under the strict profile
 *   conflicts              the tool reaches a DENY policy no exception covers for that agent
 *   not_grant_shaped       unknown, ambiguous, drifted or unmapped tool (a grant would not be clean)
 *   insufficient_evidence  unknown agent
 * Removals: a granted (agent, tool) that a window row reports with `calls: 0` explicitly (absence
 * from a window is not evidence). Pure: records in, proposal out.
 */
import { rfc3339Ms } from '../parse/rfc3339.ts';
import { ToolgateError, isToolgateError } from '../errors.ts';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { profileReject } from '../governance/assess.ts';
import type { Estate } from '../governance/estate.ts';
import { SelectorIndex, selectorIndex } from '../selector/selector-index.ts';

export const PROPOSAL_KIND = 'toolgate.policy-proposal';

export interface ObservationEnvelope {
  readonly governance_digest: string;
  readonly graph_generation: number;
  readonly instance_id: string | null;
  readonly profile: string;
  readonly window_start: string;
  readonly window_end: string;
}

export interface ObservedUse {
  readonly agent: string;
  /** As observed: a qualified key or a bare candidate name. */
  readonly tool: string;
  readonly calls: number;
  /** The 1-based lines it was read from. */
  readonly lines: readonly number[];
}

export interface Observations {
  readonly envelope: ObservationEnvelope | null;
  readonly uses: readonly ObservedUse[];
  readonly decision_log_entries: number;
  readonly window_rows: number;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Reads observation JSONL; refuses a line that is neither form, naming file and line. */
export function readObservations(file: string, text: string): Observations {
  let envelope: ObservationEnvelope | null = null;
  const byPair = new Map<string, { agent: string; tool: string; calls: number; lines: number[] }>();
  let logs = 0;
  let rows = 0;
  const lines = text.split('\n');
  const add = (agent: string, tool: string, calls: number, line: number) => {
    const k = JSON.stringify([agent, tool]);
    const u = byPair.get(k) ?? { agent, tool, calls: 0, lines: [] };
    u.calls += calls;
    u.lines.push(line);
    byPair.set(k, u);
  };
  lines.forEach((raw, i) => {
    const line = i + 1;
    const t = raw.trim();
    if (t === '') return;
    const fail = (why: string): never => {
      throw new ToolgateError('OBSERVATION_INVALID', `${file}:${line}: ${why}`, { at: [{ file, line }] });
    };
    let v: unknown;
    try {
      v = parseJsonInput(t, file, { line });
    } catch (e) {
      if (!isToolgateError(e)) throw e;
      throw new ToolgateError('OBSERVATION_INVALID', e.message, { at: e.at });
    }
    if (!isObject(v)) return fail('not a JSON object');
    if ('envelope' in v) {
      if (envelope !== null) fail('a second envelope record');
      const e = v.envelope;
      if (!isObject(e)) return fail('envelope must be an object');
      if (typeof e.governance_digest !== 'string' || !/^[0-9a-f]{64}$/.test(e.governance_digest)) fail('envelope.governance_digest must be 64 lowercase hex digits');
      if (!Number.isSafeInteger(e.graph_generation) || (e.graph_generation as number) < 0) fail('envelope.graph_generation must be a non-negative integer');
      if (!['strict', 'review', 'explore'].includes(e.profile as string)) fail('envelope.profile must be strict, review or explore');
      for (const k of ['window_start', 'window_end']) if (typeof e[k] !== 'string' || rfc3339Ms(e[k] as string) === undefined) fail(`envelope.${k} must be a date-time`);
      const a = e.graph_instance_id ?? null;
      const b = e.instance_id ?? null;
      if ((a !== null && typeof a !== 'string') || (b !== null && typeof b !== 'string')) fail('envelope instance ids must be strings or null');
      if (a && b && a !== b) fail('envelope.graph_instance_id and envelope.instance_id disagree');
      envelope = { governance_digest: e.governance_digest as string, graph_generation: e.graph_generation as number, instance_id: (a || b || null) as string | null, profile: e.profile as string, window_start: e.window_start as string, window_end: e.window_end as string };
      return;
    }
    if (isObject(v.input) && 'decision_id' in v) {
      const agent = v.input.agent;
      const tool = v.input.tool;
      if (typeof agent !== 'string' || agent === '' || typeof tool !== 'string' || tool === '') fail('decision-log entry without input.agent and input.tool strings');
      logs++;
      add(agent as string, tool as string, 1, line);
      return;
    }
    if (typeof v.agent === 'string' && (typeof v.tool_key === 'string' || typeof v.candidate === 'string')) {
      if (v.agent === '') fail('agent must not be empty');
      if (v.decision !== 'eligible' && v.decision !== 'rejected') fail('decision must be eligible or rejected');
      if (v.tool_key !== undefined && (typeof v.tool_key !== 'string' || !/^[^:\s]+::[^:\s]+$/.test(v.tool_key))) fail('tool_key must be a qualified server::tool key');
      if (v.calls !== undefined && (!Number.isSafeInteger(v.calls) || (v.calls as number) < 0)) fail('calls must be a non-negative integer');
      rows++;
      add(v.agent, (v.tool_key ?? v.candidate) as string, (v.calls as number | undefined) ?? 1, line);
      return;
    }
    fail('neither an observation-window record nor an OPA decision-log entry');
  });
  return { envelope, uses: [...byPair.values()], decision_log_entries: logs, window_rows: rows };
}

export interface ProposedGrant {
  readonly agent: string;
  readonly tool: string;
  readonly calls: number;
  readonly evidence: string;
}

export interface ExcludedUse {
  readonly agent: string;
  readonly tool: string;
  readonly calls: number;
  readonly reason: string;
}

export interface Proposal {
  readonly kind: typeof PROPOSAL_KIND;
  readonly schema_version: 1;
  readonly governance_digest: string;
  readonly provenance: { readonly status: 'exact' | 'unverified'; readonly missing_fields: readonly string[]; readonly observed_state: ObservationEnvelope | null };
  readonly decision_mode: 'human_required';
  readonly automatic_change: false;
  readonly additions: readonly ProposedGrant[];
  readonly removals: readonly ExcludedUse[];
  readonly conflicts: readonly ExcludedUse[];
  readonly not_grant_shaped: readonly ExcludedUse[];
  readonly insufficient_evidence: readonly ExcludedUse[];
}

function byPair(a: { agent: string; tool: string }, b: { agent: string; tool: string }): number {
  return a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}

export function propose(estate: Estate, governanceDigestHex: string, obs: Observations, options: { unverifiedProvenance: boolean; source: string }): Proposal {
  const missing: string[] = [];
  if (obs.envelope === null) missing.push('envelope');
  else {
    if (obs.envelope.governance_digest !== governanceDigestHex) {
      throw new ToolgateError('DIGEST_MISMATCH', `${options.source}: the observation window was recorded against governance ${obs.envelope.governance_digest}, not this manifest (${governanceDigestHex})`, { at: [{ file: options.source }] });
    }
    if (obs.envelope.instance_id === null) missing.push('envelope.graph_instance_id');
  }
  if (missing.length > 0 && !options.unverifiedProvenance) {
    throw new ToolgateError('OBSERVATION_INVALID', `${options.source}: incomplete provenance (${missing.join(', ')} missing); pass --unverified-provenance to propose from it anyway, labelled unverified`, { at: [{ file: options.source }] });
  }
  const idx = selectorIndex(estate);
  // Hypothetical grants are assessed in an index of their own, so they never enter the estate's memo.
  const hypo = new SelectorIndex(estate);
  const window = obs.envelope ? ` in window ${obs.envelope.window_start}..${obs.envelope.window_end}` : '';
  const additions: ProposedGrant[] = [];
  const removals: ExcludedUse[] = [];
  const conflicts: ExcludedUse[] = [];
  const notGrantShaped: ExcludedUse[] = [];
  const insufficient: ExcludedUse[] = [];
  for (const u of obs.uses) {
    const row = { agent: u.agent, tool: u.tool, calls: u.calls };
    if (!estate.agents.has(u.agent)) {
      insufficient.push({ ...row, reason: 'AGENT_NOT_FOUND' });
      continue;
    }
    const r = idx.resolve(u.tool);
    if (r.status !== 'found') {
      notGrantShaped.push({ ...row, reason: r.status === 'ambiguous' ? 'AMBIGUOUS_TOOL' : 'TOOL_NOT_FOUND' });
      continue;
    }
    const granted = estate.grantsByAgent.get(u.agent)?.has(r.key) ?? false;
    if (granted) {
      if (u.calls === 0) removals.push({ agent: u.agent, tool: r.key, calls: 0, reason: `granted, and observed with zero calls${window}` });
      continue;
    }
    if (u.calls === 0) continue;
    // The grant as if it were added: the same facts the selector uses, with granted set.
    const view = idx.agent(u.agent)!;
    const a = hypo.assess({ ...view, grants: new Map([...view.grants, [r.key, { agent: u.agent, tool: r.key, tool_key: r.key }]]) }, r.key);
    const reason = profileReject(a, 'strict');
    if (reason === undefined || reason === 'DENY_GOVERNED') {
      if (reason === 'DENY_GOVERNED') {
        conflicts.push({ ...row, tool: r.key, reason: 'DENY_GOVERNED (every DENY path is covered by an expected exception; review the exception)' });
        continue;
      }
      additions.push({ agent: u.agent, tool: r.key, calls: u.calls, evidence: `observed ${u.calls} call${u.calls === 1 ? '' : 's'}${window} (${options.source}:${u.lines.slice(0, 5).join(',')}${u.lines.length > 5 ? ',…' : ''})` });
    } else if (reason === 'DENY_VIOLATION') conflicts.push({ ...row, tool: r.key, reason });
    else notGrantShaped.push({ ...row, tool: r.key, reason });
  }
  return {
    kind: PROPOSAL_KIND,
    schema_version: 1,
    governance_digest: governanceDigestHex,
    provenance: { status: missing.length === 0 ? 'exact' : 'unverified', missing_fields: missing, observed_state: obs.envelope },
    decision_mode: 'human_required',
    automatic_change: false,
    additions: additions.sort(byPair),
    removals: removals.sort(byPair),
    conflicts: conflicts.sort(byPair),
    not_grant_shaped: notGrantShaped.sort(byPair),
    insufficient_evidence: insufficient.sort(byPair),
  };
}

/** The manifest as authored with the proposal applied: additions appended, removals dropped. */
export function patchedManifest(raw: unknown, estate: Estate, p: Proposal): Record<string, unknown> {
  const base = (raw ?? {}) as Record<string, unknown>;
  const remove = new Set(p.removals.map((r) => JSON.stringify([r.agent, r.tool])));
  const grants = ((base.grants as Record<string, unknown>[] | undefined) ?? []).filter((g) => {
    const r = estate.resolveTool(String(g.tool));
    return !remove.has(JSON.stringify([g.agent, r.status === 'found' ? r.key : g.tool]));
  });
  for (const a of p.additions) grants.push({ agent: a.agent, tool: a.tool, provenance: { source: 'inferred', confidence: 'medium', evidence: a.evidence } });
  return { ...base, grants };
}
