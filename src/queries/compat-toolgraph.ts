/**
 * The peer's (toolgraph's) MCP dialect of the query table, for a consumer written against it
 * (memtomem-stm consults `eligible_tools` and `rank_features`). Where each difference comes from,
 * in the peer's reference texts:
 *
 * - Tool names: the README's tool list (`drifted_tools` for our `drift`); the others already match.
 * - Argument names: the README's unsafe-tools note (`include_authorized` for our `all`) and the
 *   blast-radius note (`node` for our `target`); ADR-0005 for `eligible_tools(agent, candidates,
 *   profile)` and `rank_features(agent, candidates)`.
 * - The tool list: the README's thirteen tools (`audit_report` among them); our other queries
 *   (preflight, control-preflight, visible-tools, review-candidates, diff) are not peer tools.
 * - Results unwrapped, with `graph_generation` (integer) beside the answer: README "MCP responses
 *   carry graph_generation" and ADR-0004; our graph_state.generation is that counter. Beside it
 *   `graph_instance_id` (the pair a consumer caches on) and `graph_state_verified`: always true
 *   here, since every answer is computed from one loaded estate, never from a graph moving under
 *   the read.
 * - `audit_report(include_grants)`: our report, which carries the peer's `status` (pass, warn,
 *   fail) and `blocking_findings`, with its evidence paths in the peer's spelling.
 * - The audit tools and unsafe_callable_tools answer `{count, <rows>}` under the peer's row key
 *   (`tools`, `policies`, `edges`, `contradictions`; unsafe_callable_tools `{agent, agent_found,
 *   count, tools}`), each row with a tool_key also naming its `tool` and `server`; unmapped_tools
 *   takes `only_granted` (default true), the inverse of our `all`. These come from the peer's MCP
 *   server (toolgraph/server/app.py, memtomem/toolgraph at 0ba7770), which the reference folder's
 *   README only lists by name. Inside the rows the fields stay ours.
 * - `eligible` as qualified tool keys and rejected rows `{candidate, tool_key, reason, candidates?,
 *   paths?}`: contracts/preflight.schema.json, which wraps the same selector rules.
 * - Evidence path strings `(tool) -READS-> (uri) -GOVERNED_BY-> (policy:ID:EFFECT)`: the preflight
 *   fixtures; ours name the agent and spell edges `-[:KIND]->`. The same rewriting applies to the
 *   artifacts the peer's CLI writes (preflight, control-preflight, review-candidates list), whose
 *   `created_at` and `recorded_at` read `+00:00` where ours end in `Z` (the contract fixtures).
 * - check_access: a resolved answer names the bare `tool`, its `server` and `permitted` (whether
 *   the agent holds the grant), as the peer's server answers it (app.py's check_access).
 * - Errors: only an unreadable input is the availability signal `backend_unavailable` (retryable);
 *   every other failure is a normal MCP error (README, "If the graph backend is temporarily
 *   unavailable").
 *
 * Pure: rewrites names and values; no I/O.
 */
import type { Estate } from '../governance/estate.ts';
import type { GraphState } from '../governance/types.ts';
import type { QueryDef } from './query-def.ts';

export const COMPAT_DIALECTS = ['toolgraph'] as const;
export type CompatDialect = (typeof COMPAT_DIALECTS)[number];

const TOOL_NAMES: Readonly<Record<string, string>> = { drift: 'drifted_tools' };

/** The peer's MCP tools, in its README's order, by our tool name. */
const PEER_TOOLS: readonly string[] = ['check_access', 'unsafe_callable_tools', 'blast_radius', 'unmapped_tools', 'orphan_policies', 'unbacked_edges', 'drift', 'destructive_unsafeguarded', 'annotation_contradictions', 'audit_report', 'rank_features', 'eligible_tools', 'selection_explain'];

/** Our queries the peer has as CLI commands only: their answers take its spelling on `--compat` too. */
const PEER_COMMANDS: readonly string[] = ['preflight', 'control_preflight', 'review_candidates'];

/** Does the peer have this query as an MCP tool? */
export function isPeerTool(q: QueryDef): boolean {
  return PEER_TOOLS.includes(q.tool);
}

/** Our rows the peer has, in the peer's order. */
export function peerRows<T extends QueryDef>(rows: readonly T[]): T[] {
  return PEER_TOOLS.map((t) => rows.find((q) => q.tool === t)).filter((q): q is T => q !== undefined);
}
const ARG_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  unsafe_callable_tools: { all: 'include_authorized' },
  blast_radius: { target: 'node' },
  unmapped_tools: { all: 'only_granted' },
};

/** Peer arguments that mean the negation of ours. */
const INVERTED: Readonly<Record<string, readonly string[]>> = { unmapped_tools: ['all'] };

/** The peer's key for the rows of each list-shaped answer. */
const ROWS_KEY: Readonly<Record<string, string>> = {
  unsafe_callable_tools: 'tools',
  unmapped_tools: 'tools',
  orphan_policies: 'policies',
  unbacked_edges: 'edges',
  drift: 'tools',
  destructive_unsafeguarded: 'tools',
  annotation_contradictions: 'contradictions',
};

/** Our value of argument `arg` of `q` from the peer's value of it. */
export function fromPeerArg(q: QueryDef, arg: string, value: unknown): unknown {
  return value !== undefined && INVERTED[q.tool]?.includes(arg) ? !value : value;
}

/** The peer's description of argument `arg` where its meaning differs from ours. */
export function peerArgDescription(q: QueryDef, arg: string, ours: string): string {
  return INVERTED[q.tool]?.includes(arg) ? `the negation of: ${ours} (default true: granted tools only)` : ours;
}

function withToolNames(row: unknown): unknown {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return row;
  const r = row as Record<string, unknown>;
  const key = r.tool_key;
  if (typeof key !== 'string' || !key.includes('::') || 'tool' in r) return row;
  const at = key.indexOf('::');
  return { ...r, tool: key.slice(at + 2), server: key.slice(0, at) };
}

/** The peer's name for one of our MCP tools. */
export function peerToolName(q: QueryDef): string {
  return TOOL_NAMES[q.tool] ?? q.tool;
}

/** The peer's name for argument `arg` of our tool `q`. */
export function peerArgName(q: QueryDef, arg: string): string {
  return ARG_NAMES[q.tool]?.[arg] ?? arg;
}

const EDGE = /-\[:([A-Z_]+)\]->/;

/**
 * One of our evidence paths in the peer's spelling: the path starts at the tool's bare name (the
 * agent's CAN_CALL hop is implied by the question), edges read ` -KIND-> `, and the policy at the
 * end is `policy:ID:EFFECT`.
 */
export function peerPath(path: string, estate: Estate | undefined): string {
  const parts = path.split(EDGE);
  // parts: node, edge, node, edge, node, ...
  const nodes = parts.filter((_, i) => i % 2 === 0).map((n) => n.replace(/^\(/, '').replace(/\)$/, ''));
  const edges = parts.filter((_, i) => i % 2 === 1);
  let start = 0;
  if (edges[0] === 'CAN_CALL') start = 1;
  const out: string[] = [];
  for (let i = start; i < nodes.length; i++) {
    let node = nodes[i]!;
    if (i === start && node.includes('::')) node = node.slice(node.indexOf('::') + 2);
    if (i > start && edges[i - 1] === 'GOVERNED_BY') {
      const effect = estate?.policies.get(node)?.effect;
      if (effect !== undefined) node = `policy:${node}:${effect}`;
    }
    out.push(i === start ? `(${node})` : ` -${edges[i - 1]}-> (${node})`);
  }
  return out.join('');
}

function rewritePaths(value: unknown, estate: Estate | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => rewritePaths(v, estate));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (k === 'paths' && Array.isArray(v)) return [k, v.map((p) => (typeof p === 'string' ? peerPath(p, estate) : p))];
      if (k === 'path' && typeof v === 'string') return [k, peerPath(v, estate)];
      if ((k === 'created_at' || k === 'recorded_at') && typeof v === 'string') return [k, v.replace(/Z$/, '+00:00')];
      return [k, rewritePaths(v, estate)];
    }),
  );
}

/**
 * Our result of `q` in the peer's shape: over MCP unwrapped with graph_generation, graph_instance_id
 * and graph_state_verified; on the CLI (no generation: each run reads the files afresh) the same
 * object without them. A query the peer does not have keeps our shape.
 */
export function peerResult(q: QueryDef, result: unknown, estate: Estate | undefined, state?: GraphState): unknown {
  if (!isPeerTool(q) && !PEER_COMMANDS.includes(q.tool)) return result;
  let r = rewritePaths(result, estate) as Record<string, unknown>;
  if (q.tool === 'check_access' && typeof r.tool_key === 'string' && ['ALLOW', 'DENY', 'NOT_GRANTED'].includes(r.verdict as string)) {
    const key = r.tool_key;
    const at = key.indexOf('::');
    r = { ...r, tool: key.slice(at + 2), server: key.slice(0, at), permitted: r.verdict !== 'NOT_GRANTED' };
  }
  if (q.tool === 'eligible_tools') r = { ...r, eligible: (r.eligible as { tool_key: string }[]).map((e) => e.tool_key) };
  const rowsKey = ROWS_KEY[q.tool];
  if (rowsKey !== undefined) {
    const rows = ((r.rows as unknown[] | undefined) ?? []).map(withToolNames);
    r = q.tool === 'unsafe_callable_tools' ? { agent: r.agent, agent_found: r.agent_found, count: rows.length, [rowsKey]: rows } : { count: rows.length, [rowsKey]: rows };
  }
  return state === undefined ? r : { ...r, graph_generation: state.generation, graph_instance_id: state.instance_id, graph_state_verified: true };
}
