/**
 * The two run artifacts of the query table: `preflight` (one agent's candidates under a profile,
 * kind toolgraph.preflight) and `control-preflight` (a body-free control plan, kind
 * toolgraph.control-preflight). Both are stamped with the graph state and created_at their surface
 * supplies, and both are advisory: every decision exits 0.
 *
 * Pure: the plan's bytes, the clock and the graph state come from the surface (QueryEnv).
 */
import { digestHex } from '../canonical/digest.ts';
import { credentialShape } from '../governance/credential-shape.ts';
import { utf8Text } from '../parse/utf8-text.ts';
import { AGENT, CANDIDATES, profileArg, profileOf } from './common.ts';
import type { CliOutcome, QueryDef } from './query-def.ts';

const PROFILE = profileArg('selector profile (default strict)');

/** Why a run id is refused, or undefined: 1 to 256 characters, no control character, no secret. */
function runIdFault(runId: string): string | undefined {
  if (runId === '' || runId.length > 256 || /[\u0000-\u001f\u007f]/.test(runId)) return 'the run id must be 1 to 256 characters without control characters';
  const secret = credentialShape(runId);
  if (secret !== undefined) return `the run id is credential-shaped (${secret}); a run id must not carry a secret`;
  return undefined;
}

export const preflightQuery: QueryDef = {
  name: 'preflight',
  tool: 'preflight',
  title: 'Preflight',
  summary: 'advisory preflight artifact for a run: AGENT x candidates under a profile, stamped with graph_state',
  description:
    'The advisory preflight artifact (toolgraph.preflight v1) for one run: AGENT\'s candidates split into eligible tool keys and rejected rows under the profile, stamped with run_id, created_at and the graph state. decision: advisory_allow, advisory_warn (some candidate rejected) or unresolved_identity (unknown agent; nothing listed).',
  help: `Writes the advisory preflight artifact (toolgraph.preflight v1). decision: advisory_allow,
advisory_warn (some candidate rejected) or unresolved_identity (unknown AGENT; nothing listed).
  --run-id ID    the run this preflight belongs to (required; 1 to 256 characters, never a credential)
  --profile P    selector profile (default strict)
  --features     include the full rank-features rows
Exit 0 for every advisory decision, including unresolved_identity (AGENT_NOT_FOUND on stderr);
1 on refused input; 2 on bad usage.`,
  args: [AGENT, CANDIDATES, { name: 'run_id', kind: 'string', description: 'the run this preflight belongs to (1 to 256 characters, never a credential)', required: 'both' }, PROFILE, { name: 'features', kind: 'boolean', description: 'include the full rank-features rows' }],
  result: 'preflight',
  printed: 'canonical',
  check: (a) => runIdFault(a.run_id as string),
  run: async (env, a) => {
    const { buildPreflight } = await import('../preflight/preflight.ts');
    const estate = env.estate();
    const { graph_state, digests } = await env.runState(estate);
    return buildPreflight(estate, a.agent as string, a.candidates as string[], {
      profile: profileOf(a),
      runId: a.run_id as string,
      createdAt: env.createdAt(),
      graphState: graph_state,
      digests: digests as { governance_digest: string; catalog_digest: string; connectome_digest?: string | null },
      features: (a.features as boolean | undefined) ?? false,
    });
  },
  exit: (r: { agent_found: boolean; agent: string }): CliOutcome =>
    r.agent_found ? { print: true, exit: 'OK' } : { print: true, exit: 'OK', stderr: `AGENT_NOT_FOUND: ${r.agent} (decision unresolved_identity)` },
};

export const controlPreflightQuery: QueryDef = {
  name: 'control-preflight',
  tool: 'control_preflight',
  title: 'Control preflight',
  summary: 'advisory check of a control plan: topology, bounds, every principal x candidate in one graph state',
  description:
    'The advisory result (toolgraph.control-preflight v1) of a body-free control plan file (toolgraph.control-plan v1): topology and bound findings, every principal\'s candidate tools under the profile against one graph state, and the read-to-write exposures along the plan. plan_digest is the SHA-256 of the plan file\'s bytes.',
  help: `Checks a control plan (toolgraph.control-plan v1): one start and one end, every node reachable and
reaching the end, no cycle, bounded model fan-out, run limits no lower than the nodes need; then
every principal's candidate tools under the profile, all against one graph state, and the
read-to-write exposures along the plan. decision: advisory_allow or advisory_warn.
  --profile P    selector profile (default strict)
Advisory: exit 0 on advisory_allow and advisory_warn (an unknown principal is AGENT_NOT_FOUND on
stderr); 1 when the plan or estate is refused or --out cannot be written; 2 on bad usage.`,
  args: [{ name: 'plan', kind: 'file', description: 'path to the control plan (JSON, toolgraph.control-plan v1)', positional: 'PLAN', required: 'both' }, PROFILE],
  result: 'control-preflight',
  printed: 'canonical',
  run: async (env, a) => {
    const [{ readControlPlan }, { controlPreflight }] = await Promise.all([import('../control/control-plan.ts'), import('../control/control-preflight.ts')]);
    const file = a.plan as string;
    const bytes = env.readFile('plan', file);
    const plan = readControlPlan(file, utf8Text(bytes, file));
    const estate = env.estate();
    const { graph_state, digests } = await env.runState(estate);
    return controlPreflight(estate, plan, {
      profile: profileOf(a),
      planDigest: `sha256:${digestHex(bytes)}`,
      createdAt: env.createdAt(),
      graphState: graph_state,
      digests: digests as { governance_digest: string; catalog_digest: string; connectome_digest?: string | null },
    });
  },
  exit: (r: { evaluations: readonly { agent_found: boolean; principal: string }[] }): CliOutcome => {
    const missing = r.evaluations.filter((e) => !e.agent_found).map((e) => `AGENT_NOT_FOUND: principal ${e.principal} (decision advisory_warn)`);
    return missing.length === 0 ? { print: true, exit: 'OK' } : { print: true, exit: 'OK', stderr: missing };
  },
};
