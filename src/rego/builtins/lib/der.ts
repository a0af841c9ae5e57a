/**
 * A minimal DER reader (ITU-T X.690) for the certificate, CSR and key builtins: it hands back each
 * element's tag, content and whole encoding as byte slices, which is what Go's crypto/x509 JSON shows
 * (`Raw`, `RawTBSCertificate`, extension values). Definite lengths only, as DER requires.
 */

export interface DerElement {
  /** The identifier octet: class, constructed bit and tag number (low tag numbers only). */
  readonly tag: number;
  /** Content octets. */
  readonly content: Uint8Array;
  /** Identifier, length and content octets together. */
  readonly raw: Uint8Array;
}

export class DerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DerError';
  }
}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8String: 0x0c,
  PrintableString: 0x13,
  T61String: 0x14,
  IA5String: 0x16,
  UTCTime: 0x17,
  GeneralizedTime: 0x18,
  BMPString: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** Reads consecutive elements from a byte slice. */
export class DerReader {
  private pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get empty(): boolean {
    return this.pos >= this.bytes.length;
  }

  peekTag(): number | undefined {
    return this.empty ? undefined : this.bytes[this.pos];
  }

  read(expected?: number): DerElement {
    const b = this.bytes;
    const start = this.pos;
    if (start + 2 > b.length) throw new DerError('truncated element');
    const tag = b[start]!;
    if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
    if (expected !== undefined && tag !== expected) throw new DerError(`expected tag ${expected} but got ${tag}`);
    let len = b[start + 1]!;
    let off = start + 2;
    if (len & 0x80) {
      const n = len & 0x7f;
      if (n === 0 || n > 4 || off + n > b.length) throw new DerError('bad length');
      len = 0;
      for (let i = 0; i < n; i++) len = len * 256 + b[off + i]!;
      if (b[off] === 0 || len < 0x80) throw new DerError('non-minimal length');
      off += n;
    }
    if (off + len > b.length) throw new DerError('truncated content');
    this.pos = off + len;
    return { tag, content: b.subarray(off, off + len), raw: b.subarray(start, off + len) };
  }

  /** Reads the next element when it has the given tag, else nothing. */
  readOptional(tag: number): DerElement | undefined {
    return this.peekTag() === tag ? this.read(tag) : undefined;
  }
}

/** The elements inside a constructed element. */
export function children(e: DerElement): DerElement[] {
  const r = new DerReader(e.content);
  const out: DerElement[] = [];
  while (!r.empty) out.push(r.read());
  return out;
}

/** Reads one element that must fill the whole slice. */
export function readOne(bytes: Uint8Array, tag?: number): DerElement {
  const r = new DerReader(bytes);
  const e = r.read(tag);
  if (!r.empty) throw new DerError('trailing data');
  return e;
}

export function oidArcs(e: DerElement): number[] {
  const c = e.content;
  if (c.length === 0) throw new DerError('empty OID');
  const arcs: number[] = [];
  let v = 0;
  for (let i = 0; i < c.length; i++) {
    v = v * 128 + (c[i]! & 0x7f);
    if (!(c[i]! & 0x80)) {
      if (arcs.length === 0) {
        if (v < 80) arcs.push(Math.floor(v / 40), v % 40);
        else arcs.push(2, v - 80);
      } else arcs.push(v);
      v = 0;
    }
  }
  return arcs;
}

export function bigIntOf(e: DerElement): bigint {
  const c = e.content;
  if (c.length === 0) throw new DerError('empty integer');
  let v = 0n;
  for (const x of c) v = (v << 8n) | BigInt(x);
  if (c[0]! & 0x80) v -= 1n << BigInt(c.length * 8);
  return v;
}

export function bytesToBigInt(c: Uint8Array): bigint {
  let v = 0n;
  for (const x of c) v = (v << 8n) | BigInt(x);
  return v;
}
