/**
 * A compiled policy bound to one data document at a time, for many evaluations at data refs (one
 * decision per request, one sign per connectome edge). Rule documents that depend on `data` alone
 * (data-only.ts) are computed once per data document and shared by every evaluation until `setData`
 * replaces it: a sign policy's `violated` set is derived once, not once per edge. The analysis is
 * made at the second evaluation: a single one (a CLI decision) has nothing to share.
 *
 *   const bound = bindPolicy([{ name: 'authz.rego', text }]);
 *   bound.setData({ toolgate: { agents: {} } });          // plain JSON, converted once
 *   bound.evaluate('data.toolgate.authz.decision', { input: { agent, tool } }); // a Value, or undefined
 */
import { dataOnlyNodes } from './data-only.ts';
import { RegoError } from './errors.ts';
import type { SharedDocs } from './eval.ts';
import type { RegoLimits } from './limits.ts';
import { compileModules, type RegoCompileOptions, type ModuleSource, type RegoPolicy } from './policy.ts';
import { type Value } from './value.ts';
import { fromJSON } from './value-json.ts';

export interface BoundEvaluation {
  /** Plain JSON input; absent means `input` is undefined. */
  readonly input?: unknown;
  /** The evaluation's clock in nanoseconds since the epoch (time.now_ns, token expiry); the caller's to give. */
  readonly now?: bigint;
  readonly limits?: RegoLimits;
}

export interface BoundPolicy {
  readonly policy: RegoPolicy;
  /** Replaces the whole `data` document (plain JSON). */
  setData(data: unknown): void;
  /** The document at a data ref such as `data.toolgate.authz.decision`, or undefined. */
  evaluate(ref: string, options?: BoundEvaluation): Value | undefined;
}

export function bindPolicy(modules: readonly ModuleSource[], options: RegoCompileOptions = {}): BoundPolicy {
  const policy = compileModules(modules, options);
  let dataOnly: ReturnType<typeof dataOnlyNodes> | undefined;
  let evaluations = 0;
  const sharedFor = (d: Value): SharedDocs | undefined => (dataOnly !== undefined && dataOnly.size > 0 ? { nodes: dataOnly, data: d, docs: new Map() } : undefined);
  let data: Value = fromJSON({});
  let shared: SharedDocs | undefined;
  return {
    policy,
    setData(d: unknown) {
      try {
        data = fromJSON(d);
      } catch (e) {
        if (e instanceof RangeError && /call stack/i.test(e.message)) throw new RegoError('eval_cancel_error', 'the data document is nested too deeply for the builtin engine');
        throw e;
      }
      shared = sharedFor(data);
    },
    evaluate(ref: string, o: BoundEvaluation = {}) {
      if (++evaluations === 2) {
        dataOnly = dataOnlyNodes(policy.compiled);
        shared = sharedFor(data);
      }
      return policy.evalRule(ref, {
        input: o.input === undefined ? undefined : fromJSON(o.input),
        data,
        ...(o.now !== undefined ? { now: o.now } : {}),
        ...(shared ? { shared } : {}),
        ...(o.limits ? { limits: o.limits } : {}),
      });
    },
  };
}
