/** `unsafe-tools AGENT [--all]`: every DENY reach among the agent's grants; violations only by default. */
import type { Estate } from './estate.ts';
import { assess } from './assess.ts';
import { cmp } from './estate.ts';
import type { DenyEvidence } from './types.ts';

export interface UnsafeToolsResult {
  readonly agent: string;
  readonly agent_found: boolean;
  readonly include_authorized: boolean;
  readonly rows: readonly DenyEvidence[];
  readonly violations: number;
}

export function unsafeTools(estate: Estate, agent: string, includeAuthorized = false): UnsafeToolsResult {
  const grants = estate.grantsByAgent.get(agent);
  if (!grants) return { agent, agent_found: false, include_authorized: includeAuthorized, rows: [], violations: 0 };
  const rows: DenyEvidence[] = [];
  const keys = [...grants.keys()].sort(cmp);
  for (const key of keys) {
    for (const e of assess(estate, agent, key).deny_evidence) {
      if (includeAuthorized || e.classification === 'violation') rows.push(e);
    }
  }
  return { agent, agent_found: true, include_authorized: includeAuthorized, rows, violations: rows.filter((r) => r.classification === 'violation').length };
}
