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

/** The digest of each file a SHA256SUMS text lists, by name; lines not of that form are skipped. */
export function listedSha256(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (m) out.set(m[2]!, m[1]!);
  }
  return out;
}
