/** The signatures file of an OPA bundle: its name, how OPA recognises it, and how a failed check is reported. */
import { ToolgateError } from '../errors.ts';

export const SIGNATURES_FILE = '.signatures.json';

/** Whether OPA takes this entry for the bundle's signatures file (its base name is `.signatures.json`). */
export function isSignaturesFile(name: string): boolean {
  return name === SIGNATURES_FILE || name.endsWith(`/${SIGNATURES_FILE}`);
}

/** A verification refusal: BUNDLE_VERIFY_FAILED naming the bundle and, where one is to blame, the entry. */
export function verifyFail(source: string, message: string, path?: string): never {
  throw new ToolgateError('BUNDLE_VERIFY_FAILED', `${source}: ${message}`, { at: [{ file: source, ...(path !== undefined ? { path } : {}) }] });
}
