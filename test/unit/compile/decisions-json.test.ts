import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { canonicalString } from '../../../src/canonical/json.ts';
import { bundleAgentsText, dataAgentsText } from '../../../src/compile/decisions-json.ts';
import type { AgentDecisions, ToolDecision } from '../../../src/governance/decisions.ts';

const reason = fc.constantFrom('NOT_GRANTED', 'DENY_VIOLATION', 'DENY_GOVERNED', 'DRIFTED', 'UNMAPPED');
const decision: fc.Arbitrary<Omit<ToolDecision, 'tool_key'>> = fc.oneof(
  fc.record({ decision: fc.constant('eligible' as const), risk_score: fc.constantFrom(0, 0.2, 0.4, 0.6) }),
  fc.record({ decision: fc.constant('rejected' as const), reason, risk_score: fc.constantFrom(0.2, 0.8, 1) }, { requiredKeys: ['decision', 'reason', 'risk_score'] }),
  fc.record({ decision: fc.constant('rejected' as const), reason, risk_score: fc.constant(1), paths: fc.array(fc.oneof(fc.string(), fc.string({ unit: 'grapheme', maxLength: 4 }), fc.constant('(a)-[:CAN_CALL]->(e\u0301)')), { minLength: 1, maxLength: 3 }) }),
);
const key = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}::[a-z_]{1,8}$/), fc.string({ minLength: 1, maxLength: 6 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }));
const agents: fc.Arbitrary<AgentDecisions[]> = fc
  .uniqueArray(fc.tuple(fc.oneof(fc.stringMatching(/^[a-z-]{1,8}$/), fc.string({ minLength: 1, maxLength: 5 })), fc.uniqueArray(fc.tuple(key, decision), { selector: (t) => t[0], maxLength: 6 })), { selector: (t) => t[0], maxLength: 5 })
  .map((list) =>
    list
      .map(([agent, ds]) => ({ agent, decisions: ds.map(([tool_key, d]) => ({ tool_key, ...d })).sort((a, b) => (a.tool_key < b.tool_key ? -1 : a.tool_key > b.tool_key ? 1 : 0)) }))
      .sort((a, b) => (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : 0)),
  );

function generic(list: AgentDecisions[], row: (d: ToolDecision) => unknown): string {
  return canonicalString(Object.fromEntries(list.map((a) => [a.agent, { tools: Object.fromEntries(a.decisions.map((d) => [d.tool_key, row(d)])) }])), { allowFloats: true });
}

describe('hand-encoded decision maps', () => {
  it('are exactly the generic canonical encoding (policy bundle rows)', () => {
    fc.assert(
      fc.property(agents, (list) => {
        expect(bundleAgentsText(list).text).toBe(generic(list, ({ tool_key: _k, ...rest }) => rest));
      }),
    );
  });
  it('are exactly the generic canonical encoding (data document rows)', () => {
    fc.assert(
      fc.property(agents, (list) => {
        expect(dataAgentsText(list).text).toBe(generic(list, (d) => ({ allow: d.decision === 'eligible', decision: d.decision, reason: d.reason ?? null, risk_score: d.risk_score })));
      }),
    );
  });
});
