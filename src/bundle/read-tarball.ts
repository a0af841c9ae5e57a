/**
 * Reading an untrusted gzip-compressed tar (an OPA bundle: reference/opa-bundle-format.md §1) into
 * memory, refusing anything that is not a plain set of regular files with safe, unique names.
 *
 * Nothing is extracted to disk; names only ever index an in-memory map. Still, a bundle that a
 * careless extractor would turn into a write outside its folder, a link or a device is refused, so
 * what we accept is what any extractor would accept too. OPA's own producer writes names with a
 * leading `/` (the bundle root); that one leading slash is read as "bundle root" and removed.
 * Refused: `..` or `.` segments, empty segments (`a//b`, a leading `//`), backslashes, drive
 * letters, NUL, duplicate names (after removing the root slash), hard and symbolic links,
 * character and block devices, FIFOs, entries larger than `maxEntryBytes`, more than
 * `maxEntries` entries, and archives that inflate beyond `maxTotalBytes` (gzip bombs).
 */
import { gunzipSync } from 'node:zlib';
import { extract as tarExtract, type Header as TarHeaders } from 'tar-stream';
import { ToolgateError } from '../errors.ts';

export interface TarballLimits {
  /** Largest accepted compressed size in bytes (default 64 MiB). */
  readonly maxCompressedBytes?: number;
  /** Largest accepted size of the inflated tar stream in bytes (default 256 MiB). */
  readonly maxTotalBytes?: number;
  /** Largest accepted regular file in bytes (default 64 MiB). */
  readonly maxEntryBytes?: number;
  /** Most entries accepted, directories included (default 10,000). */
  readonly maxEntries?: number;
}

export interface TarballFile {
  /** The entry name with OPA's root `/` removed, e.g. `toolgate/data.json`, `.manifest`. */
  readonly name: string;
  readonly bytes: Uint8Array;
}

export const DEFAULT_TARBALL_LIMITS: Required<TarballLimits> = {
  maxCompressedBytes: 64 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxEntryBytes: 64 * 1024 * 1024,
  maxEntries: 10_000,
};

function refuse(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_INVALID', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}

/**
 * The safe form of an entry name, or a refusal naming it. Exported for tests.
 *
 * @example safeEntryName('/toolgate/data.json', 'b.tar.gz') // 'toolgate/data.json'
 */
export function safeEntryName(raw: string, source: string): string {
  const shown = JSON.stringify(raw);
  if (raw.includes('\0')) refuse(source, `entry name ${shown} contains NUL`, raw);
  if (raw.includes('\\')) refuse(source, `entry name ${shown} contains a backslash`, raw);
  if (/^[A-Za-z]:/.test(raw)) refuse(source, `entry name ${shown} is an absolute (drive-letter) path`, raw);
  if (raw.startsWith('//')) refuse(source, `entry name ${shown} is an absolute (network) path`, raw);
  // Directory entries end in `/`; that trailing slash is not an empty segment.
  const name = (raw.startsWith('/') ? raw.slice(1) : raw).replace(/\/$/, '');
  if (name === '') refuse(source, `entry name ${shown} is empty`, raw);
  for (const seg of name.split('/')) {
    if (seg === '..') refuse(source, `entry name ${shown} escapes the bundle root (path traversal)`, raw);
    if (seg === '.') refuse(source, `entry name ${shown} has a "." segment`, raw);
    if (seg === '') refuse(source, `entry name ${shown} has an empty segment`, raw);
  }
  return name;
}

function inflate(bytes: Uint8Array, source: string, limits: Required<TarballLimits>): Buffer {
  if (bytes.length > limits.maxCompressedBytes) refuse(source, `${bytes.length} bytes exceeds the ${limits.maxCompressedBytes}-byte limit for a bundle`);
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) refuse(source, 'not a gzip-compressed tarball (OPA refuses an uncompressed tar too)');
  try {
    return gunzipSync(bytes, { maxOutputLength: limits.maxTotalBytes });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      refuse(source, `inflates beyond the ${limits.maxTotalBytes}-byte limit (gzip bomb?)`);
    }
    refuse(source, `gzip stream is corrupt: ${(e as Error).message}`);
  }
}

/** Reads every regular file of a .tar.gz, in archive order, after the checks above. */
export async function readTarball(bytes: Uint8Array, source: string, limitsIn: TarballLimits = {}): Promise<TarballFile[]> {
  const limits: Required<TarballLimits> = { ...DEFAULT_TARBALL_LIMITS, ...limitsIn };
  const tar = inflate(bytes, source, limits);
  const files: TarballFile[] = [];
  const seen = new Set<string>();
  let count = 0;
  const ex = tarExtract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on('entry', (header: TarHeaders, stream, next) => {
      try {
        count++;
        if (count > limits.maxEntries) refuse(source, `more than ${limits.maxEntries} entries`);
        const name = safeEntryName(header.name, source);
        const type = header.type ?? 'file';
        if (type === 'symlink' || type === 'link') refuse(source, `entry ${JSON.stringify(header.name)} is a ${type === 'link' ? 'hard' : 'symbolic'} link`, header.name);
        if (type === 'character-device' || type === 'block-device' || type === 'fifo') refuse(source, `entry ${JSON.stringify(header.name)} is a ${type}`, header.name);
        if (type !== 'file' && type !== 'contiguous-file' && type !== 'directory') refuse(source, `entry ${JSON.stringify(header.name)} has unsupported type ${type}`, header.name);
        if (type === 'directory') {
          stream.resume();
          stream.on('end', next);
          return;
        }
        const size = header.size ?? 0;
        if (size > limits.maxEntryBytes) refuse(source, `entry ${JSON.stringify(header.name)} is ${size} bytes, over the ${limits.maxEntryBytes}-byte limit`, header.name);
        if (seen.has(name)) refuse(source, `duplicate entry ${JSON.stringify(name)}`, header.name);
        seen.add(name);
        const chunks: Buffer[] = [];
        stream.on('data', (c: unknown) => chunks.push(c as Buffer));
        stream.on('end', () => {
          files.push({ name, bytes: new Uint8Array(Buffer.concat(chunks)) });
          next();
        });
        stream.on('error', reject);
      } catch (e) {
        reject(e);
        ex.destroy();
      }
    });
    ex.on('finish', () => resolve());
    ex.on('error', (e: Error) => reject(e));
  });
  ex.end(tar);
  try {
    await done;
  } catch (e) {
    if (e instanceof ToolgateError) throw e;
    refuse(source, `not a valid tar archive: ${(e as Error).message}`);
  }
  return files;
}
