/**
 * OPA bundles as toolgate reads them back: tarball reading and bundle loading as OPA's loader does them, the bundle's own Rego evaluated
 * against its own data (what a gateway running `opa run --bundle` would answer), an inspection
 * summary, and `.signatures.json` signing and verification.
 */
import { ToolgateError, toolgateErrorFromRego } from '../errors.ts';
import { bindPolicy, RegoError, toJSON, type BoundPolicy, type RegoLimits } from '../rego/index.ts';
import { loadBundle } from './load.ts';
import { opaFileHash } from './opa-hash.ts';
import { readTarball, type TarballFile, type TarballLimits } from './read-tarball.ts';
import { SIGNATURES_FILE } from './signatures.ts';
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, decodeJwt } from 'jose';

export { readTarball, safeEntryName, DEFAULT_TARBALL_LIMITS } from './read-tarball.ts';
export { loadBundle } from './load.ts';
export type { LoadedBundle, LoadedModule, BundleManifest } from './load.ts';
export type { TarballFile, TarballLimits } from './read-tarball.ts';
export { signBundle, verifyBundle, bundleFileEntries, SIGNATURES_FILE, SIGNING_ALGORITHMS, isSigningAlgorithm } from './signatures.ts';
export type { SignBundleOptions, VerifyOptions, VerifiedBundle, FileEntry, JwsSigner, SigningAlgorithm } from './signatures.ts';
export { opaCanonicalJson, opaFileHash, opaHashInput, goQuote } from './opa-hash.ts';

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
    policy = bindPolicy(loaded.modules.map((m) => ({ name: m.id, text: m.text })), { regoVersion: [...versions][0]! });
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

export interface BundleInspection {
  readonly entries: readonly { name: string; size: number; sha256: string; opa_sha256: string }[];
  readonly manifest: Record<string, unknown>;
  readonly revision: string | null;
  readonly roots: readonly string[];
  /** The modules OPA loads, by id (cleaned entry name), with their packages. */
  readonly modules: readonly { id: string; package: string; rego_version: 0 | 1 }[];
  readonly signatures: null | { alg: unknown; kid: unknown; files: number; scope: unknown; verified: false };
}

/** What is in a bundle: entries with raw and OPA-rule digests, manifest, roots, an unverified look at the signature. */
export function inspectBundle(files: readonly TarballFile[], source = 'bundle.tar.gz'): BundleInspection {
  // A bundle OPA would refuse to load is refused here too (load.ts), so inspect never vouches for it.
  const loaded = loadBundle(files, source);
  const manifest = loaded.manifestJSON;
  const roots = loaded.manifest.roots;
  let signatures: BundleInspection['signatures'] = null;
  const sig = files.find((f) => f.name === SIGNATURES_FILE);
  if (sig) {
    try {
      const jws = (JSON.parse(new TextDecoder().decode(sig.bytes)) as { signatures: string[] }).signatures[0]!;
      const h = decodeProtectedHeader(jws);
      const p = decodeJwt(jws) as Record<string, unknown>;
      signatures = { alg: h.alg ?? null, kid: h.kid ?? null, files: Array.isArray(p.files) ? p.files.length : 0, scope: p.scope ?? null, verified: false };
    } catch {
      throw new ToolgateError('BUNDLE_INVALID', `${source}: ${SIGNATURES_FILE} is not a readable signatures file`);
    }
  }
  return {
    entries: [...files]
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((f) => ({
        name: f.name,
        size: f.bytes.length,
        sha256: createHash('sha256').update(f.bytes).digest('hex'),
        opa_sha256: f.name === SIGNATURES_FILE ? '' : opaFileHash(f.name, f.bytes, 'SHA-256', source),
      })),
    manifest,
    revision: typeof manifest.revision === 'string' ? manifest.revision : null,
    roots,
    modules: loaded.modules.map((m) => ({ id: m.id, package: m.package, rego_version: m.regoVersion === 'v0' ? 0 : 1 })),
    signatures,
  };
}
