/**
 * `selection-explain AGENT TOOL`: short human reasons for one selection decision, a view over the
 * same feature row and profile rules as `rank-features` and `eligible-tools`: how the name
 * resolved, the grant and its evidence, each DENY path and its classification, drift, mapping,
 * the annotation self-claims, the risk score's rule, and the decision under each profile.
 */
import { PROFILES, type Profile, type RejectReason } from '../governance/types.ts';
import type { Estate } from '../governance/estate.ts';
import { featureRow, type FeatureRow } from './rank-features.ts';
import { select } from './eligible-tools.ts';
import { selectorIndex } from './selector-index.ts';

export interface SelectionExplanation {
  readonly agent: string;
  readonly agent_found: boolean;
  readonly tool: string;
  readonly tool_key: string | null;
  readonly verdict: FeatureRow['verdict'] | 'AGENT_NOT_FOUND';
  readonly risk_score: number | null;
  /** Per profile: `eligible`, or the reject reason. */
  readonly decisions: { readonly [P in Profile]: 'eligible' | RejectReason } | null;
  readonly reasons: readonly string[];
  /** With a profile asked for (`--profile`): that profile and its decision. */
  readonly profile?: Profile;
  readonly decision?: 'eligible' | RejectReason;
}

const RISK_RULE: Record<string, string> = {
  '1': 'a DENY path no expected exception covers (violation)',
  '0.8': 'the tool is drifted: no server in the catalog exposes it',
  '0.6': 'the tool is unmapped: no READS/WRITES edge is authored',
  '0.4': 'an edge the decision rests on cites no evidence',
  '0.2': 'DENY paths, all covered by expected exceptions',
  '0': 'nothing in the table applies',
};

export function selectionExplain(estate: Estate, agent: string, tool: string, profile?: Profile): SelectionExplanation {
  const idx = selectorIndex(estate);
  const view = idx.agent(agent);
  if (!view) {
    return { agent, agent_found: false, tool, tool_key: null, verdict: 'AGENT_NOT_FOUND', risk_score: null, decisions: null, reasons: [`agent ${JSON.stringify(agent)} is not in the manifest: selection should stop (a typo'd agent is not an empty catalog)`] };
  }
  const f = featureRow(idx, view, tool);
  const decisions = Object.fromEntries(PROFILES.map((p) => {
    const s = select(idx, view, tool, p);
    return [p, s.eligible ? 'eligible' : s.row.reason];
  })) as { [P in Profile]: 'eligible' | RejectReason };
  const reasons: string[] = [];
  if (f.verdict === 'TOOL_NOT_FOUND') reasons.push(`${JSON.stringify(tool)} names no tool in the catalog or the manifest`);
  else if (f.verdict === 'AMBIGUOUS_TOOL') reasons.push(`${JSON.stringify(tool)} is exposed by ${f.candidates!.length} servers (${f.candidates!.join(', ')}); resubmit it as server::tool`);
  else {
    const key = f.tool_key!;
    const grant = view.grants.get(key);
    if (!grant) reasons.push(`${agent} holds no grant for ${key}`);
    else reasons.push(`${agent} is granted ${key}${grant.provenance?.evidence ? ` (evidence: ${grant.provenance.evidence})` : ' (the grant cites no evidence)'}`);
    reasons.push(f.drifted ? `${key} is drifted: no server in the catalog exposes it now` : `${key} is exposed by server ${key.slice(0, key.indexOf('::'))}`);
    if (!f.mapped) reasons.push(`${key} has no READS/WRITES edge, so a clean verdict proves nothing about data it touches`);
    for (const d of f.deny) {
      const how = d.resource === null ? `is governed directly by DENY policy ${d.policy}` : `${d.via === 'READS' ? 'reads' : 'writes'} ${d.resource}, governed by DENY policy ${d.policy}`;
      reasons.push(
        grant
          ? `${key} ${how}: ${d.classification === 'violation' ? 'a violation (no expected exception covers it)' : `authorized by an expected exception (${d.exception_reason})`}`
          : `${key} ${how}`,
      );
    }
    if (f.unbacked) reasons.push(`${f.evidence_coverage!.edges - f.evidence_coverage!.backed} of ${f.evidence_coverage!.edges} authored edges on this decision cite no evidence`);
    const claims = Object.entries(f.annotations ?? {}).filter(([k, v]) => k !== 'provenance' && v !== null);
    if (claims.length > 0) reasons.push(`the server claims ${claims.map(([k, v]) => `${k}=${v}`).join(', ')} (self-claims, crawled/medium; they create no edge)`);
    reasons.push(`risk_score ${f.risk_score}: ${RISK_RULE[String(f.risk_score)]}`);
  }
  reasons.push(profile === undefined ? `strict: ${decisions.strict}; review: ${decisions.review}; explore: ${decisions.explore}` : `under ${profile}: ${decisions[profile]}`);
  const base = { agent, agent_found: true, tool, tool_key: f.tool_key, verdict: f.verdict, risk_score: f.risk_score, decisions, reasons };
  return profile === undefined ? base : { ...base, profile, decision: decisions[profile] };
}
