/**
 * SHA256SUMS of an artifact set: one `HEX  NAME` line per file, as `sha256sum` prints it, sorted
 * by name so the bytes do not depend on the order the files were made in.
 */
import { digestHex } from '../canonical/digest.ts';

export const SHA256SUMS_FILE = 'SHA256SUMS';

/** The SHA256SUMS file of `files`; `known` holds digests already computed (by name), reused as they are. */
export function sha256SumsFile(files: readonly { readonly name: string; readonly bytes: Uint8Array }[], known?: ReadonlyMap<string, string>): { name: string; bytes: Uint8Array } {
  const sums = files
    .map((f) => `${known?.get(f.name) ?? digestHex(f.bytes)}  ${f.name}\n`)
    .sort((a, b) => (a.slice(66) < b.slice(66) ? -1 : 1))
    .join('');
  return { name: SHA256SUMS_FILE, bytes: new TextEncoder().encode(sums) };
}
