/**
 * End to end through a real enforcement point's query path: `opa run --server` with the compiled
 * bundle, asked at toolgate/gateways/envoy/response with the input opa-envoy-plugin builds from an
 * Envoy CheckRequest (the Go module proxy does not serve opa-envoy-plugin here, so its gRPC server
 * is not in the loop; see docs/gateways.md). For every (agent, tool) pair of the quickstart: the
 * answer allows exactly when data.toolgate.authz.decision does, and a denial carries 403, the
 * decision's reason in x-toolgate-reason and a JSON-RPC error body. Hostile input is denied with a
 * reason in both engines, never an undefined or erroring answer.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeWithOpa } from '../../helpers/opa.ts';
import { compileEstate, evalBuiltin, servedEstate, type CompiledEstate } from './gateway-estate.ts';

import { bearer, extAuthz, hostile, toolsCall } from './ext-authz.ts';

function check(answer: any, want: string, what: string): void {
  expect(answer, what).toBeDefined();
  expect(answer.allowed, what).toBe(false);
  expect(answer.headers['x-toolgate-reason'], what).toBe(want);
  expect(typeof answer.body, what).toBe('string');
  expect(JSON.parse(answer.body).error.data.reason, what).toBe(want);
}

describe('hostile ext_authz input under the builtin engine', () => {
  let estate: CompiledEstate;
  beforeAll(async () => {
    estate = await compileEstate();
  });
  // The builtin engine converts input recursively: 400 levels, not OPA's thousands (see docs/gateways.md).
  it.each(hostile(400).map(([what, input, want]) => [what, input, want] as const))('%s: denied', (what, input, want) => {
    check(evalBuiltin('toolgate/gateways/envoy/response', input, estate.data), want, what);
  });
});

describeWithOpa('Envoy ext_authz end to end through opa run --server', () => {
  const served = servedEstate();

  it('allows exactly what decision allows, for every (agent, tool) pair of the quickstart', async () => {
    const data = served.estate.data as any;
    const agents = [...Object.keys(data.toolgate.agents), 'intruder'];
    const tools = [...Object.keys(data.toolgate.tools).map((k) => k.split('::')[1]!), 'rm_rf'];
    let allowed = 0;
    let denied = 0;
    for (const agent of agents) {
      for (const name of tools) {
        const key = data.toolgate.tools_by_name[name]?.[0] ?? name;
        const want = (await served.server.query('toolgate/authz/decision', { agent, tool: key })).result as { allow: boolean; reason: string | null };
        const got = (await served.server.query('toolgate/gateways/envoy/response', extAuthz(toolsCall(name), { authorization: bearer(agent) }))).result as any;
        const what = `${agent} ${name}`;
        expect(got.allowed, what).toBe(want.allow);
        if (want.allow) {
          allowed++;
          expect(got.headers, what).toEqual({ 'x-toolgate-decision': 'allow', 'x-toolgate-agent': agent });
          expect(got.http_status, what).toBeUndefined();
        } else {
          denied++;
          const reason = name === 'rm_rf' && agent !== 'intruder' ? 'TOOL_NOT_FOUND' : want.reason;
          expect(got.http_status, what).toBe(403);
          expect(got.headers['x-toolgate-reason'], what).toBe(reason);
          expect(JSON.parse(got.body), what).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32001, data: { reason } } });
        }
        expect(got, what).toEqual(evalBuiltin('toolgate/gateways/envoy/response', extAuthz(toolsCall(name), { authorization: bearer(agent) }), served.estate.data));
      }
      const list = (await served.server.query('toolgate/gateways/envoy/response', extAuthz({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, { authorization: bearer(agent) }))).result as any;
      if (agent === 'intruder') expect(list.allowed).toBe(false);
      else expect(list.dynamic_metadata.toolgate.visible_tools, agent).toEqual((await served.server.query('toolgate/authz/visible_tools', { agent })).result);
    }
    expect(allowed).toBeGreaterThan(0);
    expect(denied).toBeGreaterThan(allowed);
  });

  it.each(hostile(1000).map(([what, input, want]) => [what, input, want] as const))('hostile: %s is denied with a reason', async (what, input, want) => {
    check((await served.server.query('toolgate/gateways/envoy/response', input)).result, want, what);
  });
});
