/**
 * The bytes of an OPA delta bundle: the tarball of `.manifest` and `patch.json` (canonical JSON),
 * and the `delta.json` record naming it, made from what compile/delta.ts decided it holds.
 */
import { digestHex } from '../canonical/digest.ts';
import { canonicalBytes } from '../canonical/json.ts';
import type { DeltaContents, DeltaRecord, PatchOperation } from '../compile/delta.ts';
import { emitTarGz } from './opa-tarball.ts';

export interface DeltaBundle {
  readonly tarball: Uint8Array;
  readonly record: DeltaRecord;
  /** delta.json: the record, indented, with a final LF. */
  readonly recordBytes: Uint8Array;
  readonly operations: readonly PatchOperation[];
}

export async function emitDeltaBundle(delta: DeltaContents): Promise<DeltaBundle> {
  const tarball = await emitTarGz([
    { name: '.manifest', bytes: canonicalBytes(delta.manifest, { allowFloats: true }) },
    { name: 'patch.json', bytes: canonicalBytes({ data: delta.operations }, { allowFloats: true }) },
  ]);
  const record: DeltaRecord = {
    kind: 'toolgate.delta-bundle',
    schema_version: 1,
    from: delta.from,
    to: delta.to,
    sha256: digestHex(tarball),
    bytes: tarball.length,
    operations: delta.operations.length,
  };
  return { tarball, record, recordBytes: new TextEncoder().encode(`${JSON.stringify(record, null, 2)}\n`), operations: delta.operations };
}
