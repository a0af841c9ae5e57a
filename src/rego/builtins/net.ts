/** net.cidr_* builtins (offline only; net.lookup_ip_addr is refused, see refused.ts). */
import { type Value, SetValue } from '../value.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import { arg, builtinError, oneOfError, operandError, str } from './args.ts';
import { type Cidr, containsAddr, formatCidr, formatIP, lastAddr, parseCidr, parseIP, width } from './lib/ip.ts';

function cidrOf(name: string, s: string): Cidr {
  const c = parseCidr(s);
  if (c === undefined) throw builtinError(name, `invalid CIDR address: ${s}`);
  return c;
}

/** A CIDR, or a single address as a full-length block. */
function cidrOrIp(name: string, s: string, message = 'invalid CIDR address'): Cidr {
  const ip = parseIP(s);
  if (ip !== undefined) return { v6: ip.v6, base: ip.addr, bits: ip.v6 ? 128 : 32 };
  const c = parseCidr(s);
  if (c === undefined) throw builtinError(name, `${message}: ${s}`);
  return c;
}

function contains(outer: Cidr, inner: Cidr): boolean {
  return containsAddr(outer, inner.v6, inner.base) && containsAddr(outer, inner.v6, lastAddr(inner));
}

const EXPAND_LIMIT = 1n << 20n;

function mergeCidrs(blocks: Cidr[]): Cidr[] {
  const out: Cidr[] = [];
  for (const fam of [false, true]) {
    let list = blocks.filter((b) => b.v6 === fam).sort((x, y) => (x.base < y.base ? -1 : x.base > y.base ? 1 : x.bits - y.bits));
    // drop blocks contained in an earlier one
    const kept: Cidr[] = [];
    for (const b of list) {
      const prev = kept[kept.length - 1];
      if (prev !== undefined && contains(prev, b)) continue;
      kept.push(b);
    }
    list = kept;
    // merge sibling pairs until nothing changes
    let changed = true;
    while (changed) {
      changed = false;
      const next: Cidr[] = [];
      for (let i = 0; i < list.length; i++) {
        const x = list[i]!;
        const y = list[i + 1];
        if (y !== undefined && x.bits === y.bits && x.bits > 0) {
          const w = width(x);
          const parentBits = x.bits - 1;
          const size = 1n << BigInt(w - x.bits);
          if ((x.base >> BigInt(w - parentBits)) === (y.base >> BigInt(w - parentBits)) && y.base === x.base + size) {
            next.push({ v6: x.v6, base: x.base, bits: parentBits });
            i++;
            changed = true;
            continue;
          }
        }
        next.push(x);
      }
      // a merged parent may now contain its successor
      const dedup: Cidr[] = [];
      for (const b of next) {
        const prev = dedup[dedup.length - 1];
        if (prev !== undefined && contains(prev, b)) continue;
        dedup.push(b);
      }
      list = dedup;
    }
    out.push(...list);
  }
  return out;
}

export const NET_BUILTINS: BuiltinDef[] = [
  {
    name: 'net.cidr_contains',
    arity: 2,
    fn: (a) => {
      const name = 'net.cidr_contains';
      const outer = cidrOf(name, str(name, a, 0));
      // OPA names the second operand "operand 1" here
      const b = a[1];
      if (typeof b !== 'string') throw operandError(name, 1, 'string', b as Value);
      return contains(outer, cidrOrIp(name, b, 'not a valid textual representation of an IP address or CIDR'));
    },
  },
  {
    name: 'net.cidr_intersects',
    arity: 2,
    fn: (a) => {
      const name = 'net.cidr_intersects';
      const x = cidrOf(name, str(name, a, 0));
      const y = cidrOf(name, str(name, a, 1));
      return x.v6 === y.v6 && (contains(x, y) || contains(y, x));
    },
  },
  {
    name: 'net.cidr_is_valid',
    arity: 1,
    fn: (a) => {
      const v = arg(a, 0);
      return typeof v === 'string' && parseCidr(v) !== undefined;
    },
  },
  {
    name: 'net.cidr_expand',
    arity: 1,
    fn: (a) => {
      const name = 'net.cidr_expand';
      const c = cidrOf(name, str(name, a, 0));
      const count = 1n << BigInt(width(c) - c.bits);
      if (count > EXPAND_LIMIT) throw builtinError(name, `CIDR ${formatCidr(c)} has too many addresses to expand`);
      const out = new SetValue();
      for (let i = 0n; i < count; i++) out.add(formatIP(c.v6, c.base + i));
      return out;
    },
  },
  {
    name: 'net.cidr_merge',
    arity: 1,
    fn: (a) => {
      const name = 'net.cidr_merge';
      const v = arg(a, 0);
      let items: readonly Value[];
      if (Array.isArray(v)) items = v;
      else if (v instanceof SetValue) items = v.values();
      else throw oneOfError(name, 1, ['array', 'set'], v);
      // As Go's net.IP.DefaultMask, an IPv4 address stands for its class's network (/8, /16, /24),
      // shown as written when no other block touches it; an IPv6 address needs a prefix length.
      const written = new Map<Cidr, string>();
      const blocks = items.map((x) => {
        if (typeof x !== 'string') throw oneOfError(name, 1, ['array of strings', 'set of strings'], v);
        const ip = parseIP(x);
        if (ip === undefined) return cidrOrIp(name, x);
        if (ip.v6) throw builtinError(name, 'IPv6 invalid: needs prefix length');
        const top = Number(ip.addr >> 24n);
        const bits = top < 0x80 ? 8 : top < 0xc0 ? 16 : 24;
        const c: Cidr = { v6: false, base: ip.addr & ~((1n << BigInt(32 - bits)) - 1n), bits };
        written.set(c, `${formatIP(false, ip.addr)}/${bits}`);
        return c;
      });
      const touches = (a: Cidr, b: Cidr): boolean => a.v6 === b.v6 && b.base <= lastAddr(a) + 1n && lastAddr(b) + 1n >= a.base;
      const shown = (c: Cidr): string => {
        const w = written.get(c);
        return w !== undefined && !blocks.some((b) => b !== c && touches(c, b)) ? w : formatCidr(c);
      };
      return new SetValue(mergeCidrs(blocks).map(shown));
    },
  },
];

registerBuiltins(NET_BUILTINS);
