/** `--deadline-ms` and `--max-steps`: the bounds of every command that evaluates untrusted Rego. */
import { intOption } from './args.ts';
import { UNTRUSTED_LIMITS, type RegoLimits } from '../rego/limits.ts';

/** The options every command running untrusted Rego takes. */
export const LIMIT_OPTIONS = { 'deadline-ms': { type: 'string' }, 'max-steps': { type: 'string' } } as const;

export const LIMIT_USAGE = `  --deadline-ms N  wall-clock budget of the policy's evaluation, all evaluations of this run together
                   (default ${UNTRUSTED_LIMITS.deadlineMs}); past it the run is refused with REGO_LIMIT_EXCEEDED
                   naming the policy, the rule and the limit, and nothing is written
  --max-steps N    steps per evaluation, builtin work included (default ${UNTRUSTED_LIMITS.maxSteps}); builtins
                   may also build at most ${UNTRUSTED_LIMITS.maxBytes / 1024 / 1024} MiB per evaluation
                   (the builtin engine; OPA-compiled wasm runs unbounded)`;

/**
 * The limits for a run that starts now: the deadline is absolute, so it bounds every evaluation of
 * the run together (a sign policy is evaluated once per edge).
 */
export function limitsFromOptions(values: { 'deadline-ms'?: string | undefined; 'max-steps'?: string | undefined }, usage: string): () => RegoLimits {
  const deadlineMs = intOption(values['deadline-ms'], 'deadline-ms', usage) ?? UNTRUSTED_LIMITS.deadlineMs;
  const maxSteps = intOption(values['max-steps'], 'max-steps', usage) ?? UNTRUSTED_LIMITS.maxSteps;
  return () => ({ deadlineMs, deadlineAt: Date.now() + deadlineMs, maxSteps, maxBytes: UNTRUSTED_LIMITS.maxBytes });
}
