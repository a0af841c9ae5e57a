/**
 * What a gateway is told: the answer `data.toolgate.authz.decision` (rego/toolgate/authz.rego)
 * gives for input `{agent, tool}` in the bundle `compile --profile P` writes, worked out from the
 * same per-pair decision the data document is written from (decisions.ts `decide`), so a query
 * command and the bundle cannot disagree. It is exact-key like the Rego: a gateway sends
 * `server::tool`, and a bare name is not a key of data.toolgate.agents[A].tools.
 *
 * Signs are not part of it: without `compile --signs` the bundle has no signs_by_tool, and with
 * them the sign policy's verdicts can only turn an allow into SIGN_DENY or SIGN_HOLD.
 */
import { checkAccess, type CheckAccessResult } from './check-access.ts';
import type { Estate } from './estate.ts';
import { unsafeTools } from './unsafe-tools.ts';
import type { Profile, RejectReason } from './types.ts';
import { decide } from './decisions.ts';

export type GatewayReason = RejectReason | 'AGENT_NOT_FOUND';

export interface GatewayDecision {
  /** The input the answer is for: `tool` is the qualified key a gateway sends. */
  readonly input: { readonly agent: string; readonly tool: string };
  readonly profile: Profile;
  readonly allow: boolean;
  /** null when allowed (the data document's reason for an eligible pair). */
  readonly reason: GatewayReason | null;
}

/**
 * The bundle's decision for `{agent, tool}` under `profile`; `tool` is taken as the exact input
 * key, never resolved from a bare name.
 *
 * @example
 * gatewayDecision(estate, 'ci-bot', 'git::git_log', 'strict') // { allow: true, reason: null, ... }
 */
export function gatewayDecision(estate: Estate, agent: string, tool: string, profile: Profile): GatewayDecision {
  const base = { input: { agent, tool }, profile };
  if (!estate.agents.has(agent)) return { ...base, allow: false, reason: 'AGENT_NOT_FOUND' };
  if (!estate.grantsByAgent.get(agent)?.has(tool)) return { ...base, allow: false, reason: 'NOT_GRANTED' };
  const d = decide(estate, agent, tool, profile);
  if (d.decision === 'eligible') return { ...base, allow: true, reason: null };
  return { ...base, allow: false, reason: d.reason ?? 'NOT_GRANTED' };
}

/** `check-access`: the graph verdict and, beside it, the gateway's decision for the key the tool name resolved to. */
export function checkAccessWithGateway(estate: Estate, agent: string, tool: string, profile: Profile): CheckAccessResult & { readonly gateway: GatewayDecision } {
  const result = checkAccess(estate, agent, tool);
  // The gateway is asked for the key the name resolved to; an unresolved name is asked as typed.
  return { ...result, gateway: gatewayDecision(estate, agent, result.tool_key ?? tool, profile) };
}

/** `unsafe-tools`: each DENY row with the gateway's {allow, reason} for its tool. */
export function unsafeToolsWithGateway(estate: Estate, agent: string, includeAuthorized: boolean, profile: Profile) {
  const result = unsafeTools(estate, agent, includeAuthorized);
  const rows = result.rows.map((r) => {
    const { allow, reason } = gatewayDecision(estate, r.agent, r.tool_key, profile);
    return { ...r, gateway: { allow, reason } };
  });
  return { ...result, profile, rows };
}
