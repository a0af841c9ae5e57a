/** Comparing parsed Rego trees exactly, and taking one through rego/ast-codec.ts. */
import { decodeModule, encodeModule } from '../../src/rego/ast-codec.ts';
import type { Module } from '../../src/rego/ast.ts';
import { Decimal } from '../../src/rego/number-value.ts';
import { ObjectValue, SetValue, valueEquals, type Value } from '../../src/rego/value.ts';

/** Where two trees differ (path and what), or undefined when they are the same tree, sharing and all. */
export function treeDifference(a: unknown, b: unknown): string | undefined {
  const pairs = new Map<object, object>();
  const back = new Map<object, object>();
  const walk = (x: unknown, y: unknown, at: string): string | undefined => {
    if (x === null || typeof x !== 'object' || y === null || typeof y !== 'object') {
      return Object.is(x, y) ? undefined : `${at}: ${String(x)} (${typeof x}) != ${String(y)} (${typeof y})`;
    }
    if (pairs.has(x) || back.has(y)) return pairs.get(x) === y && back.get(y) === x ? undefined : `${at}: shared differently`;
    pairs.set(x, y);
    back.set(y, x);
    if (Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return `${at}: ${x.constructor?.name} != ${y.constructor?.name}`;
    if (x instanceof SetValue || x instanceof ObjectValue || x instanceof Decimal) {
      return valueEquals(x as Value, y as Value) ? undefined : `${at}: values differ`;
    }
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.join(',') !== ky.join(',')) return `${at}: fields ${kx.join(',')} != ${ky.join(',')}`;
    for (const k of kx) {
      const d = walk((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k], `${at}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  };
  return walk(a, b, '');
}

export const roundTrip = (m: Module): Module => decodeModule(JSON.parse(JSON.stringify(encodeModule(m))));
