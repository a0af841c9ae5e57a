/**
 * The exit-code contract (documented in README.md). Query commands are advisory and exit 0;
 * gating is opt-in. Input that cannot be read, parsed or validated exits 1 with nothing written.
 */
import type { ToolgateErrorCode } from '../errors.ts';

/*
 * Publishing commands:
 * - `publish --oci REF`: 0 pushed, or already held these bytes ("unchanged": true); 1 the bundle
 *   was refused (PUBLISH_REFUSED, BUNDLE_INVALID), the registry answered an error or did not answer
 *   in time (REGISTRY_FAILED), or credentials were missing, malformed or refused by the registry
 *   (CREDENTIALS_INVALID);
 *   2 a bad reference, or --plain-http to a registry that is not loopback.
 * - `bundle serve`: 0 stopped cleanly (SIGINT/SIGTERM); 1 a folder holds no readable bundle at
 *   start (BUNDLE_SERVE_REFUSED); 2 bad options, a port that cannot be bound, a non-loopback
 *   --host without a token.
 * - `compile --delta-from`: as compile; a delta that cannot be made is DELTA_REFUSED on stderr and
 *   still exit 0 (the full set is written).
 * - `observe --opa-decision-logs`: 0 written; 1 an event that is not an OPA decision event, or no
 *   toolgate decision in the files and no window given (DECISION_LOG_INVALID).
 */
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
