import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { peerPath } from '../../../src/queries/compat-toolgraph.ts';
import { loadEstate, locateEstate } from '../../../src/cli/estate-input.ts';

const quiet = { stdout() {}, stderr() {}, cwd: process.cwd(), env: {}, stdin: async () => '' };
const estate = loadEstate(locateEstate({ example: 'quickstart' }, quiet), quiet);
const policies = [...estate.policies.values()];

const name = fc.stringMatching(/^[a-z][a-z0-9_.-]{0,12}$/);
const uri = fc.tuple(fc.constantFrom('file:///', 'memtomem://', 'https://x.example/'), fc.stringMatching(/^[a-z0-9_./-]{1,16}$/)).map(([a, b]) => a + b);

describe('peerPath', () => {
  it("rewrites our evidence path into the peer's spelling, keeping every node and edge in order", () => {
    fc.assert(
      fc.property(name, name, name, fc.array(fc.tuple(fc.constantFrom('READS', 'WRITES'), uri), { minLength: 0, maxLength: 3 }), fc.constantFrom(...policies), (agent, server, tool, hops, policy) => {
        const ours = `(${agent})-[:CAN_CALL]->(${server}::${tool})${hops.map(([e, u]) => `-[:${e}]->(${u})`).join('')}-[:GOVERNED_BY]->(${policy.id})`;
        const peer = peerPath(ours, estate);
        expect(peer).toBe(`(${tool})${hops.map(([e, u]) => ` -${e}-> (${u})`).join('')} -GOVERNED_BY-> (${policy.id}:${policy.effect})`);
      }),
    );
  });

  it('leaves a policy it does not know as its bare id', () => {
    expect(peerPath('(a)-[:CAN_CALL]->(s::t)-[:GOVERNED_BY]->(gone)', estate)).toBe('(t) -GOVERNED_BY-> (gone)');
  });
});
