/**
 * data.toolgate.authz.visible_tools and `toolgate visible-tools AGENT` list exactly the tools
 * data.toolgate.authz.decision allows, for every agent of both examples under every profile: in
 * the builtin engine, through the CLI (estate and --bundle), and in `opa run --server`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { describeWithOpa, startOpaServer, type OpaServer } from '../../helpers/opa.ts';
import { compileEstate, evalBuiltin } from './gateway-estate.ts';

const EXAMPLES = ['quickstart', 'fleet'];
const PROFILES = ['strict', 'review', 'explore'];

function allowedByDecision(data: Record<string, any>, agent: string): string[] {
  const tools = Object.keys(data.toolgate.tools);
  return tools.filter((tool) => (evalBuiltin('toolgate/authz/decision', { agent, tool }, data) as { allow: boolean }).allow).sort();
}

describe.each(EXAMPLES)('visible_tools on the %s example', (example) => {
  it.each(PROFILES)('agrees with decision for every agent under %s', async (profile) => {
    const estate = await compileEstate({ example, profile });
    const agents = Object.keys((estate.data as any).toolgate.agents);
    expect(agents.length).toBeGreaterThan(0);
    let nonEmpty = 0;
    for (const agent of agents) {
      const want = allowedByDecision(estate.data, agent);
      if (want.length > 0) nonEmpty++;
      expect(evalBuiltin('toolgate/authz/visible_tools', { agent }, estate.data), agent).toEqual(want);
      const cli = await runCli(['visible-tools', agent, '--example', example, '--profile', profile]);
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.json(), agent).toEqual({ agent, found: true, profile, visible_tools: want });
      const fromBundle = await runCli(['visible-tools', agent, '--bundle', estate.bundle]);
      expect(fromBundle.json().visible_tools, agent).toEqual(want);
    }
    if (profile !== 'strict') expect(nonEmpty).toBeGreaterThan(0);
  });

  it('answers AGENT_NOT_FOUND, exit 1, with an empty list for an unknown agent', async () => {
    const r = await runCli(['visible-tools', 'no-such-agent', '--example', example]);
    expect(r.code).toBe(1);
    expect(r.json()).toMatchObject({ found: false, visible_tools: [] });
    expect(r.stderr).toContain('AGENT_NOT_FOUND');
  });
});

describeWithOpa('visible_tools in the real OPA', () => {
  const servers: OpaServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  it.each(EXAMPLES)('opa run --server lists what decision allows, for every agent of %s', async (example) => {
    for (const profile of PROFILES) {
      const estate = await compileEstate({ example, profile });
      const server = await startOpaServer(['--bundle', estate.bundle]);
      servers.push(server);
      for (const agent of Object.keys((estate.data as any).toolgate.agents)) {
        const tools = Object.keys((estate.data as any).toolgate.tools);
        const allowed: string[] = [];
        for (const tool of tools) if (((await server.query('toolgate/authz/decision', { agent, tool })).result as { allow: boolean }).allow) allowed.push(tool);
        expect((await server.query('toolgate/authz/visible_tools', { agent })).result, `${example} ${profile} ${agent}`).toEqual(allowed.sort());
      }
    }
  }, 120_000);
});
