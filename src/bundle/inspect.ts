/**
 * What is in an OPA bundle: its entries with raw and OPA-rule digests, manifest, roots and modules,
 * and an unverified look at its signature.
 */
import { createHash } from 'node:crypto';
import { decodeProtectedHeader, decodeJwt } from 'jose';
import { ToolgateError } from '../errors.ts';
import { loadBundle } from './load.ts';
import { opaFileHash } from './opa-hash.ts';
import type { TarballFile } from './read-tarball.ts';
import { SIGNATURES_FILE } from './signatures.ts';

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
      throw new ToolgateError('BUNDLE_INVALID', `${source}: ${SIGNATURES_FILE} is not a readable signatures file`, { at: [{ file: source, path: SIGNATURES_FILE }] });
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
