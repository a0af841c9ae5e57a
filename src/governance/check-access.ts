/** `check-access AGENT TOOL`: is the agent allowed the tool, with the DENY paths as evidence. */
import type { Estate } from './estate.ts';
import { assess } from './assess.ts';
import type { DenyEvidence, Verdict } from './types.ts';

export interface CheckAccessResult {
  readonly agent: string;
  readonly tool: string;
  readonly tool_key: string | null;
  readonly agent_found: boolean;
  /** true/false when tool resolution ran; null when the agent was not found (the tool was not looked up). */
  readonly found: boolean | null;
  readonly verdict: Verdict;
  readonly candidates?: readonly string[];
  readonly exposed?: boolean;
  readonly all_authorized?: boolean;
  readonly deny_evidence: readonly DenyEvidence[];
}

export function checkAccess(estate: Estate, agent: string, tool: string): CheckAccessResult {
  const base = { agent, tool };
  if (!estate.agents.has(agent)) {
    return { ...base, tool_key: null, agent_found: false, found: null, verdict: 'AGENT_NOT_FOUND', deny_evidence: [] };
  }
  const r = estate.resolveTool(tool);
  if (r.status === 'not_found') return { ...base, tool_key: null, agent_found: true, found: false, verdict: 'TOOL_NOT_FOUND', deny_evidence: [] };
  if (r.status === 'ambiguous') {
    return { ...base, tool_key: null, agent_found: true, found: false, verdict: 'AMBIGUOUS_TOOL', candidates: r.candidates, deny_evidence: [] };
  }
  const exposed = estate.tools.get(r.key)?.exposed ?? false;
  // Most candidates are not granted: answer those without assessing the tool's graph.
  if (!estate.grantsByAgent.get(agent)?.has(r.key)) {
    return { ...base, tool_key: r.key, agent_found: true, found: true, exposed, verdict: 'NOT_GRANTED', deny_evidence: [] };
  }
  const a = assess(estate, agent, r.key);
  const common = { ...base, tool_key: r.key, agent_found: true, found: true, exposed };
  if (a.deny_evidence.length === 0) return { ...common, verdict: 'ALLOW', deny_evidence: [] };
  return { ...common, verdict: 'DENY', all_authorized: a.violations === 0, deny_evidence: a.deny_evidence };
}
