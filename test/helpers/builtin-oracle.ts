/**
 * Builtin differential oracle: calls of single builtins on generated JSON arguments, answered by the
 * builtin Rego engine and by one running `opa run --server`, with strict builtin errors on both sides.
 *
 * Both sides read the arguments from the same JSON text (numbers exact, as OPA keeps them).
 *
 * Each builtin under test gets one rule `r<i> := NAME(input.args[0], ...)` in one policy, installed
 * once; each case is then one POST /v1/data/b/r<i>?strict-builtin-errors=true on a kept-alive
 * connection (about 1 ms), so hundreds of cases cost one OPA process. Arguments come through `input`,
 * so the type checker sees `any` and OPA's run-time operand checks are what is compared.
 *
 * An answer is the value (canonical JSON, as rego-differential.ts normalises it), `undefined`, or the
 * error's code and message; two answers agree when those are equal.
 */
import { compileModules, RegoError } from '../../src/rego/index.ts';
import { ObjectValue, type Value } from '../../src/rego/value.ts';
import { canonicalText, OpaOracle, parseExactJSON } from './rego-differential.ts';

export type CallAnswer =
  | { readonly kind: 'value'; readonly text: string }
  | { readonly kind: 'undefined' }
  | { readonly kind: 'error'; readonly code: string; readonly message: string };

export interface BuiltinUnderTest {
  readonly name: string;
  readonly arity: number;
  /** A builtin with no result (`internal.test_case`): called as the rule's body, `r<i>` is then true. */
  readonly statement?: boolean;
  /**
   * The rule's value computed from the call's result `x`, for a builtin whose answer OPA orders at
   * random (json.match_schema walks Go maps): e.g. `[x[0], sort(x[1])]`.
   */
  readonly project?: string;
}

export interface Disagreement {
  readonly name: string;
  readonly args: readonly unknown[];
  readonly engine: CallAnswer;
  readonly opa: CallAnswer;
}

export interface DiffTally {
  readonly cases: number;
  readonly agreed: number;
  /** Answer kinds OPA gave (value / undefined / error code), to show the cases reach errors too. */
  readonly kinds: Readonly<Record<string, number>>;
  readonly disagreements: readonly Disagreement[];
}

const NOW = 1_700_000_000_000_000_000n;

export interface OracleOptions {
  /** The engine's clock (ns); OPA reads the real one, so a test of time-dependent builtins passes the real time. */
  readonly now?: bigint;
}

function policyText(builtins: readonly BuiltinUnderTest[]): string {
  const rules = builtins.map((b, i) => {
    const args = Array.from({ length: b.arity }, (_, j) => `input.args[${j}]`).join(', ');
    if (b.statement) return `r${i} if ${b.name}(${args})`;
    if (b.project) return `f${i}(x) := ${b.project}\n\nr${i} := f${i}(${b.name}(${args}))`;
    return `r${i} := ${b.name}(${args})`;
  });
  return `package b\n\n${rules.join('\n')}\n`;
}

export function showAnswer(a: CallAnswer): string {
  if (a.kind === 'value') return a.text;
  if (a.kind === 'undefined') return 'undefined';
  return `${a.code}: ${a.message}`;
}

function sameAnswer(a: CallAnswer, b: CallAnswer): boolean {
  return showAnswer(a) === showAnswer(b);
}

export class BuiltinOracle {
  private readonly index = new Map<string, number>();
  private readonly engine;

  private constructor(
    private readonly opa: OpaOracle,
    builtins: readonly BuiltinUnderTest[],
    private readonly now: bigint,
  ) {
    builtins.forEach((b, i) => this.index.set(b.name, i));
    this.engine = compileModules([{ name: 'b.rego', text: policyText(builtins) }], { regoVersion: 'v1' });
  }

  static async start(builtins: readonly BuiltinUnderTest[], options: OracleOptions = {}): Promise<BuiltinOracle> {
    const opa = await OpaOracle.start();
    const err = await opa.putPolicy('b', policyText(builtins));
    if (err) {
      await opa.stop();
      throw new Error(`opa refused the oracle policy: ${JSON.stringify(err)}\n${policyText(builtins)}`);
    }
    return new BuiltinOracle(opa, builtins, options.now ?? NOW);
  }

  stop(): Promise<void> {
    return this.opa.stop();
  }

  private rule(name: string): string {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`${name} is not under test`);
    return `r${i}`;
  }

  engineAnswer(name: string, args: readonly unknown[]): CallAnswer {
    try {
      const v = this.engine.evalRule(`data.b.${this.rule(name)}`, { input: parseExactJSON(JSON.stringify({ args })), strict: true, now: this.now, maxSteps: 5_000_000, deadlineMs: 10_000 });
      return v === undefined ? { kind: 'undefined' } : { kind: 'value', text: canonicalText(v) };
    } catch (e) {
      if (e instanceof RegoError) return { kind: 'error', code: e.regoCode, message: e.regoMessage };
      return { kind: 'error', code: 'engine_crash', message: e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e) };
    }
  }

  async opaAnswer(name: string, args: readonly unknown[]): Promise<CallAnswer> {
    const r = await this.opa.request('POST', `/v1/data/b/${this.rule(name)}?strict-builtin-errors=true`, JSON.stringify({ input: { args } }));
    if (r.status === 200) {
      const v = (parseExactJSON(r.body) as ObjectValue).get('result') as Value | undefined;
      return v === undefined ? { kind: 'undefined' } : { kind: 'value', text: canonicalText(v) };
    }
    const body = JSON.parse(r.body) as { errors?: { code?: string; message?: string }[]; message?: string };
    const first = body.errors?.[0];
    return { kind: 'error', code: first?.code ?? `http_${r.status}`, message: first?.message ?? body.message ?? r.body };
  }

  /** Asks both sides every call and tallies the answers. */
  async compare(calls: readonly { readonly name: string; readonly args: readonly unknown[] }[]): Promise<DiffTally> {
    const kinds: Record<string, number> = {};
    const disagreements: Disagreement[] = [];
    let agreed = 0;
    for (const c of calls) {
      const opa = await this.opaAnswer(c.name, c.args);
      const engine = this.engineAnswer(c.name, c.args);
      const kind = opa.kind === 'error' ? opa.code : opa.kind;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      if (sameAnswer(engine, opa)) agreed++;
      else disagreements.push({ name: c.name, args: c.args, engine, opa });
    }
    return { cases: calls.length, agreed, kinds, disagreements };
  }
}

/** A readable list of the first disagreements, for a failing expectation's message. */
export function describeDisagreements(t: DiffTally, max = 8): string {
  return t.disagreements
    .slice(0, max)
    .map((d) => `${d.name}(${d.args.map((a) => JSON.stringify(a)).join(', ')})\n  engine: ${showAnswer(d.engine)}\n  opa:    ${showAnswer(d.opa)}`)
    .join('\n');
}
