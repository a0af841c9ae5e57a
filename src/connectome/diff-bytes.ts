/**
 * The diff record's canonical bytes (RFC 8785 key order, no trailing newline): as one buffer
 * (encodeDiff), streamed to a sink in chunks (writeDiff), or hashed (diffDigest). A record
 * diffConnectomes made is written from the node positions it kept, copying each id's quoted
 * bytes out of an id table; any other record (assembled by hand, re-sorted, or changed since) is
 * written from its strings. Both give the same bytes.
 */
import { bytesToHex } from '@noble/hashes/utils.js';
import { ByteSink } from '../canonical/bytes.ts';
import { assertDigestAlgorithm, createDigest, type DigestAlgorithm } from '../canonical/digest.ts';
import { canonicalString, quoteString } from '../canonical/json.ts';
import { eachLabel, positionsKept, type ChangedSign, type DiffRecord, type EdgeLabel, type Positions } from './diff.ts';
import { KINDS_BY_RANK } from './graph.ts';
import { SLACK } from './id-table.ts';
import { SIGNS } from './vocabulary.ts';

export interface WriteDiffOptions {
  readonly algorithm?: DigestAlgorithm;
  /**
   * About how many bytes a chunk holds; a chunk always has room for two labels. 256 KiB by default:
   * small enough to stay in the cache, and large enough that a write to a file costs little per
   * byte.
   */
  readonly chunkBytes?: number;
}

/** Receives the record's bytes in order; a chunk is only valid during the call (its buffer is reused). */
export type ByteChunkSink = (chunk: Uint8Array) => void;

/** The record's canonical bytes: its keys sorted (RFC 8785), no trailing newline. */
export function encodeDiff(record: DiffRecord, options: { algorithm?: DigestAlgorithm } = {}): Uint8Array {
  const { head, tail, positions } = framing(record, options.algorithm);
  // From positions, the exact size is known before a byte is written: one buffer, never flushed.
  return positions === undefined ? encodeFromStrings(record, head, tail) : encodeFromPositions(record, positions, head, tail, undefined);
}

/**
 * The same bytes as encodeDiff, handed to `sink` in chunks of about 256 KiB from one reused buffer,
 * so a large record goes to a file or a hash without ever being held whole (a fresh buffer the
 * size of the record costs a page fault per 4 KiB, more than writing the bytes).
 */
export function writeDiff(record: DiffRecord, sink: ByteChunkSink, options: WriteDiffOptions = {}): void {
  const { head, tail, positions } = framing(record, options.algorithm);
  if (positions === undefined) sink(encodeFromStrings(record, head, tail));
  else encodeFromPositions(record, positions, head, tail, { sink, chunkBytes: options.chunkBytes ?? CHUNK_BYTES });
}

function framing(record: DiffRecord, algorithmOption: DigestAlgorithm | undefined): { head: string; tail: string; positions: Positions | undefined } {
  const algorithm = algorithmOption ?? record.algorithm;
  assertDigestAlgorithm(algorithm);
  return {
    head: `{"algorithm":"${algorithm}","classes":{"changed_sign":[`,
    tail: `]},"coverage":${canonicalString(record.coverage)},"schema_version":${record.schema_version},"window":${canonicalString(record.window)}}`,
    positions: positionsOf(record),
  };
}

/**
 * The record's positions, if every label still holds the strings its positions name (a pointer
 * comparison per label of each list a caller has read); undefined for a record assembled by hand
 * or changed after it was made, which is then written from its strings.
 */
function positionsOf(record: DiffRecord): Positions | undefined {
  const positions = positionsKept(record.classes);
  if (positions === undefined) return undefined;
  const { ids, classes, made } = positions;
  for (let c = 0; c < 4; c++) {
    const list = c === 0 ? record.classes.changed_sign : made[c];
    if (list === undefined) continue;
    if (list.length !== classes[c]!.length) return undefined;
    let holds = true;
    eachLabel(classes[c]!, (f, t, kind, k) => {
      const l = list[k]!;
      holds = l.from === ids[f] && l.to === ids[t] && l.kind === KINDS_BY_RANK[kind];
      // A changed label's signs are written from the label: they must still be signs.
      if (c === 0 && holds) holds = SIGNS.includes((l as ChangedSign).declared_sign) && SIGNS.includes((l as ChangedSign).observed_sign);
      return holds;
    });
    if (!holds) return undefined;
  }
  return positions;
}

const encoder = new TextEncoder();
const CHUNK_BYTES = 1 << 18;

/**
 * Writes the labels from their endpoint positions: every id of the union is in one table of
 * quoted bytes (a graph's own, when its nodes are the whole union), and each label is four byte
 * ranges copied into the output (copy4): its prefix, its from id, its middle, its to id. No id string is
 * read per label. A changed label's signs come from the label, the rest from the positions.
 * Without a sink the output is the exact size of the record, summed first from the positions;
 * with one, the output is a chunk flushed to the sink whenever the next label might not fit (then
 * the result is empty). The fixed pieces lie past the output in the same buffer.
 */
function encodeFromPositions(
  record: DiffRecord,
  positions: Positions,
  head: string,
  tail: string,
  streaming: { readonly sink: ByteChunkSink; readonly chunkBytes: number } | undefined,
): Uint8Array {
  const { classes } = positions;
  const table = positions.idTable();
  const { off } = table;
  const ids = table.bytes;
  const changed = record.classes.changed_sign;
  const opens = CLASS_NAMES.map((n) => encoder.encode(`],"${n}":[`));
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(tail);
  // A label is [prefix][from id][middle][to id]}. Prefix 0 and middle `kind` are a plain label's;
  // a changed label's carry its signs: prefix 1 + declared sign, middle KINDS + kind * SIGNS +
  // observed sign (signIndexes).
  const prefixes = [encoder.encode('{"from":'), ...SIGNS.map((s) => encoder.encode(`{"declared_sign":"${s}","from":`))];
  const middles = [
    ...KINDS_BY_RANK.map((k) => encoder.encode(`,"kind":"${k}","to":`)),
    ...KINDS_BY_RANK.flatMap((k) => SIGNS.map((s) => encoder.encode(`,"kind":"${k}","observed_sign":"${s}","to":`))),
  ];
  const signs = signIndexes(changed);
  const prefixOf = (c: number, k: number): number => (c === 0 ? 1 + signs[2 * k]! : 0);
  const middleOf = (c: number, k: number, kind: number): number => (c === 0 ? KINDS_BY_RANK.length + kind * SIGNS.length + signs[2 * k + 1]! : kind);

  let size: number; // of the output
  let limit: number; // flush past this (never without a sink)
  if (streaming === undefined) {
    size = headBytes.length + tailBytes.length;
    for (let c = 0; c < 4; c++) {
      const { length } = classes[c]!;
      if (c > 0) size += opens[c]!.length;
      if (length > 0) size += length - 1; // commas
      eachLabel(classes[c]!, (f, t, kind, k) => {
        size += prefixes[prefixOf(c, k)]!.length + off[f + 1]! - off[f]! + middles[middleOf(c, k, kind)]!.length + off[t + 1]! - off[t]! + 1;
      });
    }
    limit = Infinity;
  } else {
    // A chunk holds at least two of the largest labels.
    const largest = 2 * table.longest + Math.max(...prefixes.map((b) => b.length)) + Math.max(...middles.map((b) => b.length)) + 2;
    size = Math.max(streaming.chunkBytes, 2 * largest);
    limit = size - largest;
  }
  // [output][SLACK][fixed pieces][SLACK]: copy4 may read and write a few bytes past a range.
  const pieces = [...prefixes, ...middles];
  let piecesLength = 0;
  for (const piece of pieces) piecesLength += piece.length;
  const buf = new Uint8Array(size + SLACK + piecesLength + SLACK);
  const pieceAt = new Int32Array(pieces.length);
  const pieceEnd = new Int32Array(pieces.length);
  for (let p = 0, at = size + SLACK; p < pieces.length; p++) {
    buf.set(pieces[p]!, at);
    pieceAt[p] = at;
    pieceEnd[p] = at += pieces[p]!.length;
  }
  const middleBase = prefixes.length;
  const out: Chunk = { buf, end: size, sink: streaming?.sink };
  const dv = new DataView(buf.buffer);
  const idv = new DataView(ids.buffer, ids.byteOffset, ids.byteLength);

  let len = put(out, 0, headBytes);
  for (let c = 0; c < 4; c++) {
    const { edges, at, tags, tag } = classes[c]!;
    const { from, to, kind } = edges;
    if (c > 0) len = put(out, len, opens[c]!);
    for (let e = 0, k = 0; e < tags.length; e++) {
      if (tags[e] !== tag) continue;
      if (len > limit) len = flush(out, len);
      if (k > 0) buf[len++] = 0x2c;
      const f = at[from[e]!]!;
      const t = at[to[e]!]!;
      const p = prefixOf(c, k);
      len = copy4(dv, pieceAt[p]!, pieceEnd[p]!, dv, len);
      len = copy4(idv, off[f]!, off[f + 1]!, dv, len);
      const m = middleBase + middleOf(c, k, kind[e]!);
      len = copy4(dv, pieceAt[m]!, pieceEnd[m]!, dv, len);
      len = copy4(idv, off[t]!, off[t + 1]!, dv, len);
      buf[len++] = 0x7d;
      k++;
    }
  }
  len = put(out, len, tailBytes);
  if (out.sink !== undefined) {
    if (len > 0) flush(out, len);
    return buf.subarray(0, 0);
  }
  if (len !== size) throw new Error(`encodeDiff: wrote ${len} bytes of ${size}`);
  return buf.subarray(0, size);
}

/**
 * Copies bytes [from, end) of `src` to `len` in `dst`, four at a time, and returns the new end of
 * the output. It may read and write up to 3 bytes past either range: the id table and the fixed
 * pieces are followed by SLACK bytes, and so is the output region; within the output, what a copy
 * writes past `len` is written over by what follows. (A byte loop took twice as long for the diff.)
 */
function copy4(src: DataView, from: number, end: number, dst: DataView, len: number): number {
  let x = from;
  for (; x < end; x += 4, len += 4) dst.setInt32(len, src.getInt32(x, true), true);
  return len - (x - end);
}

/** Each changed label's declared and observed sign as positions in SIGNS, two per label. */
function signIndexes(changed: readonly ChangedSign[]): Uint8Array {
  const out = new Uint8Array(2 * changed.length);
  for (let k = 0; k < changed.length; k++) {
    out[2 * k] = SIGNS.indexOf(changed[k]!.declared_sign);
    out[2 * k + 1] = SIGNS.indexOf(changed[k]!.observed_sign);
  }
  return out;
}

/** The output part of encodeFromPositions' buffer: bytes [0, end), and where they go. */
interface Chunk {
  readonly buf: Uint8Array;
  readonly end: number;
  readonly sink: ByteChunkSink | undefined;
}

/** Hands the chunk's bytes to the sink; returns where writing starts over. */
function flush(out: Chunk, len: number): number {
  out.sink!(out.buf.subarray(0, len));
  return 0;
}

/** Appends a fixed piece (head, tail, a class's opening), which may be larger than a chunk. */
function put(out: Chunk, len: number, bytes: Uint8Array): number {
  if (out.sink !== undefined && len + bytes.length > out.end) {
    len = flush(out, len);
    if (bytes.length > out.end) {
      out.sink(bytes);
      return len;
    }
  }
  out.buf.set(bytes, len);
  return len + bytes.length;
}

const CLASS_NAMES = ['changed_sign', 'declared_and_observed', 'declared_never_observed', 'observed_but_undeclared'] as const;

function labelText(l: EdgeLabel, changed: boolean): string {
  if (changed) {
    const c = l as ChangedSign;
    return `{"declared_sign":"${c.declared_sign}","from":${quoteString(c.from)},"kind":"${c.kind}","observed_sign":"${c.observed_sign}","to":${quoteString(c.to)}}`;
  }
  return `{"from":${quoteString(l.from)},"kind":"${l.kind}","to":${quoteString(l.to)}}`;
}

/** Writes the labels from their strings (a record assembled by hand, or one re-sorted). */
function encodeFromStrings(record: DiffRecord, head: string, tail: string): Uint8Array {
  const { changed_sign: changed, declared_and_observed: both, declared_never_observed: dead, observed_but_undeclared: drift } = record.classes;
  // Size the buffer once, from a sample of the labels with room to spare: a fresh buffer's
  // untouched pages cost nothing, a regrowth copies all written so far. It grows if it must.
  const lists = [changed, both, dead, drift] as const;
  let labels = 0;
  let sampled = 0;
  let sampledChars = 0;
  for (const list of lists) {
    labels += list.length;
    const step = Math.max(1, Math.floor(list.length / 256));
    for (let i = 0; i < list.length; i += step, sampled++) sampledChars += list[i]!.from.length + list[i]!.to.length;
  }
  const perLabel = 48 + (sampled === 0 ? 0 : sampledChars / sampled);
  const sink = new ByteSink(Math.ceil(labels * perLabel * 1.5) + changed.length * 40 + (1 << 16));
  let chunk = head;
  for (let c = 0; c < 4; c++) {
    const list = lists[c]!;
    if (c > 0) chunk += `],"${CLASS_NAMES[c]}":[`;
    for (let i = 0; i < list.length; i++) {
      chunk += `${i ? ',' : ''}${labelText(list[i]!, c === 0)}`;
      if (chunk.length > 8192) {
        sink.write(chunk);
        chunk = '';
      }
    }
  }
  sink.write(chunk);
  sink.write(tail);
  return sink.bytes();
}

/** The raw digest the record names, over its bytes. */
export function diffDigest(record: DiffRecord): Uint8Array {
  const hash = createDigest(record.algorithm);
  writeDiff(record, (chunk) => hash.update(chunk));
  return hash.digest();
}

/** The lowercase hex digest the record names, over its bytes. */
export function diffDigestHex(record: DiffRecord): string {
  return bytesToHex(diffDigest(record));
}
