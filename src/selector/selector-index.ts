/**
 * What the selector commands share, computed once per estate (one graph state) and memoised:
 * candidate resolution, per-tool facts (exposure, mapping, evidence coverage, DENY reach),
 * annotation claims (only when a feature row asks), per-agent views (grants, the expected
 * exceptions that can apply) and each (agent, tool) assessment once asked for. A batch then costs a few map lookups per candidate; each tool's
 * graph facts are gathered once, however many batches or agents ask about it.
 *
 * The assessment built here is the same value `assess()` returns (tested), so risk scores and
 * profile decisions come from the same rule functions as `compile`.
 */
import type { Assessment } from '../governance/assess.ts';
import { evidencePath } from '../governance/assess.ts';
import { annotationClaims, type AnnotationClaims } from '../governance/annotations.ts';
import type { Estate, ResolvedGrant } from '../governance/estate.ts';
import { mostSpecificException } from '../governance/exceptions.ts';
import { isBacked } from '../governance/provenance.ts';
import type { DenyEvidence, DenyReach, ReportedProvenance, ToolResolution } from '../governance/types.ts';
import type { ExpectedException } from '../manifest/types.ts';

export interface ToolFacts {
  readonly key: string;
  readonly exposed: boolean;
  readonly mapped: boolean;
  /** Authored edges the tool's decisions rest on besides the grant: its data access and the bindings on its path. */
  readonly edges: number;
  /** How many of those cite evidence. */
  readonly backed: number;
  readonly reach: readonly DenyReach[];
}

/** The annotation self-claims of a tool, only `rank-features` and `selection-explain` read them. */
export interface ToolClaims {
  readonly claims: AnnotationClaims;
  /** The claims' provenance: crawled, medium confidence, citing the server's tools/list. */
  readonly claimsProvenance: ReportedProvenance;
}

export interface AgentView {
  readonly agent: string;
  readonly grants: ReadonlyMap<string, ResolvedGrant>;
  /** The expected exceptions whose agent field matches this agent, in manifest order. */
  readonly exceptions: readonly ExpectedException[];
}

export class SelectorIndex {
  private readonly resolutions = new Map<string, ToolResolution>();
  private readonly facts = new Map<string, ToolFacts>();
  private readonly claimsByTool = new Map<string, ToolClaims>();
  private readonly views = new Map<string, AgentView | null>();
  private readonly assessments = new Map<string, Map<string, Assessment>>();

  constructor(readonly estate: Estate) {}

  /** How a candidate resolves, memoised: a repeated batch then allocates nothing to resolve. */
  resolve(candidate: string): ToolResolution {
    let r = this.resolutions.get(candidate);
    if (r === undefined) {
      r = this.estate.resolveTool(candidate);
      this.resolutions.set(candidate, r);
    }
    return r;
  }

  agent(agent: string): AgentView | undefined {
    let v = this.views.get(agent);
    if (v === undefined) {
      const grants = this.estate.grantsByAgent.get(agent);
      v = this.estate.agents.has(agent) && grants ? { agent, grants, exceptions: this.estate.exceptions.filter((x) => x.agent === '*' || x.agent === agent) } : null;
      this.views.set(agent, v);
    }
    return v ?? undefined;
  }

  tool(key: string): ToolFacts {
    return this.facts.get(key) ?? this.gather(key);
  }

  claims(key: string): ToolClaims {
    let c = this.claimsByTool.get(key);
    if (c === undefined) {
      const node = this.estate.tools.get(key);
      c = {
        claims: annotationClaims(this.estate, key),
        claimsProvenance: { source: 'crawled', confidence: 'medium', evidence: `${node?.server ?? '?'} tools/list: ${node?.name ?? key}.annotations (self-claims)` },
      };
      this.claimsByTool.set(key, c);
    }
    return c;
  }

  // Written without closures: this runs once per tool on a cold batch, and under tsx every
  // closure created here would also be renamed (esbuild's keepNames) on each call.
  private gather(key: string): ToolFacts {
    const e = this.estate;
    const access = e.accessByTool.get(key);
    let edges = 0;
    let backed = 0;
    if (access !== undefined) {
      for (const a of access) {
        edges++;
        if (isBacked(a.provenance)) backed++;
        const bindings = e.bindingsByTarget.get(a.resource);
        if (bindings === undefined) continue;
        for (const b of bindings) {
          edges++;
          if (isBacked(b.provenance)) backed++;
        }
      }
    }
    const own = e.bindingsByTarget.get(key);
    if (own !== undefined) {
      for (const b of own) {
        edges++;
        if (isBacked(b.provenance)) backed++;
      }
    }
    const f: ToolFacts = { key, exposed: e.tools.get(key)?.exposed ?? false, mapped: access !== undefined && access.length > 0, edges, backed, reach: e.denyReach(key) };
    this.facts.set(key, f);
    return f;
  }

  /** The assessment of (agent, tool), equal to `assess(estate, agent, key)`; memoised per agent. */
  assess(view: AgentView, key: string): Assessment {
    let byTool = this.assessments.get(view.agent);
    if (byTool === undefined) {
      byTool = new Map();
      this.assessments.set(view.agent, byTool);
    }
    let a = byTool.get(key);
    if (a === undefined) {
      a = this.assessNow(view, key);
      byTool.set(key, a);
    }
    return a;
  }

  private assessNow(view: AgentView, key: string): Assessment {
    const facts = this.tool(key);
    const grant = view.grants.get(key);
    const deny_evidence: DenyEvidence[] = [];
    let violations = 0;
    if (grant) {
      for (const reach of facts.reach) {
        const x: ExpectedException | undefined = mostSpecificException(this.estate, view.exceptions, view.agent, reach);
        if (!x) violations++;
        deny_evidence.push({
          ...reach,
          agent: view.agent,
          path: evidencePath(view.agent, reach),
          classification: x ? 'authorized_but_governed' : 'violation',
          ...(x ? { exception_reason: x.reason } : {}),
        });
      }
    }
    // Load-bearing edges only (the peer's risk table): a grant without evidence is audited by
    // `unbacked-edges --include-grants`, but does not make a decision unbacked.
    const unbacked = facts.backed < facts.edges;
    return { agent: view.agent, tool_key: key, granted: grant !== undefined, exposed: facts.exposed, mapped: facts.mapped, unbacked, deny_evidence, violations };
  }
}

const cache = new WeakMap<Estate, SelectorIndex>();

/** The estate's selector index, built on first use and kept for the estate's lifetime. */
export function selectorIndex(estate: Estate): SelectorIndex {
  let idx = cache.get(estate);
  if (!idx) {
    idx = new SelectorIndex(estate);
    cache.set(estate, idx);
  }
  return idx;
}
