/**
 * The path tests and benches spawn as the `toolgate` process: the dev entry, which runs the current
 * src/ through tsx. Spawning bin/toolgate.cjs instead would run dist/, which may be stale or being
 * rebuilt by someone else; the package test covers the compiled bin.
 */
import { fileURLToPath } from 'node:url';

export const TOOLGATE = fileURLToPath(new URL('./toolgate-dev.mjs', import.meta.url));
