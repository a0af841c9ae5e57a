/**
 * The time a bundle decision and a builtin-engine evaluation see comes from their caller (the CLI
 * passes the wall clock): time.now_ns answers the injected clock, and the host's wall clock without one, as OPA's.
 */
import { describe, expect, it } from 'vitest';
import { bundleDecider } from '../../../src/bundle/decider.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';
import { loadPolicy } from '../../../src/engines/engine.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const NOW = 1_767_225_600_123_456_789n;

describe('the clock of a decision and of the builtin engine is the caller\'s', () => {
  it('bundleDecider: decide(..., now) is what time.now_ns reads; without it, the wall clock', async () => {
    const bytes = await emitTarGz([
      { name: '.manifest', bytes: enc(JSON.stringify({ revision: 'r', roots: ['toolgate'] })) },
      { name: 'toolgate/authz/authz.rego', bytes: enc('package toolgate.authz\n\ndecision := {"at": time.now_ns(), "agent": input.agent}\n') },
    ]);
    const decider = await bundleDecider(bytes);
    expect(decider.decide('a', 't', undefined, NOW)).toEqual({ at: NOW, agent: 'a' });
    const before = BigInt(Date.now()) * 1_000_000n;
    const { at } = decider.decide('a', 't') as { at: bigint | number };
    expect(BigInt(at) >= before && BigInt(at) <= BigInt(Date.now()) * 1_000_000n, `${at} is now`).toBe(true);
  });

  it('loadPolicy (builtin): the clock option is read at each evaluation; without it, the wall clock, as OPA', async () => {
    let ticks = 0n;
    const modules = [{ name: 'p.rego', text: 'package p\n\nt := time.now_ns()\n' }];
    const clocked = await loadPolicy({ kind: 'rego', modules }, { clock: () => NOW + ++ticks });
    clocked.setData({});
    expect(clocked.evaluate({}, 'data.p.t')).toMatchObject({ defined: true, value: NOW + 1n });
    expect(clocked.evaluate({}, 'data.p.t')).toMatchObject({ defined: true, value: NOW + 2n });
    const bare = await loadPolicy({ kind: 'rego', modules });
    bare.setData({});
    const before = BigInt(Date.now()) * 1_000_000n;
    const at = (bare.evaluate({}, 'data.p.t') as { value: bigint | number }).value;
    const after = BigInt(Date.now()) * 1_000_000n;
    expect(BigInt(at) >= before && BigInt(at) <= after, `${at} within [${before}, ${after}]`).toBe(true);
  });
});
