/** IPv4/IPv6 addresses and CIDR blocks as bigints (Go's net.ParseIP / net.ParseCIDR forms). */

export interface Cidr {
  v6: boolean; // address family (IPv4 blocks are kept as 32-bit)
  base: bigint; // network address (masked)
  bits: number; // prefix length
}

export function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^[0-9]{1,3}$/.test(p) || (p.length > 1 && p[0] === '0')) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

export function parseIPv6(s: string): bigint | undefined {
  if (s.includes('%')) return undefined;
  let head = s;
  let tail4: bigint | undefined;
  const lastColon = s.lastIndexOf(':');
  if (lastColon >= 0 && s.slice(lastColon + 1).includes('.')) {
    tail4 = parseIPv4(s.slice(lastColon + 1));
    if (tail4 === undefined) return undefined;
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = head.split('::');
  if (dbl.length > 2) return undefined;
  const toGroups = (x: string): number[] | undefined => {
    if (x === '') return [];
    const gs = x.split(':');
    const out: number[] = [];
    for (const g of gs) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = toGroups(dbl[0]!);
  const right = dbl.length === 2 ? toGroups(dbl[1]!) : [];
  if (left === undefined || right === undefined) return undefined;
  let groups: number[];
  if (dbl.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return undefined;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  } else groups = left;
  if (groups.length !== 8) return undefined;
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  if (tail4 !== undefined) v = (v & ~0xffffffffn) | tail4;
  return v;
}

/** An IP address; IPv4-mapped IPv6 addresses count as IPv4 (as Go's To4). */
export function parseIP(s: string): { v6: boolean; addr: bigint } | undefined {
  const v4 = parseIPv4(s);
  if (v4 !== undefined) return { v6: false, addr: v4 };
  const v6 = parseIPv6(s);
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { v6: false, addr: v6 & 0xffffffffn };
  return { v6: true, addr: v6 };
}

export function parseCidr(s: string): Cidr | undefined {
  const slash = s.indexOf('/');
  if (slash < 0) return undefined;
  const ipText = s.slice(0, slash);
  const bitsText = s.slice(slash + 1);
  if (!/^[0-9]{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  const v4 = parseIPv4(ipText);
  if (v4 !== undefined) {
    if (bits > 32) return undefined;
    return { v6: false, base: mask(v4, bits, 32), bits };
  }
  const v6 = parseIPv6(ipText);
  if (v6 === undefined || bits > 128) return undefined;
  return { v6: true, base: mask(v6, bits, 128), bits };
}

export function width(c: { v6: boolean }): number {
  return c.v6 ? 128 : 32;
}

export function mask(addr: bigint, bits: number, w: number): bigint {
  const hostBits = BigInt(w - bits);
  return (addr >> hostBits) << hostBits;
}

export function lastAddr(c: Cidr): bigint {
  return c.base | ((1n << BigInt(width(c) - c.bits)) - 1n);
}

export function containsAddr(c: Cidr, v6: boolean, addr: bigint): boolean {
  if (c.v6 !== v6) return false;
  return mask(addr, c.bits, width(c)) === c.base;
}

export function formatIP(v6: boolean, addr: bigint): string {
  if (!v6) return [24n, 16n, 8n, 0n].map((s) => ((addr >> s) & 255n).toString()).join('.');
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((addr >> BigInt(i * 16)) & 0xffffn));
  // longest run of zeros (length >= 2) becomes "::"
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function formatCidr(c: Cidr): string {
  return `${formatIP(c.v6, c.base)}/${c.bits}`;
}
