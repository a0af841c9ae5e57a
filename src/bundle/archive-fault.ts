/** How the tarball reader refuses an archive: BUNDLE_INVALID naming the bundle and, where one is to blame, the entry. */
import { ToolgateError } from '../errors.ts';

export function refuseArchive(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_INVALID', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}
