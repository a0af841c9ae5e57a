/**
 * The builtin-function contract between the evaluator (`src/rego/eval*.ts`) and the builtin families
 * (`src/rego/builtins/<family>.ts`).
 *
 * A family file exports nothing the evaluator needs directly: it calls `registerBuiltins([...])` at module
 * load, and `builtins/index.ts` imports every family file for its side effect. The evaluator imports
 * `builtins/index.ts` once and resolves calls with `lookupBuiltin(name)`.
 *
 * - `name` is the full Rego name (`strings.replace_n`, `count`, `io.jwt.decode_verify`).
 * - `arity` is the number of input operands; a call with one more argument binds/unifies the last
 *   argument with the result (`count(xs, n)`), which the evaluator handles. Use `-1` for variadic (`print`).
 * - `fn(args, ctx)` receives fully evaluated operands (values from `../value.ts`, never undefined) and returns
 *   the result value, or `undefined` when the call has no result (the expression is undefined). Booleans
 *   are results like any other: a predicate such as `startswith` returns `false`, not undefined.
 * - A relation (e.g. `walk`) sets `rel` instead of `fn` and returns every result as a JS array (`Value[]`);
 *   the evaluator tries each in turn.
 * - On bad operands or a failing operation, throw `BuiltinError` (helpers below give OPA's wording:
 *   `name: operand N must be T but got U`). The evaluator makes the expression undefined in non-strict mode
 *   and raises the error in strict mode (`strict_error`), as OPA does. Set `halt: true` on the error for
 *   faults that stop evaluation even when not strict. Any other exception is a bug and is reported as an
 *   internal eval error.
 * - Builtins must be pure functions of their args and `ctx`: time comes from `ctx.now()`, randomness from
 *   `ctx.random()`, and per-query memo (so `time.now_ns`/`rand.intn`/`uuid.rfc4122` are stable within one
 *   query) lives in `ctx.cache`.
 * - `nondeterministic: true` marks builtins whose result depends on ctx (time, random, network).
 * - Do not register over a name another family registered: `registerBuiltins` throws on duplicates.
 * - Work: every result is charged to the evaluation's budget by its size (string length, element
 *   count; see `limits.ts`), so large outputs count against `maxBytes` and steps. A builtin whose work
 *   or output can be much larger than its result, or that is about to build something large, charges
 *   it first with `ctx.budget?.work(n)` / `ctx.budget?.alloc(n)`, so a limit stops it before it runs.
 */
import type { Budget } from '../limits.ts';
import type { Value } from '../value.ts';
import { ObjectValue, SetValue, typeName } from '../value.ts';

export interface BuiltinContext {
  /** Strict builtin errors: a BuiltinError aborts evaluation instead of making the expression undefined. */
  readonly strict: boolean;
  /** Current time in nanoseconds since the Unix epoch, fixed for one query evaluation (injected clock). */
  now(): bigint;
  /** A number in [0, 1) from the evaluation's random source (seeded by the caller for determinism). */
  random(): number;
  /** Per-query memo shared by all builtin calls of one evaluation (key it by builtin name + args). */
  readonly cache: Map<string, Value>;
  /** Output sink of `print` (one line per call, without the newline). */
  print(line: string): void;
  /** File location of the call, `file:line:col`, for messages that need it (may be empty). */
  readonly location: string;
  /** The evaluation's limits (absent when a builtin is called outside an evaluation). */
  readonly budget?: Budget;
}

export type BuiltinFn = (args: Value[], ctx: BuiltinContext) => Value | undefined;
export type RelationFn = (args: Value[], ctx: BuiltinContext) => Value[];

export interface BuiltinDef {
  readonly name: string;
  /** Number of input operands, or -1 for variadic. */
  readonly arity: number;
  /** Function builtin: one result or undefined. Exactly one of `fn` / `rel` is set. */
  readonly fn?: BuiltinFn;
  /** Relation builtin (e.g. `walk`): every result. */
  readonly rel?: RelationFn;
  readonly nondeterministic?: boolean;
}

/** OPA's codes for a failing builtin; conflict and internal errors are the few that halt in OPA itself. */
export type BuiltinErrorCode = 'eval_type_error' | 'eval_builtin_error' | 'eval_conflict_error' | 'eval_internal_error';

/** A builtin's refusal of its operands (`eval_type_error`) or failure (`eval_builtin_error`). */
export class BuiltinError extends Error {
  readonly code: BuiltinErrorCode;
  /** When true the error stops evaluation even when builtin errors are not strict. */
  readonly halt: boolean;
  constructor(code: BuiltinErrorCode, message: string, options: { halt?: boolean } = {}) {
    super(message);
    this.name = 'BuiltinError';
    this.code = code;
    this.halt = options.halt ?? false;
  }
}

/** `name: operand N must be WANT but got GOT` (N is 1-based), code eval_type_error. */
export function operandError(name: string, n: number, want: string, got: Value): BuiltinError {
  return new BuiltinError('eval_type_error', `${name}: operand ${n} must be ${want} but got ${typeName(got)}`);
}

/** `name: MESSAGE`, code eval_builtin_error. */
export function builtinError(name: string, message: string): BuiltinError {
  return new BuiltinError('eval_builtin_error', `${name}: ${message}`);
}

const REGISTRY = new Map<string, BuiltinDef>();
/** Names whose family is not loaded yet, and the function that loads it (it registers them). */
const UNLOADED = new Map<string, () => void>();

export function registerBuiltins(defs: readonly BuiltinDef[]): void {
  for (const d of defs) {
    if (REGISTRY.has(d.name)) throw new Error(`builtin ${d.name} registered twice`);
    UNLOADED.delete(d.name);
    if ((d.fn === undefined) === (d.rel === undefined)) throw new Error(`builtin ${d.name} needs exactly one of fn/rel`);
    REGISTRY.set(d.name, metered(d));
  }
}

/** Size of a result for the budget: code units of a string, elements of a collection, else 1. */
function resultSize(v: Value): number {
  if (typeof v === 'string') return v.length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof SetValue || v instanceof ObjectValue) return v.size;
  return 1;
}

/** JS refuses a string or array past its maximum length: that is the output limit, not a bug. */
function tooLarge(e: unknown, ctx: BuiltinContext): never {
  if (e instanceof RangeError && /Invalid (string|array|typed array) length|Array buffer allocation failed/i.test(e.message) && ctx.budget) {
    ctx.budget.exceeded('bytes', "past JavaScript's largest string or array");
  }
  throw e;
}

/** Builtins that return a value they were given (not one they built): charging it would count it again. */
const RETURNS_EXISTING: ReadonlySet<string> = new Set(['object.get', 'min', 'max']);

function metered(d: BuiltinDef): BuiltinDef {
  const { fn, rel } = d;
  if (RETURNS_EXISTING.has(d.name)) return d;
  if (fn) {
    return {
      ...d,
      fn: (args, ctx) => {
        let r: Value | undefined;
        try {
          r = fn(args, ctx);
        } catch (e) {
          tooLarge(e, ctx);
        }
        if (r !== undefined && ctx.budget !== undefined && typeof r !== 'boolean' && typeof r !== 'number') ctx.budget.alloc(resultSize(r));
        return r;
      },
    };
  }
  const relation = rel as RelationFn;
  return {
    ...d,
    rel: (args, ctx) => {
      let rs: Value[] = [];
      try {
        rs = relation(args, ctx);
      } catch (e) {
        tooLarge(e, ctx);
      }
      ctx.budget?.work(rs.length);
      return rs;
    },
  };
}

/**
 * Names a family will register when `load` runs, loaded on the first lookup of one of them: a
 * bundled command (scripts/build.mjs) declares its families this way, so a run loads only those
 * its policy calls (node:crypto, for one, only for a policy calling a crypto builtin).
 */
export function registerFamilyLoader(names: readonly string[], load: () => void): void {
  for (const n of names) if (!REGISTRY.has(n)) UNLOADED.set(n, load);
}

export function lookupBuiltin(name: string): BuiltinDef | undefined {
  const d = REGISTRY.get(name);
  if (d !== undefined || UNLOADED.size === 0) return d;
  const load = UNLOADED.get(name);
  if (load === undefined) return undefined;
  load();
  // a family that did not register the name it was declared with must not be tried again
  UNLOADED.delete(name);
  return REGISTRY.get(name);
}

export function builtinNames(): string[] {
  return [...new Set([...REGISTRY.keys(), ...UNLOADED.keys()])].sort();
}
