/**
 * A signer given as a shell command (`--signer`, `--bundle-signer`): the bytes to sign go to its
 * stdin and its stdout, trimmed, is the signature. A command that cannot run, exits non-zero or
 * prints nothing is refused as SIGNER_FAILED, quoting the start of its stderr.
 */
import { spawnSync } from 'node:child_process';
import { ToolgateError } from '../errors.ts';
import type { CliIo } from './command.ts';

/** Runs `command` through /bin/sh on `input` and returns the signature it printed; `label` names it in errors. */
export function runSignerCommand(io: CliIo, command: string, input: Uint8Array | string, label: string): string {
  const r = spawnSync('/bin/sh', ['-c', command], { input, cwd: io.cwd, maxBuffer: 1 << 20, env: io.env as NodeJS.ProcessEnv });
  const named = `${label} ${JSON.stringify(command)}`;
  if (r.error) throw new ToolgateError('SIGNER_FAILED', `${named} could not run: ${r.error.message}`);
  if (r.status !== 0) throw new ToolgateError('SIGNER_FAILED', `${named} exited ${r.status ?? r.signal}: ${r.stderr.toString('utf8').trim().slice(0, 500)}`);
  const signature = r.stdout.toString('utf8').trim();
  if (signature === '') throw new ToolgateError('SIGNER_FAILED', `${named} printed no signature`);
  return signature;
}
