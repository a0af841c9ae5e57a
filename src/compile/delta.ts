/**
 * OPA delta bundles (https://www.openpolicyagent.org/docs/management-bundles#delta-bundles): a
 * `.manifest` and a `patch.json` of `{op: upsert|remove, path, value}` operations that OPA applies to
 * the snapshot bundle it holds. A delta carries data only: OPA refuses one whose roots or wasm
 * resolvers differ from the snapshot's, and a delta cannot hold policy, so one is made only when the
 * previous bundle and this one differ in data alone. Paths are JSON pointers (RFC 6901 `~0`/`~1`)
 * that OPA also URL-unescapes (open-policy-agent/opa storage ParsePathEscaped), so `%` is written
 * `%25`. The patch never has zero operations: OPA reads an empty patch as "remove all data".
 *
 * Beside `delta.tar.gz` the compile writes `delta.json`, the record a bundle server needs to serve
 * the delta only to an OPA on the base bundle: the sha256 of the base and target tarballs, their
 * revisions and the delta's own sha256.
 *
 * Pure: tarball bytes in, bytes and a record out.
 */
import { createHash } from 'node:crypto';
import { readTarball, type TarballFile } from '../bundle/read-tarball.ts';
import { bundleData, bundleManifest } from '../bundle/load.ts';
import { canonicalBytes } from '../canonical/json.ts';
import { emitTarGz } from '../emit/opa-tarball.ts';
import { ToolgateError } from '../errors.ts';

export const DELTA_TARBALL_FILE = 'delta.tar.gz';
export const DELTA_RECORD_FILE = 'delta.json';

export type PatchOperation = { readonly op: 'upsert'; readonly path: string; readonly value: unknown } | { readonly op: 'remove'; readonly path: string };

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

export interface DeltaBundle {
  readonly tarball: Uint8Array;
  readonly record: DeltaRecord;
  readonly operations: readonly PatchOperation[];
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** One JSON-pointer reference token as OPA's patch path parser reads it. */
export function patchPathSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1').replace(/%/g, '%25');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * The operations that turn `before` into `after`: objects are compared key by key, anything
 * else that differs is replaced whole at its path. Keys are visited in sorted order so the patch
 * is deterministic.
 *
 * @example
 * diffData({ a: { b: 1, c: 2 } }, { a: { b: 1, d: 3 } })
 * // [{ op: 'remove', path: '/a/c' }, { op: 'upsert', path: '/a/d', value: 3 }]
 */
export function diffData(before: unknown, after: unknown, path = ''): PatchOperation[] {
  if (deepEqual(before, after)) return [];
  if (!isObject(before) || !isObject(after)) {
    if (path === '') throw new ToolgateError('DELTA_REFUSED', 'the data document root is not an object on both sides');
    return [{ op: 'upsert', path, value: after }];
  }
  const ops: PatchOperation[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const k of keys) {
    const p = `${path}/${patchPathSegment(k)}`;
    if (!Object.hasOwn(after, k)) ops.push({ op: 'remove', path: p });
    else if (!Object.hasOwn(before, k)) ops.push({ op: 'upsert', path: p, value: after[k] });
    else ops.push(...diffData(before[k], after[k], p));
  }
  return ops;
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
  const policy = (files: readonly TarballFile[]) => new Map(files.filter((f) => f.name !== '.manifest' && f.name !== '.signatures.json' && !DATA_FILE.test(f.name)).map((f) => [f.name, sha256(f.bytes)]));
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

/**
 * A delta from the bundle `base` (the previous compile's bundle.tar.gz) to `target` (this one), or
 * DELTA_REFUSED saying why: policy, roots, wasm or rego_version changed, or nothing changed at all.
 */
export async function compileDelta(base: Uint8Array, target: Uint8Array, sources: { base: string; target: string } = { base: 'base bundle', target: 'bundle' }): Promise<DeltaBundle> {
  const baseFiles = await readTarball(base, sources.base);
  const targetFiles = await readTarball(target, sources.target);
  const baseManifest = bundleManifest(baseFiles, sources.base);
  const targetManifest = bundleManifest(targetFiles, sources.target);
  const why = refusal(baseFiles, targetFiles, baseManifest, targetManifest);
  if (why !== undefined) throw new ToolgateError('DELTA_REFUSED', `no delta from ${sources.base}: ${why}`, { at: [{ file: sources.base }] });
  const operations = diffData(bundleData(baseFiles, sources.base), bundleData(targetFiles, sources.target));
  if (operations.length === 0) throw new ToolgateError('DELTA_REFUSED', `no delta from ${sources.base}: its data equals this compile's (nothing to patch)`, { at: [{ file: sources.base }] });
  const patch = canonicalBytes({ data: operations }, { allowFloats: true });
  const manifest = canonicalBytes(targetManifest, { allowFloats: true });
  const tarball = await emitTarGz([
    { name: '.manifest', bytes: manifest },
    { name: 'patch.json', bytes: patch },
  ]);
  const revision = (m: Record<string, unknown>) => (typeof m.revision === 'string' ? m.revision : null);
  return {
    tarball,
    operations,
    record: {
      kind: 'toolgate.delta-bundle',
      schema_version: 1,
      from: { revision: revision(baseManifest), sha256: sha256(base) },
      to: { revision: revision(targetManifest), sha256: sha256(target) },
      sha256: sha256(tarball),
      bytes: tarball.length,
      operations: operations.length,
    },
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
  const side = (x: unknown) => isObject(x) && hex(x.sha256) && (x.revision === null || typeof x.revision === 'string');
  if (!isObject(v) || v.kind !== 'toolgate.delta-bundle' || v.schema_version !== 1 || !side(v.from) || !side(v.to) || !hex(v.sha256)) {
    throw new ToolgateError('DELTA_REFUSED', `${source}: not a toolgate.delta-bundle record (schema_version 1)`, { at: [{ file: source }] });
  }
  return v as unknown as DeltaRecord;
}
