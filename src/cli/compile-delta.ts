/**
 * `compile --delta-from PREVIOUS_OUT`: beside the full artifacts, a delta bundle from the previous
 * compile's bundle.tar.gz to this one (src/compile/delta.ts, src/emit/delta-bundle.ts), in the same artifact set and listed in
 * SHA256SUMS. When no delta can be made (policy, roots or wasm changed, nothing changed, no previous
 * bundle) the compile still writes the full set, says why on stderr (`DELTA_REFUSED`) and exits 0:
 * a full bundle is always a correct release, and a bundle server simply serves it whole.
 */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compileDelta, DELTA_RECORD_FILE, DELTA_TARBALL_FILE } from '../compile/delta.ts';
import { emitDeltaBundle } from '../emit/delta-bundle.ts';
import { sha256SumsFile, SHA256SUMS_FILE } from '../emit/sha256sums.ts';
import { isToolgateError } from '../errors.ts';
import type { CliIo } from './command.ts';
import { readBytesFile } from './fs-io.ts';

export const DELTA_OPTIONS = { 'delta-from': { type: 'string' } } as const;

export const DELTA_USAGE = `  --delta-from PREV  also write delta.tar.gz (.manifest + patch.json) and delta.json from PREV's
                     bundle.tar.gz (a compile output folder, may be --out itself) when only data
                     changed; otherwise say why (DELTA_REFUSED on stderr) and write the full set only`;

/** The compile's files plus the delta (and SHA256SUMS rewritten to list it), or as they were. */
export async function withDeltaFrom<R extends { readonly files: readonly { readonly name: string; readonly bytes: Uint8Array }[] }>(io: CliIo, arg: string | undefined, result: R): Promise<R> {
  if (arg === undefined) return result;
  const input = resolve(io.cwd, arg);
  const basePath = existsSync(input) && statSync(input).isDirectory() ? join(input, 'bundle.tar.gz') : input;
  const target = result.files.find((f) => f.name === 'bundle.tar.gz');
  if (!target) return result;
  // Only a path that names nothing is "no previous bundle"; one that cannot be read (a symlink
  // loop, no permission, a FIFO) is refused by readBytesFile below, naming why.
  if (!existsSync(basePath) && errnoOfStat(basePath) === 'ENOENT') {
    io.stderr(`toolgate: DELTA_REFUSED: ${basePath} does not exist (no previous bundle); only the full bundle is written\n`);
    return result;
  }
  let delta;
  try {
    delta = await emitDeltaBundle(await compileDelta(readBytesFile(basePath), target.bytes, { base: basePath, target: 'bundle.tar.gz' }));
  } catch (e) {
    if (!isToolgateError(e) || (e.code !== 'DELTA_REFUSED' && e.code !== 'BUNDLE_INVALID')) throw e;
    io.stderr(`toolgate: DELTA_REFUSED: ${e.message}; only the full bundle is written\n`);
    return result;
  }
  const files = [...result.files.filter((f) => f.name !== SHA256SUMS_FILE), { name: DELTA_TARBALL_FILE, bytes: delta.tarball }, { name: DELTA_RECORD_FILE, bytes: delta.recordBytes }];
  io.stderr(`toolgate: delta: ${delta.record.operations} operation(s), ${delta.record.bytes} bytes (full bundle ${target.bytes.length} bytes), from revision ${delta.record.from.revision ?? '?'}\n`);
  return { ...result, files: [...files, sha256SumsFile(files)] };
}

function errnoOfStat(path: string): string | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
}
