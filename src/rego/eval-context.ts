/**
 * The builtin context of one evaluation: methods rather than closures made for each evaluation, and
 * the default random source (a fixed-seed generator) made on its first use.
 */
import { mulberry32 } from './prng.ts';
import type { BuiltinContext } from './builtins/registry.ts';
import type { Budget } from './limits.ts';
import type { Value } from './value.ts';

export class EvalContext implements BuiltinContext {
  readonly cache = new Map<string, Value>();
  readonly location = '';
  private rng: (() => number) | undefined;

  constructor(
    readonly strict: boolean,
    private readonly nowNs: bigint,
    private readonly randomSource: (() => number) | undefined,
    private readonly sink: ((line: string) => void) | undefined,
    readonly budget: Budget,
  ) {}

  now(): bigint {
    return this.nowNs;
  }

  random(): number {
    return (this.rng ??= this.randomSource ?? mulberry32(0))();
  }

  print(line: string): void {
    this.sink?.(line);
  }
}
