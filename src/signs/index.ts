/**
 * Sign-slot evaluation (DESIGN.md §5, "Sign policy contract"): a consumer's Rego policy, loaded once
 * into one of the engines, is asked once per connectome edge with
 * `input = {edge: {from, to, kind, provenance}, from: <node>, to: <node>}` and `data` = the OPA data
 * document, at an entrypoint (default `data.toolgate.signs.sign`).
 *
 * Undefined leaves the edge `unset`. One of the five sign names is written. Anything else (another
 * string, a set, a non-string, several results, a conflict) is collected for every edge at fault
 * and refused once, naming each edge and value; no graph is produced, so nothing is written. The
 * signed graph holds exactly the input's nodes and edges in the same order: a sign never drops,
 * hides or reorders an edge.
 */
import { ToolgateError } from '../errors.ts';
import { buildGraph, SIGNS, type ConnectomeEdge, type ConnectomeNode, type Graph, type Sign } from '../connectome/index.ts';
import type { Evaluation, LoadedPolicy } from '../engines/engine.ts';
import type { RegoLimits } from '../rego/limits.ts';

export const DEFAULT_SIGN_ENTRYPOINT = 'data.toolgate.signs.sign';

export interface SignEdgeInput {
  readonly edge: { readonly from: string; readonly to: string; readonly kind: string; readonly provenance: string };
  readonly from: unknown;
  readonly to: unknown;
}

export interface SignResult {
  readonly graph: Graph;
  /** How many edges got each sign. */
  readonly counts: Readonly<Record<Sign, number>>;
}

export interface SignOptions {
  readonly entrypoint?: string;
  /** Names the policy in errors. */
  readonly policyName?: string;
  /** Bounds every edge's evaluation (builtin engine); give `deadlineAt` to bound the whole run. */
  readonly limits?: RegoLimits;
}

const SIGN_SET: ReadonlySet<string> = new Set(SIGNS);

function edgeName(e: ConnectomeEdge): string {
  return `${e.from} -${e.kind}/${e.provenance}-> ${e.to}`;
}

function shown(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

/** The per-edge input documents, nodes in their JSON form ({id, kind, level, labels}). */
export function signInputs(graph: Graph): SignEdgeInput[] {
  const nodeDocs = new Map<string, unknown>();
  graph.nodes.forEach((n: ConnectomeNode, i) => {
    nodeDocs.set(n.id, { id: n.id, kind: n.kind, level: n.level, labels: JSON.parse(graph.labelTexts[i] ?? '{}') as unknown });
  });
  return graph.edges.map((e) => ({
    edge: { from: e.from, to: e.to, kind: e.kind, provenance: e.provenance },
    from: nodeDocs.get(e.from) ?? null,
    to: nodeDocs.get(e.to) ?? null,
  }));
}

/**
 * The sign an evaluation gives, or the fault text (for the refusal) when it gives none of the five.
 */
export function signOf(ev: Evaluation): { sign: Sign } | { fault: string } {
  if (!ev.defined) return { sign: 'unset' };
  if (ev.type === 'multiple') return { fault: `more than one value: ${shown(ev.multiple)}` };
  if (ev.type === 'set') return { fault: `a set of values ${shown(ev.value)}, not one sign` };
  if (typeof ev.value !== 'string') return { fault: `a ${ev.type} ${shown(ev.value)}, not a sign name` };
  if (!SIGN_SET.has(ev.value)) return { fault: `${shown(ev.value)}, not one of ${SIGNS.join(', ')}` };
  return { sign: ev.value as Sign };
}

/**
 * Evaluates the loaded policy (its data already set) for every edge and returns the signed graph.
 *
 * @example
 *   const policy = await loadPolicy({ kind: 'rego', modules: [{ name: 'signs.rego', text }] });
 *   policy.setData(dataDocument);
 *   const { graph: signed } = signEdges(graph, policy);
 */
export function signEdges(graph: Graph, policy: LoadedPolicy, options: SignOptions = {}): SignResult {
  const entrypoint = options.entrypoint ?? DEFAULT_SIGN_ENTRYPOINT;
  const inputs = signInputs(graph);
  const faults: string[] = [];
  const counts: Record<Sign, number> = { allow: 0, deny: 0, hold: 0, ungoverned: 0, unset: 0 };
  const edges: ConnectomeEdge[] = [];
  graph.edges.forEach((e, i) => {
    let ev: Evaluation;
    try {
      ev = policy.evaluate(inputs[i], entrypoint, options.limits);
    } catch (err) {
      // A conflict (a complete rule with two values) surfaces as an evaluation error in every engine.
      if (err instanceof ToolgateError && err.code === 'REGO_EVAL_ERROR') {
        faults.push(`edge ${edgeName(e)}: evaluating ${entrypoint} failed: ${err.message}`);
        edges.push(e);
        return;
      }
      if (err instanceof ToolgateError) {
        // a limit names the policy too: the rule's file is a module of it, not always its path
        const prefix = err.code === 'REGO_LIMIT_EXCEEDED' ? `${options.policyName ?? 'the sign policy'}: ` : '';
        throw new ToolgateError(err.code, `${prefix}edge ${edgeName(e)}: ${err.message}`, { at: err.at, details: err.details, cause: err });
      }
      throw err;
    }
    const s = signOf(ev);
    if ('fault' in s) {
      faults.push(`edge ${edgeName(e)}: ${entrypoint} gave ${s.fault}`);
      edges.push(e);
      return;
    }
    counts[s.sign]++;
    edges.push(s.sign === e.sign ? e : { ...e, sign: s.sign });
  });
  if (faults.length > 0) {
    const policyName = options.policyName ?? 'the sign policy';
    throw new ToolgateError('SIGN_VALUE_INVALID', `${policyName}: ${faults.length} edge(s) got no valid sign; first: ${faults[0]}`, {
      at: [{ file: policyName, path: entrypoint }],
      details: faults,
    });
  }
  const signed = buildGraph({ nodes: graph.nodes, edges });
  return { graph: signed, counts };
}
