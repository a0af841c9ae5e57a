/** How a bundle loader refuses an entry: BUNDLE_INVALID naming the bundle, the entry and the fault. */
import { ToolgateError } from '../errors.ts';

/** The bundle (`source`) and its raw entry name (`''` for the bundle as a whole). */
export type Where = { source: string; entry: string };

export function refuse(w: Where, message: string, cause?: unknown): never {
  throw new ToolgateError('BUNDLE_INVALID', `${w.source}: ${w.entry === '' ? '' : `${w.entry}: `}${message}`, {
    at: [{ file: w.source, ...(w.entry === '' ? {} : { path: w.entry }) }],
    ...(cause === undefined ? {} : { cause }),
  });
}
