/** Where an authored edge sits in the manifest, as the `file:line:col` evidence pointer audit rows carry. */
import { formatAt } from '../errors.ts';
import type { Estate } from '../governance/estate.ts';

export function formatLocation(estate: Estate, path: readonly (string | number)[]): string {
  return formatAt(estate.manifest.locate(path));
}

/** The manifest path of a governed_by binding: its target, then its index among that target's policies. */
export function bindingPath(estate: Estate, b: { readonly target: string; readonly policy: string }): (string | number)[] {
  let i = 0;
  for (const x of estate.manifest.governed_by) {
    if (x.target !== b.target) continue;
    if (x.policy === b.policy) return ['governed_by', b.target, i];
    i++;
  }
  return ['governed_by', b.target];
}
