/**
 * SHA-256 of bytes that mostly begin as an earlier version of them did (an artifact recompiled
 * after one edit): the hash state is saved every `STEP` bytes, and the digest of the next version
 * resumes from the last state saved inside the prefix the two share, so only the bytes from there
 * on are hashed again. The digest is the plain SHA-256 of the bytes, whatever was resumed.
 */
import { createHash, type Hash } from 'node:crypto';
import { sameBytes } from './byte-segments.ts';

/** How far apart the saved states are: a few hundred for tens of megabytes, a handful for a small estate's artifacts. */
const STEP = 128 * 1024;

/** A digest with what a later digest of similar bytes resumes from. */
export interface ResumableDigest {
  /** SHA-256, lowercase hex. */
  readonly hex: string;
  readonly bytes: Uint8Array;
  /** The hash state after each whole `STEP` of `bytes` (the first: after none). */
  readonly states: readonly Hash[];
}

/** How many whole steps `bytes` and `previous` share from their start. */
function sharedSteps(bytes: Uint8Array, previous: Uint8Array): number {
  const a = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const b = Buffer.from(previous.buffer, previous.byteOffset, previous.byteLength);
  let steps = 0;
  while ((steps + 1) * STEP <= Math.min(a.length, b.length) && a.compare(b, steps * STEP, (steps + 1) * STEP, steps * STEP, (steps + 1) * STEP) === 0) steps++;
  return steps;
}

/**
 * The SHA-256 of `bytes`, resuming from `previous` where the two begin alike.
 *
 * @example
 * const first = resumableSha256(artifact);
 * const next = resumableSha256(editedArtifact, first); // hashes from the step the first change falls in
 */
export function resumableSha256(bytes: Uint8Array, previous?: ResumableDigest): ResumableDigest {
  const steps = previous === undefined ? 0 : Math.min(sharedSteps(bytes, previous.bytes), previous.states.length - 1);
  const states: Hash[] = previous === undefined ? [createHash('sha256')] : previous.states.slice(0, steps + 1);
  // A saved state is never updated itself: a copy is, so it can be resumed from again.
  const hash = states[steps]!.copy();
  for (let at = steps * STEP; at < bytes.length; at += STEP) {
    hash.update(bytes.subarray(at, Math.min(bytes.length, at + STEP)));
    if (at + STEP <= bytes.length) states.push(hash.copy());
  }
  return { hex: hash.digest('hex'), bytes, states };
}

/** A digest over a sequence of parts (texts, as UTF-8, and byte strings), with what a later digest of parts beginning alike resumes from. */
export interface ResumablePartsDigest {
  readonly hex: string;
  readonly parts: readonly (string | Uint8Array)[];
  /** The hash state before part `part`, about every `STEP` bytes (the first: before any). */
  readonly states: readonly { readonly part: number; readonly hash: Hash }[];
}

function samePart(a: string | Uint8Array, b: string | Uint8Array): boolean {
  return typeof a === 'string' ? a === b : typeof b !== 'string' && sameBytes(a, b);
}

/**
 * The SHA-256 of `parts` joined, resuming from `previous` where the two sequences begin with the
 * same parts (a document assembled from pieces, most of them the previous compile's own).
 *
 * @example
 * const first = resumablePartsSha256(['{"a":', piece, '}']);
 * const next = resumablePartsSha256(['{"a":', piece, ',"b":1}'], first); // hashes the last part only
 */
export function resumablePartsSha256(parts: readonly (string | Uint8Array)[], previous?: ResumablePartsDigest): ResumablePartsDigest {
  let shared = 0;
  if (previous !== undefined) while (shared < parts.length && shared < previous.parts.length && samePart(parts[shared]!, previous.parts[shared]!)) shared++;
  const kept = previous === undefined ? [] : previous.states.filter((s) => s.part <= shared);
  const states = kept.length > 0 ? [...kept] : [{ part: 0, hash: createHash('sha256') }];
  const from = states[states.length - 1]!;
  // A saved state is never updated itself: a copy is, so it can be resumed from again.
  const hash = from.hash.copy();
  let sinceState = 0;
  for (let i = from.part; i < parts.length; i++) {
    const part = parts[i]!;
    hash.update(part);
    sinceState += part.length;
    if (sinceState >= STEP && i + 1 < parts.length) {
      states.push({ part: i + 1, hash: hash.copy() });
      sinceState = 0;
    }
  }
  return { hex: hash.digest('hex'), parts, states };
}
