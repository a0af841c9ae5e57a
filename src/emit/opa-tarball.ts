/**
 * A deterministic OPA bundle tarball (reference/opa-bundle-format.md): gzip-compressed tar with
 * entries sorted by name, fixed mtime (0), mode 0644, uid/gid 0 and no owner names, and gzip at a
 * fixed level (6) with Node's fixed header (mtime 0), so identical inputs give identical bytes.
 */
import { pack as tarPack } from 'tar-stream';
import { gzipSync } from 'node:zlib';
import { ToolgateError } from '../errors.ts';

export interface TarEntry {
  /** Entry name without a leading `/` or `./`, e.g. `toolgate/data.json`. */
  readonly name: string;
  readonly bytes: Uint8Array;
}

const EPOCH = new Date(0);

export async function emitTarGz(entries: readonly TarEntry[]): Promise<Uint8Array> {
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
    p.entry({ name: e.name, size: e.bytes.length, mtime: EPOCH, mode: 0o644, uid: 0, gid: 0, uname: '', gname: '', type: 'file' }, Buffer.from(e.bytes));
  }
  p.finalize();
  await done;
  // Level 6 (zlib's default): a third of level 9's time on large data documents, a few percent larger.
  return new Uint8Array(gzipSync(Buffer.concat(chunks), { level: 6 }));
}
