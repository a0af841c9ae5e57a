/**
 * net.lookup_ip_addr where Go's resolver needs no lookup, against the real OPA: an IP literal is
 * itself (IPv4, IPv6 in its short form, IPv4-mapped IPv6 as IPv4, a zone kept) and localhost the
 * loopback address. Names that would need a lookup are refused by the engine (no network), and are
 * not asked of OPA, which would query DNS.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements } from '../../../helpers/builtin-oracle.ts';
import { BuiltinError } from '../../../../src/rego/builtins/registry.ts';
import { call } from './call.ts';

const ANSWERED = ['10.0.0.0', '::', 'localhost', 'LOCALHOST', '::ffff:1.2.3.4', 'fe80::1%eth0', '0:0:0:0:0:0:0:1', '2001:DB8::1', '255.255.255.255', '1:2:3:4:5:6:7:8'];

describeWithOpa('net.lookup_ip_addr without a lookup, against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([{ name: 'net.lookup_ip_addr', arity: 1 }]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('answers IP literals and localhost as OPA does', async () => {
    const t = await oracle.compare([...ANSWERED.map((s) => ({ name: 'net.lookup_ip_addr', args: [s] })), { name: 'net.lookup_ip_addr', args: [1] }]);
    expect(t.disagreements, describeDisagreements(t)).toEqual([]);
    expect(t.kinds.value).toBe(ANSWERED.length);
  }, 60_000);
});

it('refuses, with a halting error, every name that needs a lookup (Go parses no zone on IPv4, no leading zero)', () => {
  for (const name of ['example.com', '1.2.3.4%eth0', '010.0.0.1', '::1%', '1.2.3', 'localhost.']) {
    let err: unknown;
    try {
      call('net.lookup_ip_addr', name);
    } catch (e) {
      err = e;
    }
    expect(err, name).toBeInstanceOf(BuiltinError);
    expect((err as BuiltinError).halt, name).toBe(true);
  }
});
