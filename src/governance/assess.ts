/**
 * The facts about one (agent, tool) pair that every verdict, profile decision and risk score is
 * derived from. Pure and cheap: the per-tool DENY reach is cached in the estate, so a batch costs
 * one pass over the agent's grants.
 */
import type { Estate } from './estate.ts';
import { exceptionFor } from './exceptions.ts';
import { isBacked, scrubUri } from './provenance.ts';
import type { ExpectedException } from '../manifest/types.ts';
import type { DenyEvidence, DenyReach, Profile, RejectReason } from './types.ts';
import type { Writable } from './writable.types.ts';

/** What the risk table and the profiles read of an assessment (`assess` gives it with each DENY row's evidence). */
interface DecisionFacts {
  readonly granted: boolean;
  readonly exposed: boolean;
  readonly mapped: boolean;
  /**
   * Some load-bearing edge the decision rests on (the tool's data access, the bindings on those
   * resources and on the tool itself) cites no evidence. The grant is not one: the peer's risk
   * table scores 0.4 for an unbacked load-bearing edge, and audits grants apart
   * (`unbacked-edges --include-grants`).
   */
  readonly unbacked: boolean;
  /** Only its length is read: one evidence per DENY row. */
  readonly deny_evidence: { readonly length: number };
  readonly violations: number;
}

export interface Assessment extends DecisionFacts {
  readonly agent: string;
  readonly tool_key: string;
  readonly deny_evidence: readonly DenyEvidence[];
}

export function evidencePath(agent: string, e: { tool_key: string; resource: string | null; via: string; policy: string }): string {
  return `(${agent})${pathAfterAgent(e)}`;
}

function pathAfterAgent(e: { tool_key: string; resource: string | null; via: string; policy: string }): string {
  const head = `-[:CAN_CALL]->(${e.tool_key})`;
  return e.resource === null ? `${head}-[:GOVERNED_BY]->(${e.policy})` : `${head}-[:${e.via}]->(${scrubUri(e.resource)})-[:GOVERNED_BY]->(${e.policy})`;
}

// A reach is the estate's own cached row (Estate.denyReach), shared by every agent granted the
// tool, so the part of its evidence path after the agent is written once per reach.
const tailByReach = new WeakMap<DenyReach, string>();

/** The evidence path of a DENY row for `agent`, as its evidence carries it. */
export function denyRowPath(agent: string, reach: DenyReach): string {
  let tail = tailByReach.get(reach);
  if (tail === undefined) tailByReach.set(reach, (tail = pathAfterAgent(reach)));
  return `(${agent})${tail}`;
}

/** The reach as this agent's evidence; the reach's fields are copied one by one (a spread of it cost more than the rest of `assess`). */
function evidence(reach: DenyReach, agent: string, x: ExpectedException | undefined): DenyEvidence {
  const e: Writable<DenyReach> & Partial<Writable<DenyEvidence>> = { tool_key: reach.tool_key, resource: reach.resource, via: reach.via, policy: reach.policy, scope: reach.scope, provenance: reach.provenance };
  if (reach.policy_provenance !== undefined) e.policy_provenance = reach.policy_provenance;
  e.agent = agent;
  e.path = denyRowPath(agent, reach);
  e.classification = x ? 'authorized_but_governed' : 'violation';
  if (x) e.exception_reason = x.reason;
  return e as DenyEvidence;
}

/** The facts of an assessment with its DENY rows as they are, and the exception classifying each row (if any). */
export interface DenyRows extends DecisionFacts {
  readonly deny_evidence: readonly DenyReach[];
  readonly exceptions: readonly (ExpectedException | undefined)[];
}

const NO_ROWS: readonly DenyReach[] = [];
const NO_EXCEPTIONS: readonly undefined[] = [];

/**
 * `assess` without making each row's evidence: a compile decides every grant, and an eligible
 * decision reads none of it (a rejection reads only the paths, `denyRowPath`).
 */
export function denyRows(estate: Estate, agent: string, toolKey: string): DenyRows {
  const granted = estate.grantsByAgent.get(agent)?.has(toolKey) ?? false;
  const reaches = granted ? estate.denyReach(toolKey) : NO_ROWS;
  let exceptions: readonly (ExpectedException | undefined)[] = NO_EXCEPTIONS;
  let violations = 0;
  if (reaches.length > 0) {
    const found = new Array<ExpectedException | undefined>(reaches.length);
    for (let i = 0; i < reaches.length; i++) {
      const x = exceptionFor(estate, agent, reaches[i]!);
      if (!x) violations++;
      found[i] = x;
    }
    exceptions = found;
  }
  return {
    granted,
    exposed: estate.tools.get(toolKey)?.exposed ?? false,
    mapped: (estate.accessByTool.get(toolKey)?.length ?? 0) > 0,
    unbacked: toolHasUnbackedEdge(estate, toolKey),
    deny_evidence: reaches,
    exceptions,
    violations,
  };
}

export function assess(estate: Estate, agent: string, toolKey: string): Assessment {
  const rows = denyRows(estate, agent, toolKey);
  return {
    agent,
    tool_key: toolKey,
    granted: rows.granted,
    exposed: rows.exposed,
    mapped: rows.mapped,
    unbacked: rows.unbacked,
    deny_evidence: rows.deny_evidence.map((reach, i) => evidence(reach, agent, rows.exceptions[i])),
    violations: rows.violations,
  };
}

// Whether a tool's own load-bearing edges (its data access, and the bindings on its resources and
// on itself) cite evidence does not depend on the agent: compute it once per tool and estate.
const unbackedByEstate = new WeakMap<Estate, Map<string, boolean>>();

function toolHasUnbackedEdge(estate: Estate, toolKey: string): boolean {
  let cache = unbackedByEstate.get(estate);
  if (!cache) unbackedByEstate.set(estate, (cache = new Map()));
  let unbacked = cache.get(toolKey);
  if (unbacked === undefined) {
    unbacked = false;
    for (const a of estate.accessByTool.get(toolKey) ?? []) {
      if (!isBacked(a.provenance)) unbacked = true;
      for (const b of estate.bindingsByTarget.get(a.resource) ?? []) if (!isBacked(b.provenance)) unbacked = true;
    }
    for (const b of estate.bindingsByTarget.get(toolKey) ?? []) if (!isBacked(b.provenance)) unbacked = true;
    cache.set(toolKey, unbacked);
  }
  return unbacked;
}

/** The peer's rule-based risk table, first match wins. */
export function riskScore(a: DecisionFacts): number {
  if (a.violations > 0) return 1.0;
  if (!a.exposed) return 0.8;
  if (!a.mapped) return 0.6;
  if (a.unbacked) return 0.4;
  if (a.deny_evidence.length > 0) return 0.2;
  return 0.0;
}

/** Why a profile rejects a granted tool, or undefined when it is eligible. */
export function profileReject(a: DecisionFacts, profile: Profile): RejectReason | undefined {
  if (!a.granted) return 'NOT_GRANTED';
  if (a.violations > 0 && profile !== 'explore') return 'DENY_VIOLATION';
  if (!a.exposed) return 'DRIFTED';
  if (profile !== 'strict') return undefined;
  if (a.deny_evidence.length > 0) return 'DENY_GOVERNED';
  if (!a.mapped) return 'UNMAPPED';
  return undefined;
}
