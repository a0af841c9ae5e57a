/**
 * OPA bundles as toolgate reads them back: safe tarball reading, the bundle's own Rego evaluated
 * against its own data (what a gateway running `opa run --bundle` would answer), an inspection
 * summary, and `.signatures.json` signing and verification.
 */
import { ToolgateError } from '../errors.ts';
import { loadPolicy, type LoadedPolicy } from '../rego/engine.ts';
import { bundleData, bundleManifest } from '../rego/engines/wasm.ts';
import { opaFileHash } from './opa-hash.ts';
import { readTarball, type TarballFile, type TarballLimits } from './read-tarball.ts';
import { SIGNATURES_FILE } from './signatures.ts';
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, decodeJwt } from 'jose';

export { readTarball, safeEntryName, DEFAULT_TARBALL_LIMITS } from './read-tarball.ts';
export type { TarballFile, TarballLimits } from './read-tarball.ts';
export { signBundle, verifyBundle, bundleFileEntries, SIGNATURES_FILE, SIGNING_ALGORITHMS, isSigningAlgorithm } from './signatures.ts';
export type { SignBundleOptions, VerifyOptions, VerifiedBundle, FileEntry, JwsSigner, SigningAlgorithm } from './signatures.ts';
export { opaCanonicalJson, opaFileHash, opaHashInput, goQuote } from './opa-hash.ts';

export const DECISION_ENTRYPOINT = 'data.toolgate.authz.decision';

export interface BundleDecider {
  readonly revision: string | null;
  decide(agent: string, tool: string): unknown;
}

/** Loads a bundle's Rego (builtin engine) with the bundle's own data, once, for many decisions. */
export async function bundleDecider(bytes: Uint8Array, source = 'bundle.tar.gz', limits?: TarballLimits): Promise<BundleDecider> {
  const files = await readTarball(bytes, source, limits);
  const manifest = bundleManifest(files, source);
  const rv = manifest.rego_version;
  if (rv !== undefined && rv !== 0 && rv !== 1) throw new ToolgateError('BUNDLE_INVALID', `${source}: .manifest rego_version must be 0 or 1, got ${JSON.stringify(rv)}`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const modules = files
    .filter((f) => f.name.endsWith('.rego'))
    .map((f) => {
      try {
        return { name: `${source}:${f.name}`, text: decoder.decode(f.bytes) };
      } catch {
        throw new ToolgateError('BUNDLE_INVALID', `${source}: ${f.name} is not valid UTF-8`);
      }
    });
  if (modules.length === 0) throw new ToolgateError('BUNDLE_INVALID', `${source}: the bundle holds no Rego modules`);
  const policy: LoadedPolicy = await loadPolicy({ kind: 'rego', modules, regoVersion: rv === 0 ? 'v0' : 'v1' }, { engine: 'builtin' });
  policy.setData(bundleData(files, source));
  return {
    revision: typeof manifest.revision === 'string' ? manifest.revision : null,
    decide(agent: string, tool: string) {
      const ev = policy.evaluate({ agent, tool }, DECISION_ENTRYPOINT);
      return ev.defined && ev.type !== 'multiple' ? ev.value : null;
    },
  };
}

export interface BundleInspection {
  readonly entries: readonly { name: string; size: number; sha256: string; opa_sha256: string }[];
  readonly manifest: Record<string, unknown>;
  readonly revision: string | null;
  readonly roots: readonly string[];
  readonly signatures: null | { alg: unknown; kid: unknown; files: number; scope: unknown; verified: false };
}

/** What is in a bundle: entries with raw and OPA-rule digests, manifest, roots, an unverified look at the signature. */
export function inspectBundle(files: readonly TarballFile[], source = 'bundle.tar.gz'): BundleInspection {
  const manifest = bundleManifest(files, source);
  const roots = Array.isArray(manifest.roots) ? manifest.roots.filter((r): r is string => typeof r === 'string') : [''];
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
    signatures,
  };
}
