/**
 * A bundle's own enforcement Rego evaluated against its own data, in-process: what a gateway running
 * `opa run --bundle` would answer for `data.toolgate.authz.decision`. Apart from the rest of
 * bundle/ so that `toolgate decide` loads neither signing nor inspection code.
 */
import { ToolgateError, toolgateErrorFromRego } from '../errors.ts';
import { bindPolicy, RegoError, toJSON, type BoundPolicy, type RegoLimits } from '../rego/index.ts';
import { loadBundle } from './load.ts';
import { readTarball, type TarballLimits } from './read-tarball.ts';

export const DECISION_ENTRYPOINT = 'data.toolgate.authz.decision';

export interface BundleDecider {
  readonly revision: string | null;
  /** The decision; `evalLimits` bound the bundle's Rego (a limit is refused naming the bundle and rule). */
  decide(agent: string, tool: string, evalLimits?: RegoLimits): unknown;
}

/**
 * Loads a bundle's Rego (builtin engine) with the bundle's own data, once, for many decisions: the
 * modules and data OPA's bundle loader would load (load.ts), or the refusal OPA would give.
 */
export async function bundleDecider(bytes: Uint8Array, source = 'bundle.tar.gz', limits?: TarballLimits): Promise<BundleDecider> {
  const loaded = loadBundle(await readTarball(bytes, source, limits), source);
  if (loaded.modules.length === 0) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle holds no Rego modules`, { at: [{ file: source }] });
  const versions = new Set(loaded.modules.map((m) => m.regoVersion));
  if (versions.size > 1) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle mixes rego versions 0 and 1, which the builtin engine cannot load together`, { at: [{ file: source }] });
  let policy: BoundPolicy;
  try {
    // The loader parsed every module (with the same name and version) to read its package.
    policy = bindPolicy(loaded.modules.map((m) => ({ name: m.id, text: m.text, parsed: m.parsed })), { regoVersion: [...versions][0]! });
  } catch (e) {
    // OPA refuses to activate a bundle whose modules do not compile.
    if (e instanceof RegoError || e instanceof ToolgateError) throw new ToolgateError('BUNDLE_INVALID', `${source}: ${e.message}`, { at: [{ file: source }, ...e.at], cause: e });
    throw e;
  }
  try {
    policy.setData(loaded.data);
  } catch (e) {
    if (e instanceof RegoError) throw toolgateErrorFromRego(e);
    throw e;
  }
  const revision = loaded.manifestJSON.revision;
  return {
    revision: typeof revision === 'string' ? revision : null,
    decide(agent: string, tool: string, evalLimits?: RegoLimits) {
      try {
        // the wall clock, as OPA's: token expiry and time.now_ns read it
        const now = BigInt(Date.now()) * 1_000_000n;
        const v = policy.evaluate(DECISION_ENTRYPOINT, { input: { agent, tool }, now, ...(evalLimits ? { limits: evalLimits } : {}) });
        return v === undefined ? null : toJSON(v);
      } catch (e) {
        if (e instanceof RegoError && e.code === 'REGO_LIMIT_EXCEEDED') throw new ToolgateError(e.code, `${source}: ${e.message}`, { at: [{ file: source }, ...e.at], cause: e });
        if (e instanceof RegoError) throw toolgateErrorFromRego(e);
        throw e;
      }
    },
  };
}
