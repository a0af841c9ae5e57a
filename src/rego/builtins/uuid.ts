/** uuid.parse (Go google/uuid field layout) and uuid.rfc4122 (version 4 from the context's seeded random source). */
import { type Value, ObjectValue } from '../value.ts';
import { normBigInt } from '../number-value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { str } from './args.ts';

function parseUuidBytes(s0: string): number[] | undefined {
  let s = s0;
  if (s.length === 45 && s.toLowerCase().startsWith('urn:uuid:')) s = s.slice(9);
  // as Google's uuid.Parse: the 38-byte form drops its first and last byte whatever they are
  else if (s.length === 38) s = s.slice(1, 37);
  let hex: string;
  if (s.length === 36) {
    if (s[8] !== '-' || s[13] !== '-' || s[18] !== '-' || s[23] !== '-') return undefined;
    hex = s.slice(0, 8) + s.slice(9, 13) + s.slice(14, 18) + s.slice(19, 23) + s.slice(24);
  } else if (s.length === 32) hex = s;
  else return undefined;
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return undefined;
  const out: number[] = [];
  for (let i = 0; i < 32; i += 2) out.push(parseInt(hex.slice(i, i + 2), 16));
  return out;
}

function variantName(b: number): string {
  if ((b & 0xc0) === 0x80) return 'RFC4122';
  if ((b & 0xe0) === 0xc0) return 'Microsoft';
  if ((b & 0xe0) === 0xe0) return 'Future';
  return 'Reserved';
}

const GREGORIAN_TO_UNIX_100NS = 0x01b21dd213814000n;

function describe(b: number[]): ObjectValue {
  const o = new ObjectValue();
  const version = b[6]! >> 4;
  o.set('version', version);
  o.set('variant', variantName(b[8]!));
  if (version === 1 || version === 2) {
    const low = (BigInt(b[0]!) << 24n) | (BigInt(b[1]!) << 16n) | (BigInt(b[2]!) << 8n) | BigInt(b[3]!);
    const mid = (BigInt(b[4]!) << 8n) | BigInt(b[5]!);
    const hi = (BigInt(b[6]! & 0x0f) << 8n) | BigInt(b[7]!);
    const t = (hi << 48n) | (mid << 32n) | low;
    o.set('time', normBigInt((t - GREGORIAN_TO_UNIX_100NS) * 100n));
    o.set('clocksequence', ((b[8]! & 0x3f) << 8) | b[9]!);
    o.set('nodeid', b.slice(10).map((x) => x.toString(16).padStart(2, '0')).join('-'));
    const n0 = b[10]!;
    o.set('macvariables', `${n0 & 0x02 ? 'local' : 'global'}:${n0 & 0x01 ? 'multicast' : 'unicast'}`);
    if (version === 2) {
      const d = b[9]!;
      o.set('domain', d === 0 ? 'Person' : d === 1 ? 'Group' : d === 2 ? 'Org' : `Domain${d}`);
      o.set('id', normBigInt(low));
    }
  }
  if (version === 6) {
    const high = (BigInt(b[0]!) << 24n) | (BigInt(b[1]!) << 16n) | (BigInt(b[2]!) << 8n) | BigInt(b[3]!);
    const mid = (BigInt(b[4]!) << 8n) | BigInt(b[5]!);
    const low = (BigInt(b[6]! & 0x0f) << 8n) | BigInt(b[7]!);
    o.set('time', normBigInt((((high << 28n) | (mid << 12n) | low) - GREGORIAN_TO_UNIX_100NS) * 100n));
  } else if (version === 7) {
    let ms = 0n;
    for (let i = 0; i < 6; i++) ms = (ms << 8n) | BigInt(b[i]!);
    o.set('time', normBigInt(ms * 1_000_000n));
  }
  return o;
}

export const UUID_BUILTINS: BuiltinDef[] = [
  {
    name: 'uuid.parse',
    arity: 1,
    fn: (a) => {
      const bytes = parseUuidBytes(str('uuid.parse', a, 0));
      return bytes === undefined ? undefined : describe(bytes);
    },
  },
  {
    name: 'uuid.rfc4122',
    arity: 1,
    nondeterministic: true,
    fn: (a, ctx) => {
      const seed = str('uuid.rfc4122', a, 0);
      const key = `uuid.rfc4122\u0000${seed}`;
      const hit = ctx.cache.get(key);
      if (hit !== undefined) return hit;
      const b: number[] = [];
      for (let i = 0; i < 16; i++) b.push(Math.floor(ctx.random() * 256) & 0xff);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const h = b.map((x) => x.toString(16).padStart(2, '0')).join('');
      const out: Value = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
      ctx.cache.set(key, out);
      return out;
    },
  },
];


registerBuiltins(UUID_BUILTINS);
