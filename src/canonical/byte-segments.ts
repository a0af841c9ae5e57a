/**
 * Bytes held as the pieces they were made of (a tar's headers and padding around the artifacts'
 * own buffers), read as one string of bytes without joining them: a large bundle's tar is mostly
 * data.json, and copying tens of megabytes into fresh memory for every compile costs more than
 * reading the pieces where they are.
 */
/** Whether two byte strings are equal (a memcmp, without copying either). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || (a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b));
}

export class ByteSegments {
  readonly length: number;
  private readonly pieces: readonly Uint8Array[];
  /** Where each piece starts. */
  private readonly starts: readonly number[];

  constructor(pieces: readonly Uint8Array[]) {
    this.pieces = pieces.filter((p) => p.length > 0);
    const starts: number[] = [];
    let at = 0;
    for (const p of this.pieces) {
      starts.push(at);
      at += p.length;
    }
    this.starts = starts;
    this.length = at;
  }

  /** The index of the piece holding offset `at` (0 <= at < length). */
  private pieceAt(at: number): number {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The bytes in [start, end): a view when they lie in one piece, else a copy. */
  slice(start: number, end: number): Uint8Array {
    if (start >= end) return new Uint8Array(0);
    const first = this.pieceAt(start);
    const offset = start - this.starts[first]!;
    if (end - start <= this.pieces[first]!.length - offset) return this.pieces[first]!.subarray(offset, offset + (end - start));
    const out = new Uint8Array(end - start);
    this.forEachPart(start, end, (part, at) => out.set(part, at - start));
    return out;
  }

  /** Calls `visit` with each piece's part of [start, end), in order, and the offset it starts at. */
  forEachPart(start: number, end: number, visit: (part: Uint8Array, at: number) => void): void {
    if (start >= end) return;
    for (let i = this.pieceAt(start), at = start; at < end; i++) {
      const offset = at - this.starts[i]!;
      const part = this.pieces[i]!.subarray(offset, Math.min(this.pieces[i]!.length, offset + (end - at)));
      visit(part, at);
      at += part.length;
    }
  }

  /** Whether `length` bytes from `start` equal those of `other` from `otherStart` (both ranges inside). */
  equalRange(start: number, other: ByteSegments, otherStart: number, length: number): boolean {
    let same = true;
    this.forEachPart(start, start + length, (part, at) => {
      if (!same) return;
      const theirs = other.slice(otherStart + (at - start), otherStart + (at - start) + part.length);
      same = sameBytes(part, theirs);
    });
    return same;
  }
}
