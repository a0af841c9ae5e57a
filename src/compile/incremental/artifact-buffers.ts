/**
 * Memory for the artifacts a watch assembles save after save. A data document of tens of megabytes
 * written into fresh memory costs several times the copy itself (every page is faulted in and
 * zeroed by the kernel), and each such allocation counts as external memory, which pushes V8 into
 * full garbage collections. So the buffers of a state the watch has replaced are handed back here
 * and the next save's artifacts are written into them.
 *
 * A buffer is handed back only when its owner knows nothing reads it any more: `retire` is given the
 * replaced state's artifact bytes and the bytes of the state that replaced it, and keeps any buffer
 * the new state still holds. Only buffers `take` made are ever reused: other bytes may be views into
 * memory shared with anything (Node's pool for small buffers).
 */

/** Room beyond the size asked for, so an artifact that grows by a few bytes a save still fits next time. */
const slack = (n: number): number => (n >>> 6) + 64;

export class ArtifactBuffers {
  private free: ArrayBuffer[] = [];
  private readonly made = new WeakSet<ArrayBuffer>();

  /**
   * `n` bytes (contents undefined) in a retired buffer that fits them without wasting more than a
   * quarter of it, else in new memory with some room to spare.
   */
  take(n: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const size = this.free[i]!.byteLength;
      if (size >= n && size - n <= size / 4 && (best < 0 || size < this.free[best]!.byteLength)) best = i;
    }
    if (best < 0) {
      const fresh = Buffer.allocUnsafeSlow(n + slack(n));
      this.made.add(fresh.buffer);
      return fresh.subarray(0, n);
    }
    const [buffer] = this.free.splice(best, 1);
    return Buffer.from(buffer!, 0, n);
  }

  /**
   * Memory for a set like `like`, faulted in now: a watch calls it while it waits for the first
   * save, which would otherwise write into fresh memory (no set has been replaced yet).
   */
  reserve(like: readonly Uint8Array[]): void {
    for (const b of like) {
      const fresh = Buffer.allocUnsafeSlow(b.length + slack(b.length)).fill(0);
      this.made.add(fresh.buffer);
      this.free.push(fresh.buffer);
    }
  }

  /** Hands back the buffers under `replaced` that none of `kept` lies in. */
  retire(replaced: readonly Uint8Array[], kept: readonly Uint8Array[]): void {
    const held = new Set<ArrayBufferLike>(kept.map((b) => b.buffer));
    for (const b of replaced) {
      const buffer = b.buffer;
      if (!(buffer instanceof ArrayBuffer) || !this.made.has(buffer) || held.has(buffer) || this.free.includes(buffer)) continue;
      held.add(buffer);
      this.free.push(buffer);
    }
    // A watch retires two or three buffers a save and takes as many: more is memory no save asks for.
    if (this.free.length > 4) this.free = this.free.slice(-4);
  }
}
