/** Argument handling the selector commands share: the profile option and the unknown-agent exit. */
import { PROFILES, type Profile } from '../governance/types.ts';
import { usageError } from './args.ts';
import type { CliIo } from './command.ts';
import { EXIT } from './exit-codes.ts';

export function profileOption(value: string | undefined, usage: string): Profile {
  const p = value ?? 'strict';
  if (!(PROFILES as readonly string[]).includes(p)) usageError(`--profile must be one of ${PROFILES.join(', ')}, got ${JSON.stringify(p)}`, usage);
  return p as Profile;
}

/** Selection must stop on a typo'd agent: AGENT_NOT_FOUND on stderr and exit 1 (the JSON still says agent_found: false). */
export function agentExit(io: CliIo, agent: string, found: boolean): number {
  if (found) return EXIT.OK;
  io.stderr(`toolgate: AGENT_NOT_FOUND: ${agent}\n`);
  return EXIT.FAILED;
}
