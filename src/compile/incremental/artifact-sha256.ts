/**
 * SHA-256 (hex) of an artifact's bytes, remembered for as long as that byte array lives: a
 * connectome file taken unchanged from the previous compile (checked against SHA256SUMS when it
 * was read, or held by a watch between saves) is hashed once, not again for the new SHA256SUMS.
 * Keyed by the array itself, so it holds only for bytes nobody writes to after they are made, as
 * every artifact's are.
 */
import { digestHex } from '../../canonical/digest.ts';

const known = new WeakMap<Uint8Array, string>();

export function artifactSha256(bytes: Uint8Array): string {
  let hex = known.get(bytes);
  if (hex === undefined) known.set(bytes, (hex = digestHex(bytes)));
  return hex;
}
