/** The digest of the declared connectome an estate's catalog builds, as a default compile computes it; null when it cannot be built. */
import { digestHex } from '../canonical/digest.ts';
import { buildDeclaredConnectome, encodeGraph } from '../connectome/index.ts';
import { isToolgateError } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';

const memo = new WeakMap<Estate, string | null>();

export function declaredConnectomeDigest(estate: Estate): string | null {
  if (memo.has(estate)) return memo.get(estate)!;
  let d: string | null;
  try {
    d = digestHex(encodeGraph(buildDeclaredConnectome(estate.catalog), { algorithm: 'sha256' }));
  } catch (e) {
    if (!isToolgateError(e)) throw e;
    d = null;
  }
  memo.set(estate, d);
  return d;
}
