/**
 * Expected exceptions: operator-declared, intentional DENY reaches. A row they cover is
 * `authorized_but_governed` (with the operator's reason); every other DENY row is a `violation`.
 * `*` matches anything in a field; `server::*` matches every tool of that server; an absent
 * resource or policy matches any.
 *
 * When several exceptions cover one row, the most specific wins (its reason is reported), compared
 * field by field in this order: the tool (`server::tool` > `server::*` > `*`), then the agent
 * (named > `*`), then the resource (named > absent or `*`), then the policy (named > absent or
 * `*`); exceptions equally specific in every field are taken in manifest order (the first wins).
 */
import type { ExpectedException } from '../manifest/types.ts';
import type { Estate, Notice } from './estate.ts';
import type { DenyReach } from './types.ts';
import { resourceKey } from './resource-uri.ts';

function matchTool(pattern: string, key: string, estate: Estate): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('::*')) return key.startsWith(pattern.slice(0, -1));
  const r = estate.resolveTool(pattern);
  return r.status === 'found' ? r.key === key : pattern === key;
}

function matchField(pattern: string | undefined, value: string | null): boolean {
  return pattern === undefined || pattern === '*' || pattern === value;
}

/** A resource pattern matches under the resource's key (`https://h` and `https://h/` are one). */
function matchResource(pattern: string | undefined, value: string | null): boolean {
  return pattern === undefined || pattern === '*' || (value !== null && resourceKey(pattern) === value);
}

/** True when the exception covers this agent's reach. */
export function exceptionCovers(estate: Estate, x: ExpectedException, agent: string, reach: DenyReach): boolean {
  return matchField(x.agent, agent) && matchTool(x.tool, reach.tool_key, estate) && matchResource(x.resource, reach.resource) && matchField(x.policy, reach.policy);
}

/** How specific an exception is, as one number: tool (2 bits), then agent, resource, policy. */
export function exceptionSpecificity(x: ExpectedException): number {
  const tool = x.tool === '*' ? 0 : x.tool.endsWith('::*') ? 1 : 2;
  const named = (v: string | undefined) => (v === undefined || v === '*' ? 0 : 1);
  return tool * 8 + named(x.agent) * 4 + named(x.resource) * 2 + named(x.policy);
}

/**
 * The most specific of `candidates` (in manifest order) covering this agent's reach, if any;
 * the first in the manifest among equals.
 */
export function mostSpecificException(estate: Estate, candidates: readonly ExpectedException[], agent: string, reach: DenyReach): ExpectedException | undefined {
  let best: ExpectedException | undefined;
  let bestRank = -1;
  for (const x of candidates) {
    const rank = exceptionSpecificity(x);
    if (rank > bestRank && exceptionCovers(estate, x, agent, reach)) {
      best = x;
      bestRank = rank;
    }
  }
  return best;
}

/** The exception that classifies this agent's reach (the most specific covering it), if any. */
export function exceptionFor(estate: Estate, agent: string, reach: DenyReach): ExpectedException | undefined {
  return mostSpecificException(estate, exceptionsFor(estate, agent), agent, reach);
}

// The exceptions that can apply to an agent (its own and the `*` ones), in manifest order, indexed
// once per estate so classifying a row does not scan every exception of every agent.
const byAgentCache = new WeakMap<Estate, Map<string, readonly ExpectedException[]>>();

/** Whether any expected exception can apply to this agent (one naming it, or one for `*`). */
export function exceptionsCanApply(estate: Estate, agent: string): boolean {
  return exceptionsFor(estate, agent).length > 0;
}

function exceptionsFor(estate: Estate, agent: string): readonly ExpectedException[] {
  let index = byAgentCache.get(estate);
  if (!index) {
    index = new Map();
    for (const x of estate.exceptions) {
      for (const a of x.agent === '*' ? [...estate.agents.keys()] : [x.agent]) {
        const list = (index.get(a) ?? []) as ExpectedException[];
        list.push(x);
        index.set(a, list);
      }
    }
    byAgentCache.set(estate, index);
  }
  return index.get(agent) ?? [];
}

/** Warnings for exceptions that classify no row, each saying why. */
export function unusedExceptionNotices(estate: Estate): Notice[] {
  const notices: Notice[] = [];
  estate.exceptions.forEach((x, i) => {
    const agents = x.agent === '*' ? [...estate.agents.keys()] : [x.agent];
    let granted = 0;
    let reaching = 0;
    let covered = 0;
    for (const agent of agents) {
      for (const g of estate.grantsByAgent.get(agent)?.values() ?? []) {
        if (!matchTool(x.tool, g.tool_key, estate)) continue;
        granted++;
        const rows = estate.denyReach(g.tool_key);
        if (rows.length > 0) reaching++;
        if (rows.some((r) => matchResource(x.resource, r.resource) && matchField(x.policy, r.policy))) covered++;
      }
    }
    if (covered > 0) return;
    const who = `expected_exceptions[${i}] (${x.agent} -> ${x.tool})`;
    const why =
      granted === 0
        ? `the agent holds no grant for that tool`
        : reaching === 0
          ? `the tool reaches no DENY policy`
          : `the tool reaches DENY policies, but none${x.resource ? ` through resource ${JSON.stringify(x.resource)}` : ''}${x.policy ? ` under policy ${JSON.stringify(x.policy)}` : ''}`;
    notices.push({ kind: 'UNUSED_EXCEPTION', at: estate.manifest.locate(['expected_exceptions', i]), message: `${who} classifies no row: ${why}` });
  });
  return notices;
}
