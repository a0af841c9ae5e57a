/**
 * `control-preflight`: one advisory result for a whole control plan (the peer's
 * `toolgraph.control-preflight` schema_version 1). Two halves:
 *
 * - the structural lint of the plan's topology and bounds (`lintPlan`): exactly one start and one
 *   end, no edge naming an unknown node, every node reachable from the start, an end reachable
 *   from every node, no control cycle, no model-decided fan-out without `max_fan_out`, and run
 *   limits no lower than what the nodes declare;
 * - every declared principal's candidate tools through the selector (`select`, the rules of
 *   `eligible-tools` and `compile`), all against one estate, so one graph state covers the run.
 *
 * Then read-to-write exposures: an eligible tool that READS a resource at one node, and an
 * eligible tool that WRITES a resource at a node downstream of it, with the shortest node path
 * between them as the witness (the peer's exposure fixture has this shape; the rule is ours).
 *
 * `decision` is `advisory_warn` when anything is found (a finding, a rejected candidate, an
 * unknown principal, an exposure), else `advisory_allow`. Advisory only: the caller exits 0 on
 * both. Pure: no clock, no files; the caller passes created_at, plan digest and graph state.
 */
import type { Estate } from '../governance/estate.ts';
import type { GraphState, Profile } from '../governance/types.ts';
import { select, type RejectedRow } from '../selector/eligible-tools.ts';
import { selectorIndex } from '../selector/selector-index.ts';
import type { ControlPlan } from './control-plan.ts';

export const CONTROL_PREFLIGHT_KIND = 'toolgraph.control-preflight';

export type FindingCode =
  | 'START_NODE_COUNT'
  | 'END_NODE_COUNT'
  | 'UNKNOWN_NODE_REFERENCE'
  | 'UNREACHABLE_NODE'
  | 'NO_TERMINAL_PATH'
  | 'CONTROL_CYCLE_UNSUPPORTED'
  | 'MODEL_FANOUT_UNBOUNDED'
  | 'CALL_BOUND_TOO_LOW'
  | 'PARALLEL_BOUND_TOO_LOW';

export interface Finding {
  readonly code: FindingCode;
  /** Node ids the finding is about, in plan order. */
  readonly nodes?: readonly string[];
  /** Indices into the plan's `edges`, ascending. */
  readonly edges?: readonly number[];
  readonly declared?: number;
  readonly required?: number;
}

export interface PrincipalEvaluation {
  readonly principal: string;
  readonly agent_found: boolean;
  readonly eligible: readonly string[];
  readonly rejected: readonly RejectedRow[];
}

export interface PotentialExposure {
  readonly reader_node: string;
  readonly reader_principal: string;
  readonly read_tool: string;
  readonly read_resource: string;
  readonly writer_node: string;
  readonly writer_principal: string;
  readonly write_tool: string;
  readonly write_resource: string;
  readonly witness_path: readonly string[];
}

export interface ControlPreflight {
  readonly schema_version: 1;
  readonly kind: typeof CONTROL_PREFLIGHT_KIND;
  readonly run_id: string;
  readonly created_at: string;
  readonly mode: 'advisory';
  readonly profile: Profile;
  readonly plan_digest: string;
  readonly graph_state: GraphState;
  readonly decision: 'advisory_allow' | 'advisory_warn';
  readonly evaluations: readonly PrincipalEvaluation[];
  readonly findings: readonly Finding[];
  /** The first MAX_EXPOSURES exposures in the order below; the count and a flag say how many there are in all. */
  readonly potential_exposures: readonly PotentialExposure[];
  readonly potential_exposure_count: number;
  readonly potential_exposures_truncated: boolean;
  /** Additive: the input digests the graph state was derived from, so a later run can continue it. */
  readonly governance_digest?: string;
  readonly catalog_digest?: string;
  readonly connectome_digest?: string | null;
}

export interface ControlPreflightOptions {
  readonly profile: Profile;
  /** `sha256:` + hex of the exact plan bytes. */
  readonly planDigest: string;
  readonly createdAt: string;
  readonly graphState: GraphState;
  readonly digests?: { readonly governance_digest: string; readonly catalog_digest: string; readonly connectome_digest?: string | null };
}

/** The plan's nodes as integer ids with forward adjacency (edges to unknown nodes left out). */
interface Topology {
  readonly index: ReadonlyMap<string, number>;
  readonly out: readonly number[][];
  readonly into: readonly number[][];
}

function topology(plan: ControlPlan): Topology {
  const index = new Map<string, number>();
  plan.nodes.forEach((n, i) => index.set(n.id, i));
  const out: number[][] = plan.nodes.map(() => []);
  const into: number[][] = plan.nodes.map(() => []);
  for (const e of plan.edges) {
    const f = index.get(e.from);
    const t = index.get(e.to);
    if (f === undefined || t === undefined) continue;
    out[f]!.push(t);
    into[t]!.push(f);
  }
  return { index, out, into };
}

function reach(from: readonly number[], next: readonly number[][], n: number): Uint8Array {
  const seen = new Uint8Array(n);
  const stack = [...from];
  for (const s of from) seen[s] = 1;
  while (stack.length > 0) {
    const u = stack.pop()!;
    for (const v of next[u]!) {
      if (!seen[v]) {
        seen[v] = 1;
        stack.push(v);
      }
    }
  }
  return seen;
}

/** Nodes on a cycle: members of a strongly connected component of two or more, or with a self-loop (iterative Tarjan). */
function cyclicNodes(t: Topology, n: number): Uint8Array {
  const onCycle = new Uint8Array(n);
  const idx = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack: number[] = [];
  let counter = 0;
  for (let root = 0; root < n; root++) {
    if (idx[root] !== -1) continue;
    const work: [number, number][] = [[root, 0]];
    idx[root] = low[root] = counter++;
    stack.push(root);
    onStack[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [u, i] = frame;
      const succ = t.out[u]!;
      if (i < succ.length) {
        frame[1]++;
        const v = succ[i]!;
        if (v === u) onCycle[u] = 1;
        if (idx[v] === -1) {
          idx[v] = low[v] = counter++;
          stack.push(v);
          onStack[v] = 1;
          work.push([v, 0]);
        } else if (onStack[v]) low[u] = Math.min(low[u]!, idx[v]!);
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const p = work[work.length - 1]![0];
        low[p] = Math.min(low[p]!, low[u]!);
      }
      if (low[u] === idx[u]) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack[w] = 0;
          comp.push(w);
        } while (w !== u);
        if (comp.length > 1) for (const c of comp) onCycle[c] = 1;
      }
    }
  }
  return onCycle;
}

/**
 * The structural findings, in the order of the finding codes above. Bounds:
 * - calls: every agent node may run `max_invocations` times, so the run needs their sum;
 * - parallelism: agent nodes at the same longest-path depth from the start are ordered by no path
 *   and may run at once, so the run needs at least the heaviest depth's sum of `max_parallelism`
 *   (and at least any one node's). This is a lower bound on the true need: a finding is never
 *   false, though a plan whose widest concurrent set spans depths can pass. Cyclic plans get only
 *   the per-node bound.
 */
export function lintPlan(plan: ControlPlan): Finding[] {
  const findings: Finding[] = [];
  const n = plan.nodes.length;
  const t = topology(plan);
  const ids = plan.nodes.map((x) => x.id);
  const pick = (mask: Uint8Array, want: 0 | 1) => ids.filter((_, i) => mask[i] === want);

  const starts = plan.nodes.map((x, i) => (x.kind === 'start' ? i : -1)).filter((i) => i >= 0);
  const ends = plan.nodes.map((x, i) => (x.kind === 'end' ? i : -1)).filter((i) => i >= 0);
  if (starts.length !== 1) findings.push({ code: 'START_NODE_COUNT', nodes: starts.map((i) => ids[i]!), declared: starts.length, required: 1 });
  if (ends.length !== 1) findings.push({ code: 'END_NODE_COUNT', nodes: ends.map((i) => ids[i]!), declared: ends.length, required: 1 });

  const unknown = plan.edges.map((e, i) => (t.index.has(e.from) && t.index.has(e.to) ? -1 : i)).filter((i) => i >= 0);
  if (unknown.length > 0) findings.push({ code: 'UNKNOWN_NODE_REFERENCE', edges: unknown, nodes: [...new Set(unknown.flatMap((i) => [plan.edges[i]!.from, plan.edges[i]!.to]).filter((id) => !t.index.has(id)))] });

  if (starts.length > 0) {
    const unreachable = pick(reach(starts, t.out, n), 0);
    if (unreachable.length > 0) findings.push({ code: 'UNREACHABLE_NODE', nodes: unreachable });
  }
  if (ends.length > 0) {
    const stuck = pick(reach(ends, t.into, n), 0);
    if (stuck.length > 0) findings.push({ code: 'NO_TERMINAL_PATH', nodes: stuck });
  } else if (n > 0) findings.push({ code: 'NO_TERMINAL_PATH', nodes: ids });

  const cyc = cyclicNodes(t, n);
  const cyclic = pick(cyc, 1);
  if (cyclic.length > 0) {
    const edges = plan.edges.map((e, i) => (cyc[t.index.get(e.from) ?? -1] && cyc[t.index.get(e.to) ?? -1] ? i : -1)).filter((i) => i >= 0);
    findings.push({ code: 'CONTROL_CYCLE_UNSUPPORTED', nodes: cyclic, edges });
  }

  const unbounded = plan.edges.map((e, i) => (e.kind === 'fanout' && e.decided_by === 'model' && e.max_fan_out === undefined ? i : -1)).filter((i) => i >= 0);
  if (unbounded.length > 0) findings.push({ code: 'MODEL_FANOUT_UNBOUNDED', edges: unbounded, nodes: [...new Set(unbounded.map((i) => plan.edges[i]!.from))] });

  const agents = plan.nodes.map((x, i) => (x.kind === 'agent' ? i : -1)).filter((i) => i >= 0);
  const calls = agents.reduce((s, i) => s + plan.nodes[i]!.max_invocations!, 0);
  if (calls > plan.limits.maximum_agent_calls) findings.push({ code: 'CALL_BOUND_TOO_LOW', nodes: agents.map((i) => ids[i]!), declared: plan.limits.maximum_agent_calls, required: calls });

  let parallel = 0;
  let widest: number[] = [];
  for (const i of agents) {
    if (plan.nodes[i]!.max_parallelism! > parallel) {
      parallel = plan.nodes[i]!.max_parallelism!;
      widest = [i];
    }
  }
  if (cyclic.length === 0) {
    const depth = longestDepths(t, n);
    const byDepth = new Map<number, number[]>();
    for (const i of agents) {
      const d = depth[i]!;
      const list = byDepth.get(d) ?? [];
      list.push(i);
      byDepth.set(d, list);
    }
    for (const list of byDepth.values()) {
      const sum = list.reduce((s, i) => s + plan.nodes[i]!.max_parallelism!, 0);
      if (sum > parallel) {
        parallel = sum;
        widest = list;
      }
    }
  }
  if (parallel > plan.limits.maximum_parallelism) findings.push({ code: 'PARALLEL_BOUND_TOO_LOW', nodes: widest.map((i) => ids[i]!), declared: plan.limits.maximum_parallelism, required: parallel });
  return findings;
}

/** Longest-path depth of each node from the sources (Kahn order); only called on an acyclic plan. */
function longestDepths(t: Topology, n: number): Int32Array {
  const depth = new Int32Array(n);
  const indeg = new Int32Array(n);
  for (let u = 0; u < n; u++) for (const v of t.out[u]!) indeg[v]!++;
  const queue: number[] = [];
  for (let u = 0; u < n; u++) if (indeg[u] === 0) queue.push(u);
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (const v of t.out[u]!) {
      if (depth[u]! + 1 > depth[v]!) depth[v] = depth[u]! + 1;
      if (--indeg[v]! === 0) queue.push(v);
    }
  }
  return depth;
}

const QUALIFIED = /^[^:]+::[^:]+$/;

/** Every principal's candidates, in plan order, against one selector index (one graph state). */
export function evaluatePrincipals(estate: Estate, plan: ControlPlan, profile: Profile): PrincipalEvaluation[] {
  const idx = selectorIndex(estate);
  return plan.principals.map((p) => {
    const view = idx.agent(p.id);
    if (!view) return { principal: p.id, agent_found: false, eligible: [], rejected: [] };
    const eligible: string[] = [];
    const rejected: RejectedRow[] = [];
    const seen = new Set<string>();
    for (const c of p.candidate_tools) {
      const s = select(idx, view, c, profile);
      if (!s.eligible) rejected.push(s.row.tool_key === null || QUALIFIED.test(s.row.tool_key) ? s.row : { ...s.row, tool_key: null });
      else if (!seen.has(s.row.tool_key)) {
        seen.add(s.row.tool_key);
        eligible.push(s.row.tool_key);
      }
    }
    return { principal: p.id, agent_found: true, eligible, rejected };
  });
}

/** BFS tree from `from` over plan edges: prev[v] is v's predecessor on a shortest path, -1 where v is not downstream. */
function bfsTree(t: Topology, from: number, n: number): Int32Array {
  const prev = new Int32Array(n).fill(-1);
  const queue = [from];
  for (let q = 0; q < queue.length; q++) {
    const u = queue[q]!;
    for (const v of t.out[u]!) {
      if (prev[v] !== -1 || v === from) continue;
      prev[v] = u;
      queue.push(v);
    }
  }
  return prev;
}

function pathTo(prev: Int32Array, from: number, to: number, ids: readonly string[]): string[] {
  const path = [ids[to]!];
  for (let w = to; w !== from; w = prev[w]!) path.push(ids[prev[w]!]!);
  return path.reverse();
}

/** At most this many exposures are listed; `potential_exposure_count` gives the total. */
export const MAX_EXPOSURES = 1000;

/**
 * Read-to-write exposures: for each node, each of its principals, each eligible tool with a READS
 * edge; then each node strictly downstream (reachable by one or more edges), each of its
 * principals, each eligible tool with a WRITES edge. Ordered by reader node (plan order), reader
 * principal (node order), read tool (eligible order), read resource (manifest order), then the
 * same for the writer side.
 */
export function potentialExposures(estate: Estate, plan: ControlPlan, evaluations: readonly PrincipalEvaluation[], limit = MAX_EXPOSURES): { rows: PotentialExposure[]; total: number } {
  const t = topology(plan);
  const ids = plan.nodes.map((x) => x.id);
  const eligibleBy = new Map(evaluations.map((e) => [e.principal, e.eligible]));
  const accessOf = (principal: string, mode: 'READS' | 'WRITES') =>
    (eligibleBy.get(principal) ?? []).flatMap((tool) => (estate.accessByTool.get(tool) ?? []).filter((a) => a.mode === mode).map((a) => ({ tool, resource: a.resource })));
  // Each node's reading and writing (principal, tool, resource) triples, gathered once.
  const side = (mode: 'READS' | 'WRITES') => plan.nodes.map((n) => n.principals.flatMap((p) => accessOf(p, mode).map((x) => ({ principal: p, ...x }))));
  const readersAt = side('READS');
  const writersAt = side('WRITES');
  const out: PotentialExposure[] = [];
  let total = 0;
  plan.nodes.forEach((rn, ri) => {
    const readers = readersAt[ri]!;
    if (readers.length === 0) return;
    const prev = bfsTree(t, ri, ids.length);
    plan.nodes.forEach((wn, wi) => {
      const writers = writersAt[wi]!;
      if (writers.length === 0 || prev[wi] === -1) return;
      total += readers.length * writers.length;
      if (out.length >= limit) return;
      const path = pathTo(prev, ri, wi, ids);
      for (const r of readers) {
        for (const w of writers) {
          if (out.length >= limit) return;
          out.push({
            reader_node: rn.id,
            reader_principal: r.principal,
            read_tool: r.tool,
            read_resource: r.resource,
            writer_node: wn.id,
            writer_principal: w.principal,
            write_tool: w.tool,
            write_resource: w.resource,
            witness_path: path,
          });
        }
      }
    });
  });
  return { rows: out, total };
}

export function controlPreflight(estate: Estate, plan: ControlPlan, options: ControlPreflightOptions): ControlPreflight {
  const findings = lintPlan(plan);
  const evaluations = evaluatePrincipals(estate, plan, options.profile);
  const { rows: potential_exposures, total } = potentialExposures(estate, plan, evaluations);
  const warn = findings.length > 0 || total > 0 || evaluations.some((e) => !e.agent_found || e.rejected.length > 0);
  return {
    schema_version: 1,
    kind: CONTROL_PREFLIGHT_KIND,
    run_id: plan.run_id,
    created_at: options.createdAt,
    mode: 'advisory',
    profile: options.profile,
    plan_digest: options.planDigest,
    graph_state: options.graphState,
    decision: warn ? 'advisory_warn' : 'advisory_allow',
    evaluations,
    findings,
    potential_exposures,
    potential_exposure_count: total,
    potential_exposures_truncated: total > potential_exposures.length,
    ...(options.digests ? { governance_digest: options.digests.governance_digest, catalog_digest: options.digests.catalog_digest, connectome_digest: options.digests.connectome_digest ?? null } : {}),
  };
}
