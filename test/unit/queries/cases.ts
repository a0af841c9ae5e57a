/**
 * Arguments to ask every query of the table on an estate: its agents (and one unknown), their
 * granted tools as candidates, an unknown and a bare tool name, every policy and resource as a
 * blast-radius target, under every profile, and each file the test wrote for the file queries;
 * with the CLI argv each set of arguments becomes, and a QueryEnv reading the test's files.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { enforcementRego } from '../../../src/cli/enforcement-rego.ts';
import { catalogDigest, governanceDigest } from '../../../src/governance/input-digests.ts';
import { nextGraphState } from '../../../src/compile/graph-state.ts';
import type { Estate } from '../../../src/governance/estate.ts';
import { PROFILES } from '../../../src/governance/types.ts';
import { declaredConnectomeDigest } from '../../../src/queries/connectome-digest.ts';
import type { QueryArgs, QueryDef, QueryEnv } from '../../../src/queries/table.ts';

/** Files the file queries are asked about (absolute paths). */
export interface CaseFiles {
  readonly plans: readonly string[];
  readonly reports: readonly string[];
  readonly diffs: readonly { readonly declared: string; readonly observed: string; readonly window: string }[];
}

export function queryCases(q: QueryDef, estate: Estate, files: CaseFiles): QueryArgs[] {
  const agents = [...estate.agents.keys(), 'nobody'];
  const toolsOf = (agent: string) => [...(estate.grantsByAgent.get(agent)?.keys() ?? [])];
  const someTools = (agent: string) => [...toolsOf(agent).slice(0, 3), 'no_such_tool', [...estate.tools.values()].find((t) => t.exposed)!.name];
  const names = new Set(q.args.map((a) => a.name));
  const booleans = q.args.filter((a) => a.kind === 'boolean').map((a) => a.name);
  const out: QueryArgs[] = [];
  if (names.has('target')) {
    for (const target of [...estate.policies.keys(), ...estate.resources, 'no-such-thing']) out.push({ target });
    return out;
  }
  if (names.has('plan')) {
    for (const plan of files.plans) for (const profile of PROFILES) out.push({ plan, profile });
    return out;
  }
  if (names.has('report')) {
    for (const report of files.reports) out.push({ report }, { report, status: 'open' }, { report, status: 'accepted' });
    return out;
  }
  if (names.has('declared')) {
    for (const d of files.diffs) out.push({ ...d }, { ...d, algorithm: 'sha512' });
    return out;
  }
  if (!names.has('agent')) {
    out.push({});
    for (const b of booleans) out.push({ [b]: true });
    return out;
  }
  for (const agent of agents) {
    const profiles = names.has('profile') ? PROFILES : [undefined];
    for (const profile of profiles) {
      const base: Record<string, unknown> = { agent, ...(profile ? { profile } : {}), ...(names.has('run_id') ? { run_id: `run-${agent}` } : {}) };
      const asked: Record<string, unknown>[] = [];
      if (names.has('candidates')) asked.push({ ...base, candidates: someTools(agent) });
      else if (names.has('tool')) for (const tool of someTools(agent)) asked.push({ ...base, tool });
      else asked.push(base);
      for (const a of asked) {
        out.push(a as QueryArgs);
        for (const b of booleans) out.push({ ...a, [b]: true } as QueryArgs);
      }
    }
  }
  return out;
}

/** The CLI argv that asks `q` with `args` (positionals in table order, then options). */
export function cliArgv(q: QueryDef, args: QueryArgs): string[] {
  const argv = q.name.split(' ');
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

/** A QueryEnv over the real files (paths resolved against `cwd`), a fixed clock and a fresh graph state. */
export function testEnv(estate: Estate | undefined, cwd: string): QueryEnv {
  const path = (p: string) => resolve(cwd, p);
  return {
    estate: () => {
      if (!estate) throw new Error('this case has no estate');
      return estate;
    },
    readFile: (_arg, p) => readFileSync(path(p)),
    readOptionalFile: (_arg, p) => (existsSync(path(p)) ? readFileSync(path(p)) : undefined),
    realPath: (_arg, p) => (existsSync(path(p)) ? realpathSync(path(p)) : join(realpathSync(dirname(path(p))), basename(p))),
    createdAt: () => '2026-01-01T00:00:00Z',
    runState: (e) => {
      const digests = { governance_digest: governanceDigest(e.manifest.raw), catalog_digest: catalogDigest(e.catalog), connectome_digest: declaredConnectomeDigest(e) };
      return { graph_state: nextGraphState(e, digests, undefined).graph_state, digests };
    },
    enforcementRego,
  };
}
