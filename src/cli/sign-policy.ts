/**
 * Reading a consumer's sign policy for `sign` and `compile --signs`: a `.rego` file (or a folder of
 * them, tests excluded), an OPA-compiled `policy.wasm`, or a wasm bundle tarball, told apart by
 * their bytes; loaded once into the chosen engine.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseJsonInput } from '../canonical/strict-json.ts';
import { ToolgateError } from '../errors.ts';
import { isEngineName, loadPolicy, ENGINES, type EngineName, type LoadedPolicy, type PolicySource } from '../engines/engine.ts';
import { DEFAULT_SIGN_ENTRYPOINT } from '../signs/index.ts';
import type { CliIo } from './command.ts';
import { readBytesFile, readTextFile } from './fs-io.ts';
import { opaRunner } from './opa-runner.ts';
import { usageError } from './args.ts';
import { wallClockNs } from './clock.ts';

// The limit options live in limit-options.ts (commands that run no sign policy import them from there).
export { LIMIT_OPTIONS, LIMIT_USAGE, limitsFromOptions } from './limit-options.ts';

export function engineOption(value: string | undefined, usage: string): EngineName | undefined {
  if (value === undefined) return undefined;
  if (!isEngineName(value)) usageError(`--engine must be one of ${ENGINES.join(', ')}, got ${JSON.stringify(value)}`, usage);
  return value;
}

export function policySource(io: CliIo, file: string): PolicySource {
  const path = resolve(io.cwd, file);
  let isDir = false;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    /* readBytesFile reports it */
  }
  if (isDir) {
    const modules = readdirSync(path)
      .filter((f) => f.endsWith('.rego') && !f.endsWith('_test.rego'))
      .sort()
      .map((f) => ({ name: join(file, f), text: readTextFile(join(path, f)) }));
    if (modules.length === 0) throw new ToolgateError('FILE_UNREADABLE', `${file}: no .rego modules in this folder`, { at: [{ file }] });
    return { kind: 'rego', modules };
  }
  const bytes = readBytesFile(path);
  if (bytes[0] === 0 && bytes[1] === 0x61 && bytes[2] === 0x73 && bytes[3] === 0x6d) return { kind: 'wasm', bytes, name: file };
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return { kind: 'bundle', bytes, name: file };
  return { kind: 'rego', modules: [{ name: file, text: readTextFile(path) }] };
}

export async function loadSignPolicy(
  io: CliIo,
  file: string,
  engine: EngineName | undefined,
  entrypoint = DEFAULT_SIGN_ENTRYPOINT,
  source: PolicySource = policySource(io, file),
): Promise<LoadedPolicy> {
  return loadPolicy(source, { ...(engine !== undefined ? { engine } : {}), entrypoints: [entrypoint], opa: opaRunner(io.env), clock: wallClockNs });
}

/** A JSON document (the data document) as plain values through the strict reader, or a PARSE_ERROR at line:col. */
export function readJsonDocument(text: string, file: string): unknown {
  return parseJsonInput(text, file);
}
