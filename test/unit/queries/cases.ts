/**
 * Arguments to ask every query of the table on an estate: its agents (and one unknown), their
 * granted tools as candidates, an unknown and a bare tool name, every policy and resource as a
 * blast-radius target, under every profile; with the CLI argv each set of arguments becomes.
 */
import type { Estate } from '../../../src/governance/estate.ts';
import { PROFILES } from '../../../src/governance/types.ts';
import type { QueryArgs, QueryDef } from '../../../src/queries/table.ts';

export function queryCases(q: QueryDef, estate: Estate): QueryArgs[] {
  const agents = [...estate.agents.keys(), 'nobody'];
  const toolsOf = (agent: string) => [...(estate.grantsByAgent.get(agent)?.keys() ?? [])];
  const someTools = (agent: string) => [...toolsOf(agent).slice(0, 3), 'no_such_tool', [...estate.tools.values()].find((t) => t.exposed)!.name];
  const names = new Set(q.args.map((a) => a.name));
  const out: QueryArgs[] = [];
  if (names.has('target')) {
    for (const target of [...estate.policies.keys(), ...estate.resources, 'no-such-thing']) out.push({ target });
    return out;
  }
  if (!names.has('agent')) {
    out.push({});
    for (const a of q.args) if (a.kind === 'boolean') out.push({ [a.name]: true });
    return out;
  }
  for (const agent of agents) {
    const profiles = names.has('profile') ? PROFILES : [undefined];
    for (const profile of profiles) {
      const base: Record<string, unknown> = { agent, ...(profile ? { profile } : {}) };
      if (names.has('candidates')) out.push({ ...base, candidates: someTools(agent) } as QueryArgs);
      else if (names.has('tool')) for (const tool of someTools(agent)) out.push({ ...base, tool } as QueryArgs);
      else out.push(base as QueryArgs, { ...base, all: true } as QueryArgs);
    }
  }
  return out;
}

/** The CLI argv that asks `q` with `args` (positionals in table order, then options). */
export function cliArgv(q: QueryDef, args: QueryArgs): string[] {
  const argv = [q.name];
  for (const a of q.args) {
    const v = args[a.name];
    if (!a.positional || v === undefined) continue;
    argv.push(...(Array.isArray(v) ? v : [v as string]));
  }
  for (const a of q.args) {
    const v = args[a.name];
    if (a.positional || v === undefined || v === false) continue;
    argv.push(`--${a.name.replaceAll('_', '-')}`, ...(v === true ? [] : [v as string]));
  }
  return argv;
}
