/**
 * `visible-tools`: the tools a gateway that filters tools/list may show AGENT, as
 * data.toolgate.authz.visible_tools answers it: the shipped enforcement Rego, evaluated in-process
 * (builtin engine) against the data document of this estate compiled under the profile, or a
 * bundle file's own Rego and data. The list equals the tools data.toolgate.authz.decision allows
 * AGENT (test/unit/gateways).
 *
 * Pure: the shipped Rego and the bundle's bytes come from the surface.
 */
import type { CliOutcome, QueryDef } from './query-def.ts';
import { AGENT, profileArg, profileOf } from './common.ts';

const VISIBLE = 'data.toolgate.authz.visible_tools';

export const visibleToolsQuery: QueryDef = {
  name: 'visible-tools',
  tool: 'visible_tools',
  title: 'Visible tools',
  summary: 'the tools AGENT may see in tools/list: exactly those the bundle decision allows',
  description:
    "The sorted tool keys data.toolgate.authz.decision allows AGENT (what a gateway filtering tools/list should show), as {agent, found, profile, visible_tools}: from the estate compiled under profile (default strict), or from a compiled bundle file's own Rego and data (then its profile).",
  help: `Prints {agent, found, profile, visible_tools}: the sorted tool keys data.toolgate.authz.decision
allows AGENT (what a gateway filtering tools/list should show).
  --profile P      compile the estate under this profile (default strict)
  --bundle FILE    evaluate this compiled bundle.tar.gz instead (its profile; no estate read)
Unknown AGENT: AGENT_NOT_FOUND on stderr, exit 1.`,
  args: [AGENT, profileArg('compile the estate under this profile (default strict)'), { name: 'bundle', kind: 'file', description: 'path to a compiled bundle.tar.gz to evaluate instead of the estate (its profile)' }],
  result: 'visible-tools',
  check: (a) => (a.bundle !== undefined && a.profile !== undefined ? '--profile is fixed by the bundle' : undefined),
  run: async (env, a) => {
    const { compileModules, fromJSON, toJSON } = await import('../rego/index.ts');
    const { DATA_ROOT } = await import('../compile/data-document.ts');
    const agent = a.agent as string;
    let modules: { name: string; text: string }[];
    let data: Record<string, unknown>;
    const bundle = a.bundle as string | undefined;
    if (bundle !== undefined) {
      const { loadBundle, readTarball } = await import('../bundle/index.ts');
      const loaded = loadBundle(await readTarball(env.readFile('bundle', bundle), bundle), bundle);
      modules = loaded.modules.map((m) => ({ name: m.id, text: m.text }));
      data = loaded.data as Record<string, unknown>;
    } else {
      const { compileDataJson } = await import('../emit/compile-run.ts');
      // The data document does not depend on created_at; a fixed one keeps the answer a function of the estate.
      const bytes = await compileDataJson(env.estate(), { profile: profileOf(a), createdAt: '1970-01-01T00:00:00Z', regoModules: [] });
      data = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
      modules = env.enforcementRego().map((m) => ({ name: m.path, text: m.text }));
    }
    const policy = compileModules(modules);
    const inner = data[DATA_ROOT] as { profile?: unknown; agents?: Record<string, unknown> } | undefined;
    const found = inner?.agents !== undefined && Object.hasOwn(inner.agents, agent);
    const value = policy.evalRule(VISIBLE, { input: fromJSON({ agent }), data: fromJSON(data) });
    return { agent, found, profile: inner?.profile ?? null, visible_tools: value === undefined ? [] : (toJSON(value) as string[]) };
  },
  exit: (r: { agent: string; found: boolean }): CliOutcome => (r.found ? { print: true, exit: 'OK' } : { print: true, exit: 'FAILED', stderr: `AGENT_NOT_FOUND: ${r.agent}` }),
};
