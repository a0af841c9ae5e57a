/**
 * A deterministic OPA bundle tarball (reference/opa-bundle-format.md): gzip-compressed tar with
 * entries sorted by name, fixed mtime (0), mode 0644, uid/gid 0 and no owner names, compressed by
 * the platform-independent gzip of gzip.ts, so identical inputs give identical bytes everywhere.
 */
import { pack as tarPack } from 'tar-stream';
import { ToolgateError } from '../errors.ts';
import { ByteSegments } from '../canonical/byte-segments.ts';
import { gzipInChunks, type DeflatedChunk, type PreviousMember } from './gzip.ts';

export interface TarEntry {
  /** Entry name without a leading `/` or `./`, e.g. `toolgate/data.json`. */
  readonly name: string;
  readonly bytes: Uint8Array;
}

const EPOCH = new Date(0);

export async function emitTarGz(entries: readonly TarEntry[]): Promise<Uint8Array> {
  return (await emitTarGzInChunks(entries)).bytes;
}

/**
 * The tarball with its gzip chunks and the tar bytes they hold; chunks of `previous` the new tar
 * repeats are copied, not deflated again (gzip.ts).
 */
export async function emitTarGzInChunks(entries: readonly TarEntry[], previous?: PreviousMember): Promise<{ bytes: Uint8Array; chunks: DeflatedChunk[]; tar: ByteSegments }> {
  const names = new Set<string>();
  for (const e of entries) {
    if (e.name.startsWith('/') || e.name.startsWith('./') || e.name.split('/').includes('..') || e.name === '') {
      throw new ToolgateError('BUNDLE_INVALID', `bad tar entry name ${JSON.stringify(e.name)}`);
    }
    if (names.has(e.name)) throw new ToolgateError('BUNDLE_INVALID', `duplicate tar entry ${JSON.stringify(e.name)}`);
    names.add(e.name);
  }
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const p = tarPack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve());
    p.on('error', reject);
  });
  for (const e of sorted) {
    // A Buffer over the same memory: Buffer.from(Uint8Array) would copy tens of megabytes byte by byte.
    p.entry({ name: e.name, size: e.bytes.length, mtime: EPOCH, mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, Buffer.from(e.bytes.buffer, e.bytes.byteOffset, e.bytes.byteLength));
  }
  p.finalize();
  await done;
  // The pieces are read where they are (the entries' own bytes between headers and padding), not joined.
  const tar = new ByteSegments(chunks);
  return { ...gzipInChunks(tar, previous), tar };
}
