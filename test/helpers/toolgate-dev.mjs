#!/usr/bin/env -S node --max-semi-space-size=64
// The CLI run from the TypeScript sources through tsx, for tests and benches that spawn toolgate as
// a process: they exercise the current src/ with no build step, and never a stale or half-swapped
// dist/ that another checkout user's build is replacing. bin/toolgate.mjs is the same CLI compiled.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
