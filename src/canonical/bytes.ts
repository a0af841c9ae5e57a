/**
 * A growable UTF-8 byte sink: strings are written straight into one buffer with
 * `TextEncoder.encodeInto`, so large canonical documents are never held as one giant JS string.
 */
const encoder = new TextEncoder();

export class ByteSink {
  #buf: Uint8Array;
  #len = 0;

  constructor(initial = 1 << 16) {
    this.#buf = new Uint8Array(initial);
  }

  get length(): number {
    return this.#len;
  }

  /** Appends a string's UTF-8 bytes. The string must be well-formed (no lone surrogate). */
  write(s: string): void {
    const need = s.length * 3;
    if (this.#len + need > this.#buf.length) this.#grow(need);
    const r = encoder.encodeInto(s, this.#buf.subarray(this.#len));
    this.#len += r.written;
  }

  #grow(need: number): void {
    let size = this.#buf.length * 2;
    while (size < this.#len + need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  /** The bytes written so far (a view, not a copy). */
  bytes(): Uint8Array {
    return this.#buf.subarray(0, this.#len);
  }
}
