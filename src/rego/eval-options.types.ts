/** What an evaluation is given: input, base document, limits, clock, random and print sources. */
import type { DataNode } from './compiler.ts';
import type { RegoLimits } from './limits.ts';
import type { Value } from './value.ts';

export interface EvalOptions {
  readonly input?: Value;
  /** Base document (`data` from the store), already converted with `fromJSON`. */
  readonly data?: Value;
  readonly strict?: boolean;
  /** Step budget; evaluation stops with REGO_LIMIT_EXCEEDED when exceeded. */
  readonly maxSteps?: number;
  /** Wall-clock budget in milliseconds from the start of the evaluation. */
  readonly deadlineMs?: number;
  /** Deadline, steps and bytes built by builtins (wins over `maxSteps` / `deadlineMs`); see limits.ts. */
  readonly limits?: RegoLimits;
  /** Clock for time.now_ns, in ns since the epoch. */
  readonly now?: bigint;
  /** Random source in [0, 1) (defaults to a fixed-seed generator). */
  readonly random?: () => number;
  /** Sink of print() output. */
  readonly print?: (line: string) => void;
  /** A query made of one expression yields its value even when false (regorus's convention). */
  readonly keepSingleFalse?: boolean;
  /** Rule documents shared across evaluations with the same `data` (see `SharedDocs`). */
  readonly shared?: SharedDocs;
}

/**
 * Rule documents shared across evaluations: the documents of `nodes` (rule nodes whose value depends on
 * `data` alone; data-only.ts finds them) are computed once and reused by every evaluation whose
 * `data` is this same `data` value (by identity), outside any `with`. A new data document needs a new
 * SharedDocs.
 */
export interface SharedDocs {
  readonly nodes: ReadonlySet<DataNode>;
  readonly data: Value;
  readonly docs: Map<DataNode, Value | undefined>;
}
