/** The file form of every JSON artifact: canonical JSON bytes (floats allowed) and one trailing LF. */
import { canonicalString } from '../canonical/json.ts';

const encoder = new TextEncoder();

export function jsonFileBytes(value: unknown): Uint8Array {
  return encoder.encode(`${canonicalString(value, { allowFloats: true })}\n`);
}
