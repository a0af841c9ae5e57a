/**
 * decide() works a granted tool's verdict out once for all agents no expected exception can apply
 * to; each answer must still be the one the agent's own facts give, its name in the evidence paths.
 */
import { describe, it, expect } from 'vitest';
import { decide } from '../../../src/governance/decisions.ts';
import { assess, profileReject, riskScore } from '../../../src/governance/assess.ts';
import type { Profile } from '../../../src/governance/types.ts';
import { inlineEstate } from '../../helpers/estates.ts';

const governance = `agents: [a1, a2, a3]
policies:
  - {id: secrets, effect: DENY}
grants:
  - {agent: a1, tool: "svc::fetch"}
  - {agent: a2, tool: "svc::fetch"}
  - {agent: a3, tool: "svc::fetch"}
  - {agent: a1, tool: "svc::get"}
  - {agent: a2, tool: "svc::get"}
data_access:
  - {tool: "svc::fetch", resource: "file:///etc/secret", mode: READS}
governed_by:
  "file:///etc/secret": [secrets]
expected_exceptions:
  - {agent: a3, tool: "svc::fetch", reason: "audited"}
`;
const estate = inlineEstate(governance, { servers: [{ name: 'svc', tools: [{ name: 'fetch' }, { name: 'get' }] }] });

/** The decision as assess() states the facts, with nothing shared between agents. */
function expected(agent: string, tool: string, profile: Profile) {
  const a = assess(estate, agent, tool);
  const reason = profileReject(a, profile);
  const cited = reason === 'DENY_VIOLATION' ? a.deny_evidence.filter((e) => e.classification === 'violation') : reason === 'DENY_GOVERNED' ? a.deny_evidence : [];
  const paths = [...new Set(cited.map((e) => e.path))];
  return { tool_key: tool, decision: reason ? 'rejected' : 'eligible', ...(reason ? { reason } : {}), risk_score: riskScore(a), ...(paths.length > 0 ? { paths } : {}) };
}

describe('decide', () => {
  for (const profile of ['strict', 'review', 'explore'] as const) {
    it(`gives each agent its own decision under ${profile}, asked in any order and again`, () => {
      const pairs = [['a1', 'svc::fetch'], ['a2', 'svc::fetch'], ['a3', 'svc::fetch'], ['a1', 'svc::get'], ['a2', 'svc::get'], ['a3', 'svc::get']] as const;
      for (const [agent, tool] of [...pairs, ...[...pairs].reverse()]) expect(decide(estate, agent, tool, profile)).toEqual(expected(agent, tool, profile));
    });
  }

  it('names the agent in the evidence paths of a shared verdict, and spares the agent an exception covers', () => {
    expect(decide(estate, 'a1', 'svc::fetch', 'review')).toMatchObject({ decision: 'rejected', reason: 'DENY_VIOLATION', paths: ['(a1)-[:CAN_CALL]->(svc::fetch)-[:READS]->(file:///etc/secret)-[:GOVERNED_BY]->(secrets)'] });
    expect(decide(estate, 'a2', 'svc::fetch', 'review').paths).toEqual(['(a2)-[:CAN_CALL]->(svc::fetch)-[:READS]->(file:///etc/secret)-[:GOVERNED_BY]->(secrets)']);
    const spared = decide(estate, 'a3', 'svc::fetch', 'review');
    expect(spared).toMatchObject({ tool_key: 'svc::fetch', decision: 'eligible' });
    expect(spared.paths).toBeUndefined();
    expect(decide(estate, 'a3', 'svc::get', 'review')).toMatchObject({ decision: 'rejected', reason: 'NOT_GRANTED' });
  });
});
