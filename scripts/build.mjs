#!/usr/bin/env node
// Builds dist/ (compiled JS + .d.ts) from src/ with tsc, plus the non-TS files the code reads at
// run time and the JSON Schema validators generated ahead of time. npm runs it as `prepare`, so
// `npm ci` on a clone and `npm pack` both build.
//
// The build goes to a private folder and is swapped into place, so a concurrent build or a
// process running dist/ never sees a half-written tree.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

class BuildFailed extends Error {
  constructor(status) {
    super(`tsc exited ${status}`);
    this.status = status;
  }
}

const root = fileURLToPath(new URL('..', import.meta.url));
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const dist = join(root, 'dist');

if (!existsSync(tsc)) {
  // `npm ci --omit=dev` on a clone: the compiler is a dev dependency. Do not fail the install; the
  // bin says what to do if it is run without dist/.
  process.stderr.write('toolgate build: typescript is not installed (dev dependencies omitted), so dist/ was not built\n');
  process.exit(0);
}

const work = join(root, '.tmp', `build-${process.pid}`);
const staged = join(work, 'dist');
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
try {
  const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', staged], { stdio: 'inherit' });
  if (r.status !== 0) throw new BuildFailed(r.status ?? 1);

  // Run-time assets under src/ (the vendored OPA capabilities): same relative place in dist/.
  for (const file of assetsUnder(join(root, 'src'))) {
    const to = join(staged, relative(join(root, 'src'), file));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(file, to);
  }

  // The JSON Schema validators as ajv standalone code, so a run loads them instead of compiling.
  const { standaloneValidatorsSource, PRECOMPILED_FILE, SCHEMA_FILES } = await import(pathToFileURL(join(staged, 'parse', 'schema-validators.js')).href);
  const schemas = Object.fromEntries(SCHEMA_FILES.map((name) => [name, JSON.parse(readFileSync(join(root, 'schemas', name), 'utf8'))]));
  writeFileSync(join(staged, 'parse', PRECOMPILED_FILE), standaloneValidatorsSource(schemas));

  swapInto(staged, dist, join(work, 'previous'));
} catch (e) {
  if (!(e instanceof BuildFailed)) throw e;
  process.exitCode = e.status;
} finally {
  rmSync(work, { recursive: true, force: true });
}

function* assetsUnder(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* assetsUnder(p);
    else if (e.name.endsWith('.json')) yield p;
  }
}

/** Moves the old tree aside and the new one in; retried while another build swaps at the same moment. */
function swapInto(from, to, aside) {
  for (let attempt = 0; ; attempt++) {
    try {
      if (existsSync(to)) renameSync(to, aside);
    } catch (e) {
      if (e.code !== 'ENOENT') throw e;
    }
    try {
      renameSync(from, to);
      return;
    } catch (e) {
      if ((e.code !== 'ENOTEMPTY' && e.code !== 'EEXIST') || attempt > 20) throw e;
      rmSync(aside, { recursive: true, force: true });
    }
  }
}
