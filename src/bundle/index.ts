/**
 * OPA bundles as toolgate reads them back: tarball reading and bundle loading as OPA's loader does them, the bundle's own Rego evaluated
 * against its own data (what a gateway running `opa run --bundle` would answer), an inspection
 * summary, and `.signatures.json` signing and verification.
 */
export { readTarball, safeEntryName, DEFAULT_TARBALL_LIMITS } from './read-tarball.ts';
export { loadBundle } from './load.ts';
export type { LoadedBundle, LoadedModule, BundleManifest } from './load.ts';
export type { TarballFile, TarballLimits } from './read-tarball.ts';
export { signBundle, verifyBundle, bundleFileEntries, SIGNATURES_FILE, SIGNING_ALGORITHMS, isSigningAlgorithm } from './signatures.ts';
export { verificationKeyOf } from './jws-keys.ts';
export type { SignBundleOptions, VerifyOptions, VerifiedBundle, FileEntry, JwsSigner, SigningAlgorithm } from './signatures.ts';
export { opaCanonicalJson, opaFileHash, opaHashInput, goJsonQuote } from './opa-hash.ts';

export { bundleDecider, DECISION_ENTRYPOINT } from './decider.ts';
export type { BundleDecider } from './decider.ts';

export { inspectBundle } from './inspect.ts';
export type { BundleInspection } from './inspect.ts';
