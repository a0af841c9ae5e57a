/**
 * Canonical JSON text of the per-agent decision maps, written by hand: at 200,000 grants these
 * are nearly all of the policy bundle and the data document, and the generic encoder's per-object
 * key sorting and path bookkeeping dominated the compile. Agents and tools arrive sorted by UTF-16
 * code unit (decideAll sorts them), which is canonical order for ASCII keys; a map with any
 * non-ASCII key (which NFC may reorder) goes through the generic encoder instead.
 */
import { canonicalString, CanonicalText, quoteString } from '../canonical/json.ts';
import type { AgentDecisions, ToolDecision } from './decisions.ts';

const NON_ASCII = /[^\u0000-\u007f]/;

function num(n: number): string {
  return String(n); // risk scores are finite; Number::toString is RFC 8785's number form
}

/** `{"decision":…,"paths":[…],"reason":…,"risk_score":…}`: the policy bundle's row (keys in sorted order). */
function bundleRow(d: ToolDecision): string {
  let s = `{"decision":${quoteString(d.decision)}`;
  if (d.paths) s += `,"paths":${canonicalString(d.paths)}`;
  if (d.reason) s += `,"reason":${quoteString(d.reason)}`;
  return `${s},"risk_score":${num(d.risk_score)}}`;
}

/** `{"allow":…,"decision":…,"reason":…,"risk_score":…}`: the data document's row. */
function dataRow(d: ToolDecision): string {
  return `{"allow":${d.decision === 'eligible'},"decision":${quoteString(d.decision)},"reason":${d.reason ? quoteString(d.reason) : 'null'},"risk_score":${num(d.risk_score)}}`;
}

function agentsText(decisions: readonly AgentDecisions[], row: (d: ToolDecision) => string, generic: (d: ToolDecision) => unknown): CanonicalText {
  const ascii = decisions.every((a) => !NON_ASCII.test(a.agent) && a.decisions.every((d) => !NON_ASCII.test(d.tool_key)));
  if (!ascii) {
    const agents: Record<string, unknown> = {};
    for (const a of decisions) agents[a.agent] = { tools: Object.fromEntries(a.decisions.map((d) => [d.tool_key, generic(d)])) };
    return new CanonicalText(canonicalString(agents, { allowFloats: true }));
  }
  const parts: string[] = [];
  for (const a of decisions) {
    const tools = a.decisions.map((d) => `${quoteString(d.tool_key)}:${row(d)}`).join(',');
    parts.push(`${quoteString(a.agent)}:{"tools":{${tools}}}`);
  }
  return new CanonicalText(`{${parts.join(',')}}`);
}

export function bundleAgentsText(decisions: readonly AgentDecisions[]): CanonicalText {
  return agentsText(decisions, bundleRow, ({ tool_key: _k, ...rest }) => rest);
}

export function dataAgentsText(decisions: readonly AgentDecisions[]): CanonicalText {
  return agentsText(decisions, dataRow, (d) => ({ allow: d.decision === 'eligible', decision: d.decision, reason: d.reason ?? null, risk_score: d.risk_score }));
}
