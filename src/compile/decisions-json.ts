/**
 * Canonical JSON text of one agent's decision map (`{"tools":{…}}`), in the policy bundle's row
 * shape and in the data document's, and of the `agents` object that holds one such text per agent.
 * Each agent's text is its own piece so a recompile re-encodes only the agents whose decisions it
 * recomputed and splices the rest in unchanged.
 *
 * Rows are written by hand: at 200,000 grants they are nearly all of both documents, and the
 * generic encoder's per-object key sorting and path bookkeeping cost more than the rest of the
 * compile stage. Tools arrive sorted by UTF-16 code unit (the compile sorts each agent's grants), which is canonical
 * order for ASCII keys; a map with a non-ASCII key (which NFC may reorder) uses the generic encoder.
 * test/unit/compile/decisions-json.test.ts holds both forms equal.
 */
import { canonicalString, CanonicalText, isAscii, quoteString } from '../canonical/json.ts';
import type { AgentDecisions, ToolDecision } from '../governance/decisions.ts';

/** Evidence paths as canonical text: each ASCII path only quoted; a list with any other goes through the one encoder. */
function pathsText(paths: readonly string[]): string {
  return paths.every(isAscii) ? `[${paths.map(quoteString).join(',')}]` : canonicalString(paths);
}

/** `{"decision":…,"paths":[…],"reason":…,"risk_score":…}`: the policy bundle's row (keys in sorted order). */
function bundleRow(d: ToolDecision): string {
  let s = `{"decision":${quoteString(d.decision)}`;
  if (d.paths) s += `,"paths":${pathsText(d.paths)}`;
  if (d.reason) s += `,"reason":${quoteString(d.reason)}`;
  // risk scores are finite; Number::toString is RFC 8785's number form
  return `${s},"risk_score":${String(d.risk_score)}}`;
}

/** `{"allow":…,"decision":…,"reason":…,"risk_score":…}`: the data document's row. */
function dataRow(d: ToolDecision): string {
  return `{"allow":${d.decision === 'eligible'},"decision":${quoteString(d.decision)},"reason":${d.reason ? quoteString(d.reason) : 'null'},"risk_score":${String(d.risk_score)}}`;
}

function bundleValue({ tool_key: _k, ...rest }: ToolDecision): unknown {
  return rest;
}

function dataValue(d: ToolDecision): unknown {
  return { allow: d.decision === 'eligible', decision: d.decision, reason: d.reason ?? null, risk_score: d.risk_score };
}

function agentText(a: AgentDecisions, row: (d: ToolDecision) => string, value: (d: ToolDecision) => unknown): CanonicalText {
  if (a.decisions.some((d) => !isAscii(d.tool_key))) {
    return new CanonicalText(canonicalString({ tools: Object.fromEntries(a.decisions.map((d) => [d.tool_key, value(d)])) }, { allowFloats: true }));
  }
  return new CanonicalText(`{"tools":{${a.decisions.map((d) => `${quoteString(d.tool_key)}:${row(d)}`).join(',')}}}`);
}

/** One agent's `{"tools":{…}}` in the policy bundle. */
export function bundleAgentText(a: AgentDecisions): CanonicalText {
  return agentText(a, bundleRow, bundleValue);
}

/** One agent's `{"tools":{…}}` in the data document. */
export function dataAgentText(a: AgentDecisions): CanonicalText {
  return agentText(a, dataRow, dataValue);
}

/** The `agents` object from each agent's text (the one encoder sorts and normalises the keys). */
function agentsObjectText(entries: Iterable<readonly [string, CanonicalText]>): CanonicalText {
  return new CanonicalText(canonicalString(Object.fromEntries(entries)));
}

export function bundleAgentsText(decisions: readonly AgentDecisions[]): CanonicalText {
  return agentsObjectText(decisions.map((a) => [a.agent, bundleAgentText(a)] as const));
}

export function dataAgentsText(decisions: readonly AgentDecisions[]): CanonicalText {
  return agentsObjectText(decisions.map((a) => [a.agent, dataAgentText(a)] as const));
}
