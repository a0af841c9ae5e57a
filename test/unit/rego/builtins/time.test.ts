import { describe, expect, it } from 'vitest';
import { valueEquals } from '../../../../src/rego/value.ts';
import { call, ctx, j } from './call.ts';
import { lookupBuiltin } from '../../../../src/rego/builtins/registry.ts';

const T = 1703444325734390000n;

describe('time builtins', () => {
  it.each([
    ['time.parse_rfc3339_ns', ['2017-06-02T19:00:00-07:00'], 1496455200000000000n],
    ['time.parse_rfc3339_ns', ['1677-09-21T00:12:43.145224192-00:00'], -9223372036854775808n],
    ['time.parse_rfc3339_ns', ['1985-04-12T23:20:50.52Z'], 482196050520000000n],
    ['time.parse_ns', ['2006-01-02 15:04:05', '2015-09-05 23:56:04'], 1441497364000000000n],
    ['time.parse_duration_ns', ['1h6m13.3s20ms15µs1ns'], 3973320015001n],
    ['time.parse_duration_ns', ['100ms'], 100000000n],
    ['time.format', [[1257894000000000000n, '', '02/01/2006 15:04']], '10/11/2009 23:00'],
    ['time.format', [T], '2023-12-24T18:58:45.73439Z'],
    ['time.date', [T], [2023, 12, 24]],
    ['time.clock', [[T, 'CET']], [19, 58, 45]],
    ['time.weekday', [T], 'Sunday'],
    ['time.add_date', [T, -213, -6, -5], -5034459674265610000n],
    ['time.add_date', [T, 10, 14, 75], 2062436325734390000n],
    ['time.diff', [T, 1257894000000000000n], [14, 1, 13, 19, 58, 45]],
  ] as const)('%s(%s)', (name, args, want) => {
    expect(valueEquals(call(name, ...args.map((x) => j(x)))!, j(want))).toBe(true);
  });

  it('refuses times outside int64 nanoseconds', () => {
    expect(() => call('time.parse_rfc3339_ns', '2262-04-11T23:47:16.854775808-00:00')).toThrow('time outside of valid range');
    expect(() => call('time.add_date', j(T), j(2147483647), 0, 0)).toThrow('time outside of valid range');
    expect(() => call('time.date', j(99999999999999999999n))).toThrow('timestamp too big');
  });

  it('reads the injected clock', () => {
    const def = lookupBuiltin('time.now_ns')!;
    expect(def.fn!([], ctx(123n))).toBe(123);
  });
});
