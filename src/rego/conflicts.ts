/**
 * OPA's conflict errors: a complete rule or a function whose definitions disagree. The message
 * lists the first value and each later value that differs from it, with the line of the
 * definition (or `else` branch) that produced it:
 *   rule data.test.p produced conflicting values:
 *     1 at policy.rego:3
 *     2 at policy.rego:4
 */
import type { Loc } from './ast.ts';
import { RegoError } from './errors.ts';
import { printValue } from './eval-support.ts';
import type { Value } from './value.ts';

export type ConflictingValue = readonly [Value, Loc];

/** The error, located at the first value that disagreed. */
export function conflictError(kind: 'rule' | 'function', path: string, values: readonly ConflictingValue[]): RegoError {
  const head = kind === 'rule' ? `rule ${path} produced conflicting values:` : `function ${path} produced conflicting values for the same inputs:`;
  const lines = values.map(([v, loc]) => `\n  ${printValue(v)} at ${loc.file}:${loc.line}`);
  return new RegoError('eval_conflict_error', head + lines.join(''), (values[1] ?? values[0])?.[1]);
}
