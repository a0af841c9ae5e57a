/**
 * Assembles test/fixtures/wasm/opa-abi-fixture.wat with wabt: an OPA Wasm ABI fixture (not a
 * compiled Rego policy) that lets the `wasm` engine's loader, data, input and result handling run
 * where no `opa` binary is installed.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabtInit from 'wabt';

export const FIXTURE_WAT = fileURLToPath(new URL('../../fixtures/wasm/opa-abi-fixture.wat', import.meta.url));

let cached: Uint8Array | undefined;

export async function abiFixtureWasm(): Promise<Uint8Array> {
  if (cached) return cached;
  const wabt = await wabtInit();
  const mod = wabt.parseWat('opa-abi-fixture.wat', readFileSync(FIXTURE_WAT, 'utf8'));
  try {
    mod.validate();
    cached = new Uint8Array(mod.toBinary({}).buffer);
  } finally {
    mod.destroy();
  }
  return cached;
}
