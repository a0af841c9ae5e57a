/**
 * A graph's node ids as their canonical JSON bytes: each id quoted, escaped and UTF-8 encoded once,
 * one after another in node order, with each id's start in `off`. buildGraph makes one per graph;
 * the diff writes its labels by copying byte ranges out of it, and so reads no id string per
 * label (the strings lie all over the heap, and each read of one is a cache miss on a large graph).
 */
import { quoteString } from '../canonical/json.ts';

export interface IdTable {
  /** The quoted ids, then at least SLACK bytes (so a copy may read a few bytes past the last id). */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** Id k's quoted bytes are bytes[off[k], off[k + 1]); off has one more entry than there are ids. */
  readonly off: Int32Array;
  /** The length of the longest quoted id. */
  readonly longest: number;
}

/** Bytes past the last id that a reader may read (and ignore). */
export const SLACK = 4;

const encoder = new TextEncoder();

/**
 * Quotes every id into one table. It is sized from a sample of the ids with a quarter to spare,
 * not for the worst case: V8 counts every byte of a typed array as external memory, and a large
 * enough sum of that since the last full collection sets one off.
 */
export function quoteIdTable(ids: readonly string[]): IdTable {
  const step = Math.max(1, Math.floor(ids.length / 256));
  let sampled = 0;
  let units = 0;
  for (let k = 0; k < ids.length; k += step, sampled++) units += ids[k]!.length;
  const perId = sampled === 0 ? 0 : units / sampled + 2;
  let buf = new Uint8Array(Math.ceil(ids.length * perId * 1.25) + 4096);
  const off = new Int32Array(ids.length + 1);
  let p = 0;
  let longest = 0;
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    const most = id.length * 6 + 2; // \u00XX is the longest a code unit gets
    if (p + most + SLACK > buf.length) buf = grown(buf, p, Math.max(Math.ceil(buf.length * 1.5), p + most + SLACK));
    // Printable ASCII but `"` and `\` is written as it is, one byte a unit; anything else is quoted.
    let q = p + 1;
    for (let i = 0; i < id.length; i++) {
      const u = id.charCodeAt(i);
      if (u < 0x20 || u > 0x7e || u === 0x22 || u === 0x5c) {
        q = -1;
        break;
      }
      buf[q++] = u;
    }
    if (q >= 0) {
      buf[p] = 0x22;
      buf[q++] = 0x22;
    } else {
      q = p + encoder.encodeInto(quoteString(id), buf.subarray(p)).written;
    }
    if (q - p > longest) longest = q - p;
    off[k + 1] = p = q;
  }
  return { bytes: buf, off, longest };
}

/**
 * The table of the union of two graphs' ids, from their own tables: `aAt`/`bAt` give each id's
 * position in the union (ascending, as both id lists and their union are sorted), and an id in
 * both is taken from `a`. Both tables are read front to back.
 */
export function mergeIdTables(a: IdTable, aAt: Int32Array, b: IdTable, bAt: Int32Array, size: number): IdTable {
  const aEnd = a.off[aAt.length]!;
  const bEnd = b.off[bAt.length]!;
  const bytes = new Uint8Array(aEnd + bEnd + SLACK);
  const off = new Int32Array(size + 1);
  let p = 0;
  let i = 0;
  let j = 0;
  for (let u = 0; u < size; u++) {
    let from: IdTable;
    let k: number;
    if (i < aAt.length && aAt[i] === u) {
      from = a;
      k = i++;
      if (j < bAt.length && bAt[j] === u) j++;
    } else {
      from = b;
      k = j++;
    }
    const src = from.bytes;
    for (let x = from.off[k]!, e = from.off[k + 1]!; x < e; x++) bytes[p++] = src[x]!;
    off[u + 1] = p;
  }
  return { bytes, off, longest: Math.max(a.longest, b.longest) };
}

function grown(buf: Uint8Array, used: number, size: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(size);
  next.set(buf.subarray(0, used));
  return next;
}
