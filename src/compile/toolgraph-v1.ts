/**
 * The single-agent export in the peer's `toolgraph.policy-bundle` v1 shape
 * (reference/toolgraph/contracts/policy-bundle.schema.json): one decision for every exposed tool,
 * the not-granted ones written out as rejected NOT_GRANTED, so a gateway built for the peer
 * consumes it unchanged. Its bytes are the peer's too: the peer writes this artifact with Python's
 * JSON encoder, so `risk_score` is a float there (`1.0`, `0.0`) and `created_at` a UTC offset
 * (`+00:00`, never `Z`); the contract fixtures pin those bytes by SHA-256.
 */
import { ToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';
import type { Profile } from '../governance/types.ts';
import { decide } from '../governance/decisions.ts';
import type { BundleHeader, ExposedTool } from './policy-bundle.ts';
import { pythonFloat } from '../canonical/python-float.ts';

export function compileToolgraphV1(estate: Estate, agent: string, profile: Profile, header: BundleHeader, tools: readonly ExposedTool[]): Record<string, unknown> {
  if (!estate.agents.has(agent)) {
    throw new ToolgateError('DANGLING_REFERENCE', `AGENT_NOT_FOUND: agent ${JSON.stringify(agent)} is not declared in ${estate.manifest.file}; no bundle is written for an unresolved identity`, {
      at: [{ file: estate.manifest.file }],
    });
  }
  return {
    schema_version: 1,
    kind: 'toolgraph.policy-bundle',
    created_at: pythonUtcOffset(header.created_at),
    graph_state: header.graph_state,
    agent,
    agent_found: true,
    profile,
    governance_digest: header.governance_digest,
    catalog_digest: header.catalog_digest,
    tools: tools.map((t) => {
      const d = decide(estate, agent, t.tool_key, profile);
      const { tool_key, risk_score, ...rest } = d;
      return { tool_key, tool_contract_digest: t.tool_contract_digest, ...rest, risk_score: pythonFloat(risk_score) };
    }),
  };
}

/** An RFC 3339 UTC time as Python's `isoformat()` spells it: the offset `+00:00` for `Z`. */
function pythonUtcOffset(time: string): string {
  return time.endsWith('Z') ? `${time.slice(0, -1)}+00:00` : time;
}
