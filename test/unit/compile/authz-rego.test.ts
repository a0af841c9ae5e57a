/**
 * The enforcement Rego shipped in the bundle, evaluated by the builtin engine against the bundle's
 * own data: every granted pair must get the policy bundle's decision, and everything else NOT_GRANTED.
 */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.ts';
import { compileModules, fromJSON, toJSON } from '../../../src/rego/index.ts';
import { enforcementRego } from '../../../src/cli/commands/compile.ts';

describe.each(['quickstart', 'fleet'])('rego/toolgate/authz.rego on the %s bundle', (example) => {
  it('agrees with the policy bundle for every (agent, tool) pair, under every profile', async () => {
    const policy = compileModules(enforcementRego().map((m) => ({ name: m.path, text: m.text })));
    for (const profile of ['strict', 'review', 'explore']) {
      const out = mkdtempSync(join(tmpdir(), 'toolgate-authz-'));
      const r = await runCli(['compile', '--example', example, '--profile', profile, '--out', out], { env: { SOURCE_DATE_EPOCH: '0' } });
      expect(r.code, r.stderr).toBe(0);
      const bundle = JSON.parse(readFileSync(join(out, 'policy-bundle.json'), 'utf8'));
      const data = fromJSON(JSON.parse(readFileSync(join(out, 'data.json'), 'utf8')));
      const toolKeys: string[] = bundle.tools.map((t: { tool_key: string }) => t.tool_key);
      for (const agent of [...Object.keys(bundle.agents), 'no-such-agent']) {
        for (const tool of [...toolKeys, 'nowhere::nothing']) {
          const got = toJSON(policy.evalRule('data.toolgate.authz.decision', { input: fromJSON({ agent, tool }), data })!) as Record<string, unknown>;
          const want = bundle.agents[agent]?.tools[tool];
          const reason = want ? (want.reason ?? null) : agent === 'no-such-agent' ? 'AGENT_NOT_FOUND' : 'NOT_GRANTED';
          expect(got, `${profile} ${agent} ${tool}`).toEqual({ allow: want?.decision === 'eligible', reason, profile, graph_state: bundle.graph_state });
        }
      }
    }
  });
});
