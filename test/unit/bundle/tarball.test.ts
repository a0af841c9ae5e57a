/** Reading untrusted tarballs as OPA's loader does: every refusal, what is skipped, and what a well-formed bundle gives back. */
import { describe, it, expect } from 'vitest';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { readTarball, safeEntryName } from '../../../src/bundle/read-tarball.ts';
import { emitTarGz } from '../../../src/emit/opa-tarball.ts';

type Raw = { name: string; type?: 'file' | 'symlink' | 'link' | 'character-device' | 'block-device' | 'fifo' | 'directory'; body?: Buffer; linkname?: string };

async function rawTarGz(entries: Raw[]): Promise<Uint8Array> {
  const p = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve) => {
    p.on('data', (c: unknown) => chunks.push(c as Buffer));
    p.on('end', () => resolve());
  });
  for (const e of entries) {
    const type = e.type ?? 'file';
    p.entry({ name: e.name, type, size: type === 'file' ? (e.body?.length ?? 0) : 0, mode: 0o644, mtime: new Date(0), ...(e.linkname ? { linkname: e.linkname } : {}) }, ...(type === 'file' ? [e.body ?? Buffer.alloc(0)] : []) as [Buffer]);
  }
  p.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

const refused = { code: 'BUNDLE_INVALID' };

describe('readTarball', () => {
  it('reads regular files, taking OPA\'s leading "/" as the bundle root and skipping directories', async () => {
    const tgz = await rawTarGz([{ name: '/.manifest', body: Buffer.from('{}') }, { name: 'toolgate/', type: 'directory' }, { name: '/toolgate/data.json', body: Buffer.from('{"a":1}') }]);
    const files = await readTarball(tgz, 't.tar.gz');
    expect(files.map((f) => f.name)).toEqual(['.manifest', 'toolgate/data.json']);
    expect(new TextDecoder().decode(files[1]!.bytes)).toBe('{"a":1}');
  });
  it('round-trips our own deterministic tarball', async () => {
    const tgz = await emitTarGz([{ name: 'b/x.rego', bytes: new Uint8Array([1, 2]) }, { name: 'a.json', bytes: new Uint8Array([3]) }]);
    expect((await readTarball(tgz, 't')).map((f) => [f.name, [...f.bytes]])).toEqual([['a.json', [3]], ['b/x.rego', [1, 2]]]);
  });
  it.each([
    ['path traversal', '../etc/passwd'],
    ['nested traversal', 'a/../../b'],
    ['backslash', 'a\\..\\b'],
  ])('refuses %s (a deliberate difference: OPA cleans the name and loads it)', async (_what, name) => {
    await expect(readTarball(await rawTarGz([{ name, body: Buffer.from('x') }]), 't')).rejects.toMatchObject(refused);
  });
  it.each(['//host/share/x', 'C:/x', 'a/./b', 'a//b', './x'])('reads %s with its name as written, as OPA does', async (name) => {
    const files = await readTarball(await rawTarGz([{ name, body: Buffer.from('x') }]), 't');
    expect(files.map((f) => f.entryName)).toEqual([name]);
  });
  it('refuses duplicate names, also when one has the root "/"', async () => {
    await expect(readTarball(await rawTarGz([{ name: 'a.rego' }, { name: 'a.rego' }]), 't')).rejects.toMatchObject(refused);
    await expect(readTarball(await rawTarGz([{ name: '/a.rego' }, { name: 'a.rego' }]), 't')).rejects.toMatchObject(refused);
  });
  it.each(['symlink', 'link'] as const)('skips a %s, as OPA does (only regular files are read)', async (type) => {
    const files = await readTarball(await rawTarGz([{ name: 'l', type, linkname: '/etc/passwd' }, { name: 'a.rego' }]), 't');
    expect(files.map((f) => f.name)).toEqual(['a.rego']);
  });
  it.each(['character-device', 'block-device', 'fifo'] as const)('skips a %s, as OPA does', async (type) => {
    expect(await readTarball(await rawTarGz([{ name: 'dev', type }]), 't')).toEqual([]);
  });
  it('refuses an entry over the size limit before reading it', async () => {
    const tgz = await rawTarGz([{ name: 'big.bin', body: Buffer.alloc(2048) }]);
    await expect(readTarball(tgz, 't', { maxEntryBytes: 1024 })).rejects.toMatchObject(refused);
    await expect(readTarball(tgz, 't', { maxEntryBytes: 4096 })).resolves.toHaveLength(1);
  });
  it('refuses a gzip bomb: output past the inflate limit stops inflation', async () => {
    // 32 MiB of zeros compress to ~32 KiB; the reader stops at its limit instead of inflating it all.
    const bomb = await rawTarGz([{ name: 'zeros', body: Buffer.alloc(32 * 1024 * 1024) }]);
    expect(bomb.length).toBeLessThan(100_000);
    await expect(readTarball(bomb, 't', { maxTotalBytes: 1024 * 1024 })).rejects.toMatchObject({ code: 'BUNDLE_INVALID', message: expect.stringContaining('gzip bomb') });
  });
  it('refuses too many entries, an oversized archive, plain tar and corrupt gzip', async () => {
    const many = await rawTarGz(Array.from({ length: 5 }, (_, i) => ({ name: `f${i}` })));
    await expect(readTarball(many, 't', { maxEntries: 4 })).rejects.toMatchObject(refused);
    await expect(readTarball(many, 't', { maxCompressedBytes: 10 })).rejects.toMatchObject(refused);
    await expect(readTarball(new Uint8Array(1024), 't')).rejects.toMatchObject(refused);
    const corrupt = Uint8Array.from(many);
    corrupt[20] = (corrupt[20]! ^ 0xff) & 0xff;
    corrupt[corrupt.length - 5] = (corrupt[corrupt.length - 5]! ^ 0xff) & 0xff;
    await expect(readTarball(corrupt, 't')).rejects.toMatchObject(refused);
  });
  it('refuses a truncated tar stream', async () => {
    const tgz = await rawTarGz([{ name: 'a', body: Buffer.alloc(5000, 1) }]);
    const tar = (await import('node:zlib')).gunzipSync(tgz);
    await expect(readTarball(gzipSync(tar.subarray(0, 1000)), 't')).rejects.toMatchObject(refused);
  });
});

describe('safeEntryName', () => {
  it('strips one root slash and keeps the rest as written', () => {
    expect(safeEntryName('/a/b.rego', 't')).toBe('a/b.rego');
    expect(safeEntryName('dir/', 't')).toBe('dir/');
    expect(() => safeEntryName('a/../b', 't')).toThrow(expect.objectContaining(refused));
    expect(() => safeEntryName('/', 't')).toThrow(expect.objectContaining(refused));
  });
});
