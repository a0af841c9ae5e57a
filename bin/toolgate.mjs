#!/usr/bin/env -S node --max-semi-space-size=64
// A larger young generation: compiling a large estate allocates many short-lived objects, and
// the default semi-space makes the scavenger run constantly (measured: ~20% of compile time).
// Runs the CLI bundled from the compiled dist/ (built by `npm run build`, which `npm ci` and
// `npm pack` run as prepare): a handful of files to load instead of a hundred modules. A dist/
// built before the bundle existed still runs, unbundled.
const notFound = (e, file) => e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(file);
let main;
try {
  ({ main } = await import('../dist/cli-bundle/main.js'));
} catch (e) {
  if (!notFound(e, 'dist/cli-bundle/main.js')) throw e;
  try {
    ({ main } = await import('../dist/cli/main.js'));
  } catch (e2) {
    if (!notFound(e2, 'dist/cli/main.js')) throw e2;
    process.stderr.write("toolgate: dist/ is not built: run 'npm run build' (it needs the dev dependencies)\n");
    process.exit(70);
  }
}
process.exitCode = await main(process.argv.slice(2));
