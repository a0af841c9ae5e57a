/**
 * One raw-deflate state used for chunk after chunk. A fresh pako deflater allocates about 256 KiB
 * (window, hash head and chain, pending buffer); a tarball of tens of megabytes is thousands of
 * chunks, and first touching that much new memory cost more than deflating here. zlib's
 * deflateReset keeps the buffers and clears the hash head, which is all a stream reads of them
 * before writing: a chain entry is read only for a position this stream inserted, and a byte past
 * the input only by a match that already covers all the input left, which ends the search (the
 * best length sought is capped at what is left). So each chunk's stream is the bytes a fresh
 * deflater writes (test/unit/emit/raw-deflater.test.ts).
 */
import { ZStream, type Z_Strategy, Z_FINISH, Z_OK, Z_STREAM_END, Z_SYNC_FLUSH, zlibDeflate, zlibDeflateInit2, zlibDeflateReset, zlibDeflateSetDictionary } from 'pako';

export interface DeflateParameters {
  readonly level: number;
  readonly windowBits: number;
  readonly memLevel: number;
  readonly strategy: Z_Strategy;
  readonly legacyHash: boolean;
}

/** Worst-case raw deflate output of `n` bytes with a sync flush: stored blocks' 5-byte headers, and a margin. */
const outputBound = (n: number): number => n + 5 * (Math.ceil(n / 16_383) + 1) + 64;

export class RawDeflater {
  private readonly strm = new ZStream();
  private output = new Uint8Array(0) as Uint8Array<ArrayBuffer>;

  constructor(p: DeflateParameters) {
    if (zlibDeflateInit2(this.strm, p.level, 8, -p.windowBits, p.memLevel, p.strategy, p.legacyHash) !== Z_OK) throw new Error('deflate: pako refused the parameters');
  }

  /**
   * `input`'s raw deflate stream, primed with `dictionary` when given: ending in a sync flush
   * (byte-aligned, not final), or in the final block when `last`.
   */
  deflate(input: Uint8Array, dictionary: Uint8Array | undefined, last: boolean): Uint8Array {
    const strm = this.strm;
    zlibDeflateReset(strm);
    if (dictionary !== undefined && zlibDeflateSetDictionary(strm, dictionary) !== Z_OK) throw new Error('deflate: pako refused the dictionary');
    const bound = outputBound(input.length);
    if (this.output.length < bound) this.output = new Uint8Array(bound);
    strm.input = input;
    strm.next_in = 0;
    strm.avail_in = input.length;
    strm.output = this.output;
    strm.next_out = 0;
    strm.avail_out = bound;
    const status = zlibDeflate(strm, last ? Z_FINISH : Z_SYNC_FLUSH);
    // One call with room for the whole stream: anything else would leave it unfinished.
    if (status !== (last ? Z_STREAM_END : Z_OK) || strm.avail_in !== 0 || strm.avail_out === 0) throw new Error(`deflate: stream left unfinished (status ${status})`);
    return this.output.slice(0, strm.next_out);
  }
}
