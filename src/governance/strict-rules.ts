/**
 * The peer's ingest rules, as named findings: what its `ingest-manifest` rejects and toolgate
 * otherwise only warns about. Under `--strict` (or `strict: true` in toolgate.yaml) any finding
 * refuses the manifest; without it each is a warning naming its rule.
 *
 * Expected exceptions must be able to classify a row. An exception classifies a row when, for an
 * agent it names (or every agent for `*`), a granted tool it matches reaches a DENY policy through
 * a path it covers (`exceptionCovers`, the same test that classifies rows). When none does, the
 * finding says why, first reason that applies:
 *   exception-unknown-agent      the agent is not in the manifest
 *   exception-unknown-tool       the tool names nothing (no such tool, or no such server for `server::*`)
 *   exception-unknown-policy     the policy is not in the manifest
 *   exception-allow-policy       the policy is an ALLOW policy (only DENY reaches are classified)
 *   exception-no-grant           no agent it names holds a grant for a tool it matches
 *   exception-no-deny-path       the granted tools it matches reach no DENY policy (e.g. a wildcard with no path)
 *   exception-wrong-target       DENY policies are reached, but not through its resource or under its policy
 * Grants:
 *   grant-never-crawled          the granted tool is exposed by no server in the catalog
 * Always refused, strict or not (credentials never belong in governance):
 *   credential-shaped-identity   an agent, policy or grant identity is credential-shaped
 *
 * Pure: an estate in, findings out (manifest order within each rule group).
 */
import type { SourceAt } from '../errors.ts';
import { credentialShape } from './credential-shape.ts';
import type { Estate } from './estate.ts';
import { exceptionCovers } from './exceptions.ts';

export type StrictRule =
  | 'exception-unknown-agent'
  | 'exception-unknown-tool'
  | 'exception-unknown-policy'
  | 'exception-allow-policy'
  | 'exception-no-grant'
  | 'exception-no-deny-path'
  | 'exception-wrong-target'
  | 'grant-never-crawled'
  | 'credential-shaped-identity';

export interface StrictFinding {
  readonly rule: StrictRule;
  readonly at: SourceAt;
  readonly message: string;
}

function toolMatches(estate: Estate, pattern: string, key: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('::*')) return key.startsWith(pattern.slice(0, -1));
  const r = estate.resolveTool(pattern);
  return r.status === 'found' ? r.key === key : pattern === key;
}

function toolNamesSomething(estate: Estate, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('::*')) return estate.catalog.servers.some((s) => s.name === pattern.slice(0, -3)) || [...estate.tools.keys()].some((k) => k.startsWith(pattern.slice(0, -1)));
  const r = estate.resolveTool(pattern);
  return r.status !== 'not_found' || estate.tools.has(pattern);
}

export function exceptionFindings(estate: Estate): StrictFinding[] {
  const out: StrictFinding[] = [];
  estate.exceptions.forEach((x, i) => {
    const at = estate.manifest.locate(['expected_exceptions', i]);
    const who = `expected_exceptions[${i}] (${x.agent} -> ${x.tool})`;
    const say = (rule: StrictRule, why: string) => out.push({ rule, at, message: `${who} classifies no row: ${why}` });
    if (x.agent !== '*' && !estate.agents.has(x.agent)) return say('exception-unknown-agent', `agent ${JSON.stringify(x.agent)} is not in the manifest`);
    if (!toolNamesSomething(estate, x.tool)) return say('exception-unknown-tool', `tool ${JSON.stringify(x.tool)} names no tool in the catalog or the manifest`);
    if (x.policy !== undefined && x.policy !== '*') {
      const p = estate.policies.get(x.policy);
      if (!p) return say('exception-unknown-policy', `policy ${JSON.stringify(x.policy)} is not in the manifest`);
      if (p.effect !== 'DENY') return say('exception-allow-policy', `policy ${JSON.stringify(x.policy)} is an ${p.effect} policy; only DENY reaches are classified`);
    }
    const agents = x.agent === '*' ? [...estate.agents.keys()] : [x.agent];
    let granted = 0;
    let reaching = 0;
    for (const agent of agents) {
      for (const g of estate.grantsByAgent.get(agent)?.values() ?? []) {
        if (!toolMatches(estate, x.tool, g.tool_key)) continue;
        granted++;
        const rows = estate.denyReach(g.tool_key);
        if (rows.length > 0) reaching++;
        if (rows.some((r) => exceptionCovers(estate, x, agent, r))) return;
      }
    }
    if (granted === 0) return say('exception-no-grant', `${x.agent === '*' ? 'no agent' : `agent ${x.agent}`} holds a grant for a tool matching ${JSON.stringify(x.tool)}`);
    if (reaching === 0) return say('exception-no-deny-path', `the granted tools matching ${JSON.stringify(x.tool)} reach no DENY policy`);
    return say('exception-wrong-target', `the granted tools reach DENY policies, but none${x.resource ? ` through resource ${JSON.stringify(x.resource)}` : ''}${x.policy ? ` under policy ${JSON.stringify(x.policy)}` : ''}`);
  });
  return out;
}

export function grantFindings(estate: Estate): StrictFinding[] {
  const out: StrictFinding[] = [];
  estate.manifest.grants.forEach((g, i) => {
    // A `server::tool` reference names its own key, found or not; only a bare name is looked up.
    const r = g.tool.includes('::') ? undefined : estate.resolveTool(g.tool);
    const key = r?.status === 'found' ? r.key : g.tool;
    if (estate.tools.get(key)?.exposed) return;
    out.push({ rule: 'grant-never-crawled', at: estate.manifest.locate(['grants', i, 'tool']), message: `grants[${i}] (${g.agent} -> ${g.tool}) grants a tool no server in the catalog exposes` });
  });
  return out;
}

/** Credential-shaped identities: refused whether or not `--strict` is given. */
export function identityFindings(estate: Estate): StrictFinding[] {
  const out: StrictFinding[] = [];
  // Identities repeat (every grant names its agent): each distinct text is tested once, and a
  // finding's location and label are built only when there is one.
  const shapes = new Map<string, ReturnType<typeof credentialShape> | null>();
  const shapeOf = (value: string) => {
    let kind = shapes.get(value);
    if (kind === undefined) shapes.set(value, (kind = credentialShape(value) ?? null));
    return kind;
  };
  const check = (value: string | undefined, path: () => (string | number)[], what: () => string) => {
    if (value === undefined) return;
    const kind = shapeOf(value);
    if (kind !== null) out.push({ rule: 'credential-shaped-identity', at: estate.manifest.locate(path()), message: `${what()} is credential-shaped (${kind}); identities must not carry secrets` });
  };
  const m = estate.manifest;
  m.agents.forEach((a, i) => check(a.id, () => ['agents', i], () => `agents[${i}]`));
  m.policies.forEach((p, i) => check(p.id, () => ['policies', i, 'id'], () => `policies[${i}].id`));
  m.grants.forEach((g, i) => {
    check(g.agent, () => ['grants', i, 'agent'], () => `grants[${i}].agent`);
    check(g.granted_by, () => ['grants', i, 'granted_by'], () => `grants[${i}].granted_by`);
  });
  if (m.instance_id !== undefined) check(m.instance_id, () => ['instance_id'], () => 'instance_id');
  return out;
}

/** Every finding the strict rules make, identities first, then exceptions, then grants. */
export function strictFindings(estate: Estate): StrictFinding[] {
  return [...identityFindings(estate), ...exceptionFindings(estate), ...grantFindings(estate)];
}
