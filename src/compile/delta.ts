/**
 * OPA delta bundles (https://www.openpolicyagent.org/docs/management-bundles#delta-bundles): a
 * `.manifest` and a `patch.json` of `{op: upsert|replace|remove, path, value}` operations that OPA
 * applies to the snapshot bundle it holds (which operations, in what order: delta-patch.ts). A delta
 * carries data only: OPA refuses one whose roots or wasm resolvers differ from the snapshot's, and a
 * delta cannot hold policy, so one is made only when the previous bundle and this one differ in data
 * alone. The patch never has zero operations: OPA reads an empty patch as "remove all data".
 *
 * Beside `delta.tar.gz` the compile writes `delta.json`, the record a bundle server needs to serve
 * the delta only to an OPA on the base bundle: the sha256 of the base and target tarballs, their
 * revisions and the delta's own sha256.
 *
 * Pure: tarball bytes in, the delta's contents out (its manifest and operations, and the two sides
 * it goes between); emit/delta-bundle.ts makes the tarball and the record from them.
 */
import { readTarball, type TarballFile } from '../bundle/read-tarball.ts';
import { loadBundle, type LoadedModule } from '../bundle/load.ts';
import { digestHex } from '../canonical/digest.ts';
import { isJsonObject } from '../canonical/json-object.ts';
import { ToolgateError } from '../errors.ts';
import { deepEqual, diffData, packageMarkers, type PackageRules, type PatchOperation } from './delta-patch.ts';

export const DELTA_TARBALL_FILE = 'delta.tar.gz';
export const DELTA_RECORD_FILE = 'delta.json';

export type { PatchOperation } from './delta-patch.ts';

export interface DeltaRecord {
  readonly kind: 'toolgate.delta-bundle';
  readonly schema_version: 1;
  readonly from: { readonly revision: string | null; readonly sha256: string };
  readonly to: { readonly revision: string | null; readonly sha256: string };
  /** sha256 of delta.tar.gz. */
  readonly sha256: string;
  readonly bytes: number;
  readonly operations: number;
}

/** What a delta bundle holds and the two bundles it goes between. */
export interface DeltaContents {
  /** The target's `.manifest`, which the delta carries as it is. */
  readonly manifest: Record<string, unknown>;
  /** patch.json's operations, in the order OPA applies them. */
  readonly operations: readonly PatchOperation[];
  readonly from: DeltaRecord['from'];
  readonly to: DeltaRecord['to'];
}

const DATA_FILE = /(^|\/)data\.(json|ya?ml)$/;

/** Why no delta can be made from `base` to `target`, or undefined when only data changed. */
function refusal(baseFiles: readonly TarballFile[], targetFiles: readonly TarballFile[], baseManifest: Record<string, unknown>, targetManifest: Record<string, unknown>): string | undefined {
  if (targetFiles.some((f) => f.name === 'patch.json') || baseFiles.some((f) => f.name === 'patch.json')) return 'a bundle is itself a delta (patch.json)';
  // OPA cannot verify a delta (it carries no .signatures.json): an OPA that verifies signatures
  // would refuse it, so a signed release ships whole.
  if (targetFiles.some((f) => f.name === '.signatures.json')) return 'this bundle is signed, and a delta bundle cannot be (OPA verifies snapshots only)';
  for (const field of ['roots', 'wasm', 'rego_version'] as const) {
    if (!deepEqual(baseManifest[field], targetManifest[field])) return `.manifest ${field} changed (${JSON.stringify(baseManifest[field] ?? null)} -> ${JSON.stringify(targetManifest[field] ?? null)})`;
  }
  const policy = (files: readonly TarballFile[]) => new Map(files.filter((f) => f.name !== '.manifest' && f.name !== '.signatures.json' && !DATA_FILE.test(f.name)).map((f) => [f.name, digestHex(f.bytes)]));
  const a = policy(baseFiles);
  const b = policy(targetFiles);
  for (const [name, h] of b) {
    if (!a.has(name)) return `${name} was added (a delta carries data only)`;
    if (a.get(name) !== h) return `${name} changed (a delta carries data only)`;
  }
  for (const name of a.keys()) if (!b.has(name)) return `${name} was removed (a delta carries data only)`;
  if (targetFiles.some((f) => /\.ya?ml$/.test(f.name) && DATA_FILE.test(f.name))) return 'the bundle holds YAML data files, which toolgate does not diff';
  return undefined;
}

/** The package and rule names of the bundle's modules, for packageMarkers. */
function policyPackages(modules: readonly LoadedModule[]): PackageRules[] {
  return modules.map((m) => ({ path: m.parsed.pkg.slice(1), ruleNames: m.parsed.rules.flatMap((r) => (r.ref[0]?.type === 'var' ? [r.ref[0].name] : [])) }));
}

/**
 * A delta from the bundle `base` (the previous compile's bundle.tar.gz) to `target` (this one), or
 * DELTA_REFUSED saying why: policy, roots, wasm or rego_version changed, or nothing changed at all.
 */
export async function compileDelta(base: Uint8Array, target: Uint8Array, sources: { base: string; target: string } = { base: 'base bundle', target: 'bundle' }): Promise<DeltaContents> {
  const baseFiles = await readTarball(base, sources.base);
  const targetFiles = await readTarball(target, sources.target);
  // Loaded once each: reading a large bundle as OPA would is most of a delta's cost.
  const baseBundle = loadBundle(baseFiles, sources.base);
  const targetBundle = loadBundle(targetFiles, sources.target);
  const baseManifest = baseBundle.manifestJSON;
  const targetManifest = targetBundle.manifestJSON;
  const why = refusal(baseFiles, targetFiles, baseManifest, targetManifest);
  if (why !== undefined) throw new ToolgateError('DELTA_REFUSED', `no delta from ${sources.base}: ${why}`, { at: [{ file: sources.base }] });
  const changes = diffData(baseBundle.data, targetBundle.data);
  if (changes.length === 0) throw new ToolgateError('DELTA_REFUSED', `no delta from ${sources.base}: its data equals this compile's (nothing to patch)`, { at: [{ file: sources.base }] });
  const markers = packageMarkers(policyPackages(targetBundle.modules), targetBundle.manifest.roots, baseBundle.data, targetBundle.data);
  const revision = (m: Record<string, unknown>) => (typeof m.revision === 'string' ? m.revision : null);
  return {
    manifest: targetManifest,
    operations: [...markers, ...changes],
    from: { revision: revision(baseManifest), sha256: digestHex(base) },
    to: { revision: revision(targetManifest), sha256: digestHex(target) },
  };
}

/** Reads a `delta.json` record, refusing anything but the shape compileDelta writes. */
export function parseDeltaRecord(text: string, source: string): DeltaRecord {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ToolgateError('PARSE_ERROR', `${source}: not JSON: ${(e as Error).message}`, { at: [{ file: source }] });
  }
  const hex = (x: unknown) => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x);
  const side = (x: unknown) => isJsonObject(x) && hex(x.sha256) && (x.revision === null || typeof x.revision === 'string');
  if (!isJsonObject(v) || v.kind !== 'toolgate.delta-bundle' || v.schema_version !== 1 || !side(v.from) || !side(v.to) || !hex(v.sha256)) {
    throw new ToolgateError('DELTA_REFUSED', `${source}: not a toolgate.delta-bundle record (schema_version 1)`, { at: [{ file: source }] });
  }
  return v as unknown as DeltaRecord;
}
