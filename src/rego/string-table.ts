/**
 * A set of strings for large Rego sets: open addressing over typed arrays, with the strings kept in
 * chunks of CHUNK.
 *
 * Why not a JS Set: past some 5,000 members a Set's table lives in V8's large-object space, and
 * each time it doubles it is mapped afresh from the kernel; on a VM where a fresh page costs ~15 us
 * that was most of the time to build a 36,000-member set (bench/rego.bench.ts (b)). Here the
 * index and hashes are typed arrays and no single JS object holding strings grows past a chunk.
 *
 * Why a pool: a typed array of a megabyte is mapped afresh too (malloc serves sizes that large
 * with mmap), and touching it costs more than filling the table. The slot index is only needed
 * to add and to find: a table's index retired by a resize, or by `seal` once its set is complete,
 * goes to a small pool that the next table takes its index from. A sealed table rebuilds its index
 * from the kept hashes (no string is read) the first time it is asked for a member.
 */
const CHUNK = 4096;
const CHUNK_BITS = 12;
/** Slots when a table is made; a table is at most half full and grows fourfold (fewer rehashes). */
const FIRST_SLOTS = 4 * CHUNK;
/** What the pool keeps at most, in bytes: enough for the index of a set of a few million members. */
const POOL_BYTES = 32 << 20;

/** Retired slot indexes by length. Indexes in the pool are referenced by no table. */
const pool = new Map<number, Int32Array[]>();
let pooledBytes = 0;

/** A zeroed index of `length` slots, from the pool when it has one. */
function takeSlots(length: number): Int32Array {
  const spare = pool.get(length)?.pop();
  if (spare === undefined) return new Int32Array(length);
  pooledBytes -= spare.byteLength;
  return spare.fill(0);
}

function retireSlots(slots: Int32Array): void {
  if (pooledBytes + slots.byteLength > POOL_BYTES) return; // left to the garbage collector
  pooledBytes += slots.byteLength;
  const list = pool.get(slots.length);
  if (list) list.push(slots);
  else pool.set(slots.length, [slots]);
}

/** FNV-1a over UTF-16 code units. */
function hashOf(s: string): number {
  let h = 0x811c9dc5 | 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}

export class StringTable {
  /** The members in insertion order, CHUNK to a chunk. */
  #chunks: string[][] = [];
  /**
   * Each member's hash, by insertion index (so a resize reads no string), CHUNK to a chunk: 16 KiB
   * arrays that malloc serves from memory already in use, where one growing array would be mapped.
   */
  #hashes: Int32Array[] = [];
  /** Insertion index + 1 per slot; 0 is empty. Undefined while sealed. */
  #slots: Int32Array | undefined = takeSlots(FIRST_SLOTS);
  /** The index's length, kept while sealed so the rebuilt index has the same one. */
  #slotCount = FIRST_SLOTS;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds a member; true when it was not there. */
  add(s: string): boolean {
    const h = hashOf(s);
    const slots = this.#slots ?? this.#rebuild();
    const i = this.#slotOf(slots, s, h);
    if (slots[i] !== 0) return false;
    const k = this.#size++;
    if ((k & (CHUNK - 1)) === 0) {
      this.#chunks.push([]);
      this.#hashes.push(new Int32Array(CHUNK));
    }
    this.#chunks[k >> CHUNK_BITS]!.push(s);
    this.#hashes[k >> CHUNK_BITS]![k & (CHUNK - 1)] = h;
    slots[i] = k + 1;
    if (this.#size * 2 > this.#slotCount - 1) this.#grow(slots);
    return true;
  }

  has(s: string): boolean {
    const slots = this.#slots ?? this.#rebuild();
    return slots[this.#slotOf(slots, s, hashOf(s))] !== 0;
  }

  /**
   * Says the table is complete for now: its index goes back to the pool. Adding or finding a
   * member later still works; it rebuilds the index first.
   */
  seal(): void {
    if (this.#slots === undefined) return;
    retireSlots(this.#slots);
    this.#slots = undefined;
  }

  /** The slot holding `s` (hash `h`), or the empty slot where it would go. */
  #slotOf(slots: Int32Array, s: string, h: number): number {
    const mask = slots.length - 1;
    let i = h & mask;
    for (let at = slots[i]!; at !== 0; at = slots[i]!) {
      const k = at - 1;
      if (this.#hashes[k >> CHUNK_BITS]![k & (CHUNK - 1)] === h && this.#chunks[k >> CHUNK_BITS]![k & (CHUNK - 1)] === s) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  /** The members in insertion order. */
  *values(): IterableIterator<string> {
    for (const chunk of this.#chunks) yield* chunk;
  }

  #grow(old: Int32Array): void {
    this.#slotCount *= 4;
    this.#slots = this.#index();
    retireSlots(old);
  }

  #rebuild(): Int32Array {
    return (this.#slots = this.#index());
  }

  /** A new index of #slotCount slots over every member. */
  #index(): Int32Array {
    const slots = takeSlots(this.#slotCount);
    const mask = slots.length - 1;
    for (let k = 0; k < this.#size; k++) {
      let i = this.#hashes[k >> CHUNK_BITS]![k & (CHUNK - 1)]! & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = k + 1;
    }
    return slots;
  }
}
