/**
 * Reconcile a re-crawled catalog against the previous compile: which tools appeared, which
 * vanished, which governed tools vanished (their governance is now drift), and which new tools
 * no governance names at all (exposed but ungoverned).
 */
import type { Estate } from './estate.ts';
import { cmp } from './estate.ts';

export interface Reconciliation {
  readonly appeared: readonly string[];
  readonly vanished: readonly string[];
  /** Vanished tools that governance still references: DRIFT. */
  readonly governed_vanished: readonly string[];
  /** Appeared tools that no grant, data_access row or governed_by binding names. */
  readonly new_ungoverned: readonly string[];
}

export function isGoverned(estate: Estate, toolKey: string): boolean {
  return estate.grantsByTool.has(toolKey) || estate.accessByTool.has(toolKey) || estate.bindingsByTarget.has(toolKey);
}

export function reconcile(estate: Estate, previousTools: readonly string[]): Reconciliation {
  const now = new Set<string>();
  for (const t of estate.tools.values()) if (t.exposed) now.add(t.key);
  const before = new Set(previousTools);
  const appeared = [...now].filter((k) => !before.has(k)).sort(cmp);
  const vanished = [...before].filter((k) => !now.has(k)).sort(cmp);
  return {
    appeared,
    vanished,
    governed_vanished: vanished.filter((k) => isGoverned(estate, k)),
    new_ungoverned: appeared.filter((k) => !isGoverned(estate, k)),
  };
}
