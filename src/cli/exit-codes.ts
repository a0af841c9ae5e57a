/**
 * The exit-code contract (documented in README.md). Query commands are advisory and exit 0;
 * gating is opt-in. Input that cannot be read, parsed or validated exits 1 with nothing written.
 */
import type { ToolgateErrorCode } from '../errors.ts';

export const EXIT = {
  OK: 0,
  /** A gate tripped (`--fail-on-deny`, `--fail-on-violation`, `--strict-drift`), an input was refused, or a selector named an unknown agent. */
  FAILED: 1,
  /** Bad command-line usage; also a typo'd agent/tool name under `--fail-on-deny`, so it cannot pass a gate. */
  USAGE: 2,
  /** A bug in toolgate: an unexpected internal error. */
  INTERNAL: 70,
} as const;

export function exitCodeFor(code: ToolgateErrorCode): number {
  return code === 'USAGE' ? EXIT.USAGE : EXIT.FAILED;
}
