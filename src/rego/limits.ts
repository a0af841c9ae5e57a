/**
 * Limits of one evaluation: a deadline, a step budget and a budget of bytes that builtins may build.
 * Every evaluation takes one `RegoLimits` (all fields optional; absent means unlimited) and turns it
 * into a `Budget`, which the evaluator ticks once per literal and per iterated element and builtins
 * charge for their own work (walk paths, range elements, regex and glob subjects, built strings), so
 * work done inside a builtin is counted as well as work done by the evaluator.
 *
 * Exceeding a limit raises `RegoLimitError` (`eval_cancel_error`, toolgate code REGO_LIMIT_EXCEEDED),
 * naming the rule being evaluated (with its file and line) and the limit.
 */
import type { Loc } from './ast.ts';
import { RegoError } from './errors.ts';

/**
 * The wall clock in nanoseconds since the epoch: what OPA's time.now_ns and token expiry read on
 * its host. The engines' default clock; a caller that needs another passes its own.
 */
export function wallClockNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

export interface RegoLimits {
  /** Wall-clock budget in milliseconds from the start of the evaluation. */
  readonly deadlineMs?: number;
  /**
   * Absolute deadline (epoch milliseconds) shared by several evaluations, e.g. every edge of one
   * `sign` run; the earlier of this and `deadlineMs` applies.
   */
  readonly deadlineAt?: number;
  /** Step budget of one evaluation. */
  readonly maxSteps?: number;
  /** Bytes (string code units, collection elements) builtins may build in one evaluation. */
  readonly maxBytes?: number;
}

/**
 * Limits under which commands run Rego they do not control (a consumer's sign policy, a bundle's
 * decision policy): 5 s, 50 million steps, 64 MiB built by builtins.
 */
export const UNTRUSTED_LIMITS: Required<Omit<RegoLimits, 'deadlineAt'>> = {
  deadlineMs: 5_000,
  maxSteps: 50_000_000,
  maxBytes: 64 * 1024 * 1024,
};

export type LimitKind = 'deadline' | 'steps' | 'bytes' | 'depth';

/** The rule (or function) under evaluation, for naming it in a limit error. */
export interface RuleRef {
  readonly path: readonly string[];
  readonly loc: Loc;
}

export class RegoLimitError extends RegoError {
  readonly limit: LimitKind;
  readonly rule: string | undefined;
  constructor(limit: LimitKind, what: string, rule: RuleRef | undefined) {
    const name = rule ? (rule.path[0] === 'data' ? rule.path : ['data', ...rule.path]).join('.') : undefined;
    super('eval_cancel_error', `${name ? `evaluating ${name}: ` : ''}${what}`, rule?.loc);
    this.limit = limit;
    this.rule = name;
  }
}

/** Limits from the separate `maxSteps` / `deadlineMs` options and a `limits` object (the object wins). */
const NO_LIMITS: RegoLimits = {};

export function mergeLimits(limits: RegoLimits | undefined, maxSteps?: number, deadlineMs?: number): RegoLimits {
  if (maxSteps === undefined && deadlineMs === undefined) return limits ?? NO_LIMITS;
  if (limits === undefined) return deadlineMs === undefined ? { maxSteps } : maxSteps === undefined ? { deadlineMs } : { maxSteps, deadlineMs };
  return {
    ...(maxSteps !== undefined ? { maxSteps } : {}),
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    ...limits,
  };
}

export class Budget {
  steps = 0;
  bytes = 0;
  readonly maxSteps: number;
  readonly maxBytes: number;
  readonly deadline: number;
  private readonly deadlineMs: number | undefined;
  /** Innermost rule or function being evaluated (maintained by the evaluator). */
  rule: RuleRef | undefined;

  constructor(limits: RegoLimits = {}) {
    this.maxSteps = limits.maxSteps ?? Number.POSITIVE_INFINITY;
    this.maxBytes = limits.maxBytes ?? Number.POSITIVE_INFINITY;
    const rel = limits.deadlineMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + limits.deadlineMs;
    const abs = limits.deadlineAt ?? Number.POSITIVE_INFINITY;
    this.deadline = rel < abs ? rel : abs;
    this.deadlineMs = limits.deadlineMs;
  }

  /** One step; the clock is read every 1,024 steps. */
  tick(): void {
    const s = ++this.steps;
    if (s > this.maxSteps) this.exceeded('steps');
    if ((s & 1023) === 0 && Date.now() > this.deadline) this.exceeded('deadline');
  }

  /** `n` steps of builtin work, charged before the work is done. */
  work(n: number): void {
    const before = this.steps;
    const s = (this.steps = before + n);
    if (s > this.maxSteps) this.exceeded('steps');
    if ((before >>> 10 !== s >>> 10 || n >= 1024) && Date.now() > this.deadline) this.exceeded('deadline');
  }

  /** `n` bytes a builtin is about to build (also `n / 64` steps). */
  alloc(n: number): void {
    const b = (this.bytes += n);
    if (b > this.maxBytes) this.exceeded('bytes');
    this.work(1 + Math.floor(n / 64));
  }

  /** Refuses before building `n` more bytes when they would pass the byte budget (charges nothing). */
  ensure(n: number): void {
    if (this.bytes + n > this.maxBytes) this.exceeded('bytes');
  }

  /** Checks the clock now (for long-running work between ticks). */
  checkDeadline(): void {
    if (Date.now() > this.deadline) this.exceeded('deadline');
  }

  /** `detail`, for `bytes`, names a ceiling of the engine itself rather than the caller's budget. */
  exceeded(kind: LimitKind, detail?: string): never {
    const what =
      kind === 'steps'
        ? `evaluation exceeded the step budget of ${this.maxSteps} steps (max-steps)`
        : kind === 'deadline'
          ? `evaluation exceeded ${this.deadlineMs !== undefined ? `the deadline of ${this.deadlineMs} ms (deadline-ms)` : 'its deadline (deadline-ms)'}`
          : kind === 'bytes'
            ? detail === undefined
              ? `evaluation exceeded the output budget of ${this.maxBytes} bytes built by builtins (max-bytes)`
              : `evaluation would build a value larger than this engine holds (${detail})`
            : `evaluation nested too deeply${detail ? ` (${detail})` : ''}`;
    throw new RegoLimitError(kind, what, this.rule);
  }
}
