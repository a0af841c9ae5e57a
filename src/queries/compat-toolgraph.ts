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
 *   `graph_instance_id`, the pair of both as `graph_state` (what a consumer caches on) and
 *   `graph_state_verified`: always true here, since every answer is computed from one loaded
 *   estate, never from a graph moving under the read.
 * - Every answer's own fields, row by row (compat-toolgraph-rows.ts): the audit tools and
 *   unsafe_callable_tools as `{count, <rows>}` under the peer's row key, audit_report as `{status,
 *   summary, findings}`, rank_features' rows under `features`, blast_radius as `{kind, node, found,
 *   impacted}`; from the peer's server and query layer (memtomem/toolgraph at 0ba7770), which the
 *   reference folder's README only lists by name. unmapped_tools takes `only_granted` (default
 *   true), the inverse of our `all`.
 * - `eligible` as qualified tool keys and rejected rows `{candidate, tool_key, reason, candidates?,
 *   paths?}`: contracts/preflight.schema.json, which wraps the same selector rules.
 * - Evidence path strings `(tool) -READS-> (uri) -GOVERNED_BY-> (ID:DENY)`: the peer's query layer
 *   and its selector tests; ours name the agent and spell edges `-[:KIND]->`. The same rewriting
 *   applies to the artifacts the peer's CLI writes (preflight, control-preflight, review-candidates
 *   list), whose `created_at` and `recorded_at` read `+00:00` where ours end in `Z` (the contract
 *   fixtures).
 * - Arguments the peer's tools lack are not offered (check_access and unsafe_callable_tools take no
 *   profile: the peer has no gateway decision), and eligible_tools requires its candidates. Each
 *   tool advertises its stamped answer's schema (peerOutputSchema).
 * - Errors: only an unreadable input is the availability signal `backend_unavailable` (retryable);
 *   every other failure is a normal MCP error (README, "If the graph backend is temporarily
 *   unavailable").
 *
 * Pure: rewrites names and values; no I/O.
 */
import type { Estate } from '../governance/estate.ts';
import { scrubUri } from '../governance/provenance.ts';
import type { GraphState } from '../governance/types.ts';
import type { QueryArg, QueryDef } from './query-def.ts';
import { PEER_AUDIT_ROWS, peerAuditReport, peerBlastRadius, peerCheckAccess, peerEligibleTools, peerRankFeatures, peerSelectionExplain, peerUnsafeTools } from './compat-toolgraph-rows.ts';

export const COMPAT_DIALECTS = ['toolgraph'] as const;
export type CompatDialect = (typeof COMPAT_DIALECTS)[number];

const TOOL_NAMES: Readonly<Record<string, string>> = { drift: 'drifted_tools' };

/** The peer's MCP tools, in its README's order, by our tool name. */
const PEER_TOOLS: readonly string[] = ['check_access', 'unsafe_callable_tools', 'blast_radius', 'unmapped_tools', 'orphan_policies', 'unbacked_edges', 'drift', 'destructive_unsafeguarded', 'annotation_contradictions', 'audit_report', 'rank_features', 'eligible_tools', 'selection_explain'];

/** Our queries the peer has as CLI commands only: their answers take its spelling on `--compat` too. */
const PEER_COMMANDS: readonly string[] = ['preflight', 'control_preflight', 'review_candidates'];

/** Does the peer have this query as an MCP tool? */
function isPeerTool(q: QueryDef): boolean {
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

/** The peer's key for the rows of each audit's answer, by our audit name. */
const ROWS_KEY: Readonly<Record<string, string>> = {
  'unmapped-tools': 'tools',
  'orphan-policies': 'policies',
  'unbacked-edges': 'edges',
  drift: 'tools',
  'destructive-unsafeguarded': 'tools',
  'annotation-contradictions': 'contradictions',
};

/** Our arguments the peer's tools do not take. */
const NOT_PEER_ARGS: Readonly<Record<string, readonly string[]>> = { check_access: ['profile'], unsafe_callable_tools: ['profile'] };

/** Arguments the peer requires where we have a default over MCP. */
const PEER_REQUIRED: Readonly<Record<string, readonly string[]>> = { eligible_tools: ['candidates'] };

/** The arguments of `q` as the peer's tool takes them (under our names; peerArgName renames them). */
export function peerArgs(q: QueryDef): QueryArg[] {
  return q.args.filter((a) => !NOT_PEER_ARGS[q.tool]?.includes(a.name)).map((a) => (PEER_REQUIRED[q.tool]?.includes(a.name) ? { ...a, required: 'both' as const } : a));
}

/** Our value of argument `arg` of `q` from the peer's value of it. */
export function fromPeerArg(q: QueryDef, arg: string, value: unknown): unknown {
  return value !== undefined && INVERTED[q.tool]?.includes(arg) ? !value : value;
}

/** The peer's description of argument `arg` where its meaning differs from ours. */
export function peerArgDescription(q: QueryDef, arg: string, ours: string): string {
  return INVERTED[q.tool]?.includes(arg) ? `the negation of: ${ours} (default true: granted tools only)` : ours;
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
 * end is `ID:EFFECT`.
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
      if (effect !== undefined) node = `${node}:${effect}`;
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

/** Our answer's own fields in the peer's shape, or undefined for a query answered as ours. */
function peerAnswer(q: QueryDef, r: Record<string, any>, estate: Estate | undefined): Record<string, unknown> | undefined {
  if (estate === undefined) return undefined;
  const rowsKey = ROWS_KEY[q.name];
  if (rowsKey !== undefined) {
    const rows = PEER_AUDIT_ROWS[q.name]!(r.rows ?? [], estate);
    return { count: rows.length, [rowsKey]: rows };
  }
  switch (q.tool) {
    case 'check_access':
      return peerCheckAccess(r, estate);
    case 'unsafe_callable_tools':
      return peerUnsafeTools(r, estate);
    case 'blast_radius':
      return peerBlastRadius(r, estate);
    case 'audit_report':
      return peerAuditReport(r, estate);
    case 'rank_features':
      return peerRankFeatures(r, estate);
    case 'eligible_tools':
      return peerEligibleTools(rewritePaths(r, estate) as Record<string, unknown>);
    case 'selection_explain':
      return peerSelectionExplain(r, estate);
    case 'preflight': {
      // Its feature rows (--features) are the peer's rank_features rows.
      const p = rewritePaths(r, estate) as Record<string, unknown>;
      // The artifact's evidence URIs are scrubbed (userinfo, query, fragment), as the peer writes them.
      return Array.isArray(r.features) ? { ...p, features: scrubResources(peerRankFeatures({ agent: r.agent, agent_found: r.agent_found, rows: r.features }, estate).features) } : p;
    }
  }
  return undefined;
}

/** `v` with every `resource` member's URI scrubbed, at any depth. */
function scrubResources(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(scrubResources);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'resource' && typeof x === 'string' ? scrubUri(x) : scrubResources(x)]));
}

/**
 * Our result of `q` in the peer's shape: over MCP unwrapped and stamped as the peer stamps every
 * answer (graph_generation, graph_instance_id, graph_state, graph_state_verified); on the CLI (no
 * generation: each run reads the files afresh) the same object without them. A query the peer
 * does not have keeps our shape.
 */
export function peerResult(q: QueryDef, result: unknown, estate: Estate | undefined, state?: GraphState): unknown {
  if (!isPeerTool(q) && !PEER_COMMANDS.includes(q.tool)) return result;
  const r = peerAnswer(q, result as Record<string, unknown>, estate) ?? (rewritePaths(result, estate) as Record<string, unknown>);
  if (state === undefined) return r;
  return { ...r, graph_generation: state.generation, graph_instance_id: state.instance_id, graph_state: { instance_id: state.instance_id, generation: state.generation }, graph_state_verified: true };
}

type Schema = Record<string, any>;

/** A tool's answer definition with the peer's stamp fields added to each object it may be. */
function withStamp(def: Schema, stamp: Schema): Schema {
  if (Array.isArray(def.oneOf)) return { ...def, oneOf: def.oneOf.map((d: Schema) => withStamp(d, stamp)) };
  return { ...def, required: [...(def.required ?? []), ...stamp.required], properties: { ...def.properties, ...stamp.properties } };
}

/**
 * The output schema the peer tool `tool` advertises over MCP, from
 * schemas/results/compat-toolgraph.schema.json: its stamped answer, or the backend_unavailable
 * envelope. Undefined when the schema has no definition for it.
 */
export function peerOutputSchema(tool: string, compatSchema: object | undefined): Schema | undefined {
  const defs = (compatSchema as Schema | undefined)?.$defs as Schema | undefined;
  if (defs?.[tool] === undefined || defs.graph_stamp === undefined) return undefined;
  const unavailable = { type: 'object', additionalProperties: false, required: ['error_kind', 'retryable', 'message'], properties: { error_kind: { const: 'backend_unavailable' }, retryable: { type: 'boolean' }, message: { type: 'string' } } };
  return { type: 'object', anyOf: [withStamp(defs[tool], defs.graph_stamp), unavailable], $defs: defs };
}
