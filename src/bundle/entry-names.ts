/** Tar entry names as OPA sees them (Go's path.Clean), and the names toolgate refuses outright. */
import { refuseArchive } from './archive-fault.ts';

/** Go's path.Clean, for names without `..` segments. */
export function cleanPath(p: string): string {
  const rooted = p.startsWith('/');
  const segs = p.split('/').filter((s) => s !== '' && s !== '.');
  const out = (rooted ? '/' : '') + segs.join('/');
  return out === '' ? '.' : out;
}

/**
 * The name OPA would see, checked against toolgate's deliberate refusals; returns it with one
 * leading `/` removed. Exported for tests.
 *
 * @example safeEntryName('/toolgate/data.json', 'b.tar.gz') // 'toolgate/data.json'
 */
export function safeEntryName(raw: string, source: string): string {
  const shown = JSON.stringify(raw);
  if (raw.includes('\\')) refuseArchive(source, `entry ${shown}: name contains a backslash (read as a separator on Windows)`, raw);
  if (raw.split('/').includes('..')) refuseArchive(source, `entry ${shown}: name has a ".." segment (path traversal)`, raw);
  const name = raw.startsWith('/') ? raw.slice(1) : raw;
  if (cleanPath('/' + raw) === '/') refuseArchive(source, `entry ${shown}: a regular file needs a name`, raw);
  return name;
}
