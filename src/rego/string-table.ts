/**
 * A set of strings for large Rego sets: open addressing over typed arrays, with the strings kept in
 * chunks of CHUNK.
 *
 * Why not a JS Set: past some 5,000 members a Set's table lives in V8's large-object space, and
 * each time it doubles it is mapped afresh from the kernel; on a VM where a fresh page costs ~15 us
 * that was most of the time to build a 36,000-member set (bench/rego.bench.ts (b)). Here the
 * index and hashes are typed arrays (the allocator recycles their memory) and no single JS object
 * holding strings grows past a chunk.
 */
const CHUNK = 4096;
const CHUNK_BITS = 12;

/** FNV-1a over UTF-16 code units. */
function hashOf(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}

export class StringTable {
  /** The members in insertion order, CHUNK to a chunk. */
  #chunks: string[][] = [];
  /** Each member's hash, by insertion index (so a resize reads no string). */
  #hashes = new Int32Array(CHUNK);
  /** Insertion index + 1 per slot; 0 is empty. At most half full; it grows fourfold (fewer rehashes). */
  #slots = new Int32Array(4 * CHUNK);
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds a member; true when it was not there. */
  add(s: string): boolean {
    const h = hashOf(s);
    const i = this.#slotOf(s, h);
    if (this.#slots[i] !== 0) return false;
    const k = this.#size++;
    if ((k & (CHUNK - 1)) === 0) this.#chunks.push([]);
    this.#chunks[k >> CHUNK_BITS]!.push(s);
    if (k === this.#hashes.length) {
      const hashes = new Int32Array(k * 2);
      hashes.set(this.#hashes);
      this.#hashes = hashes;
    }
    this.#hashes[k] = h;
    this.#slots[i] = k + 1;
    if (this.#size * 2 > this.#slots.length - 1) this.#grow();
    return true;
  }

  has(s: string): boolean {
    return this.#slots[this.#slotOf(s, hashOf(s))] !== 0;
  }

  /** The slot holding `s` (hash `h`), or the empty slot where it would go. */
  #slotOf(s: string, h: number): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    let i = h & mask;
    for (let at = slots[i]!; at !== 0; at = slots[i]!) {
      const k = at - 1;
      if (this.#hashes[k] === h && this.#chunks[k >> CHUNK_BITS]![k & (CHUNK - 1)] === s) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  /** The members in insertion order. */
  *values(): IterableIterator<string> {
    for (const chunk of this.#chunks) yield* chunk;
  }

  #grow(): void {
    const slots = new Int32Array(this.#slots.length * 4);
    const mask = slots.length - 1;
    for (let k = 0; k < this.#size; k++) {
      let i = this.#hashes[k]! & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = k + 1;
    }
    this.#slots = slots;
  }
}
