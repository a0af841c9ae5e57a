#!/usr/bin/env node
// Builds dist/ (compiled JS + .d.ts) from src/ with tsc, plus the non-TS files the code reads at
// run time, the JSON Schema validators generated ahead of time, and the CLI bundled for the bin.
// npm runs it as `prepare`, so `npm ci` on a clone and `npm pack` both build.
//
// The build goes to a private folder and is swapped into place, so a concurrent build or a
// process running dist/ never sees a half-written tree.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
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
/** Where, inside dist/, the bundled CLI goes (bin/toolgate.cjs runs it). */
const BUNDLE_FOLDER = 'cli-bundle';
/** The commands bin/toolgate.cjs runs from a CommonJS bundle of their own, and the name its banner gives its URL. */
const COMMAND_BUNDLES = ['decide', 'check-access'];
const BUNDLE_URL = '__toolgateBundleUrl';
/**
 * A command's bundle is written as the function CommonJS wraps a module in, so the bin compiles
 * the file's text as it is read: wrapping it at each run would copy the whole source once more, in
 * time and heap, on every decide. bin/toolgate.cjs relies on this prefix.
 */
const CJS_WRAPPER = ['(function (exports, require, module, __filename, __dirname) {', '\n})'];

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

  await bundleCli(staged);
  writeFileSync(join(staged, 'build-id.txt'), `${buildDigest(staged)}\n`);
  shipCodeCaches(work, staged);

  swapInto(staged, dist, join(work, 'previous'));
} catch (e) {
  if (!(e instanceof BuildFailed)) throw e;
  process.exitCode = e.status;
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * The CLI as bin/toolgate.cjs runs it, bundled from the compiled tree into dist/cli-bundle/: a run
 * then reads a handful of files instead of resolving and loading a hundred modules one by one
 * (measured: most of a short command's start-up). Each command stays a chunk of its own, loaded
 * only when it runs; packages under node_modules stay outside the bundle. The library (dist/index.js)
 * is not bundled.
 *
 * `decide` and `check-access` (the commands a CI gate runs per call) also get a CommonJS bundle
 * each (decide.cjs, check-access.cjs), which the bin compiles with V8's code cache: Node 20 has no
 * code cache for ES modules, and compiling the Rego engine's or the estate loader's source is a
 * large part of their start-up. Other commands stay outside such a bundle (never run through it).
 */
async function bundleCli(tree) {
  const { build } = await import('esbuild');
  const outdir = join(tree, BUNDLE_FOLDER);
  const families = await builtinFamilies(tree);
  const common = { bundle: true, platform: 'node', target: 'node20', packages: 'external', legalComments: 'none', logLevel: 'warning' };
  await build({
    ...common,
    entryPoints: { main: join(tree, 'cli', 'main.js') },
    outdir,
    splitting: true,
    format: 'esm',
    chunkNames: 'chunk-[hash]',
    plugins: [builtinsOnFirstUse(tree, families), sourceLocationsKept(tree, outdir, 'import.meta.url')],
  });
  for (const command of COMMAND_BUNDLES) {
    await build({
      ...common,
      entryPoints: [join(tree, 'cli', 'main.js')],
      outfile: join(outdir, `${command}.cjs`),
      format: 'cjs',
      // less source to read and hash at each run; names are kept, so messages and traces read the same
      minifyWhitespace: true,
      minifySyntax: true,
      banner: { js: `${CJS_WRAPPER[0]}var ${BUNDLE_URL} = require('node:url').pathToFileURL(__filename).href;` },
      footer: { js: CJS_WRAPPER[1] },
      plugins: [otherCommandsOutside(tree, outdir, command), builtinsOnFirstUse(tree, families), capabilitiesInline(tree), sourceLocationsKept(tree, outdir, BUNDLE_URL)],
    });
  }
}

/** The builtin family files, in the order rego/builtins/index.js imports them. */
function familyFiles(tree) {
  const index = readFileSync(join(tree, 'rego', 'builtins', 'index.js'), 'utf8');
  return [...index.matchAll(/^import '\.\/([a-z0-9-]+\.js)';$/gm)].map((m) => m[1]);
}

/**
 * Each builtin family file with the names it registers, found by importing the compiled families
 * in index order and reading the registry after each (a family another imports is counted where
 * it is first imported), so the bundles declare exactly the names the unbundled tree registers.
 */
async function builtinFamilies(tree) {
  const dir = join(tree, 'rego', 'builtins');
  const { builtinNames } = await import(pathToFileURL(join(dir, 'registry.js')).href);
  const families = [];
  let before = new Set(builtinNames());
  for (const file of familyFiles(tree)) {
    await import(pathToFileURL(join(dir, file)).href);
    const now = builtinNames();
    families.push({ file, names: now.filter((n) => !before.has(n)) });
    before = new Set(now);
  }
  return families;
}

/**
 * In the bundles, rego/builtins/index.js declares each family's names with a loader instead of
 * importing every family (src/rego/builtins/registry.ts registerFamilyLoader): a family's code
 * runs on the first lookup of one of its names, so a decision loads only the families its policy
 * calls (node:crypto and the certificate code only for a policy calling them). The unbundled tree
 * keeps the plain imports, which is the same registry once every family is loaded.
 */
function builtinsOnFirstUse(tree, families) {
  const index = join(tree, 'rego', 'builtins', 'index.js');
  const lines = families.filter((f) => f.names.length > 0).map((f) => `registerFamilyLoader(${JSON.stringify(f.names)}, () => require(${JSON.stringify(`./${f.file}`)}));`);
  const contents = `import { registerFamilyLoader } from './registry.js';\n${lines.join('\n')}\n`;
  return {
    name: 'builtins-on-first-use',
    setup(b) {
      b.onLoad({ filter: /[\\/]rego[\\/]builtins[\\/]index\.js$/ }, (args) => (args.path === index ? { contents, loader: 'js', resolveDir: dirname(index) } : undefined));
    },
  };
}

/**
 * In a CommonJS bundle, the vendored OPA capabilities the type checker reads (the builtins'
 * declarations) are a string in the bundle, parsed on first use, instead of a JSON file required
 * beside it: requiring it resolves and loads a module (measured: under 1 ms of a warm decide), and the
 * string comes with the bundle's code cache. The JSON is the same file, so the capabilities are too.
 */
function capabilitiesInline(tree) {
  const file = join(tree, 'rego', 'builtins', 'capabilities.js');
  const load = "createRequire(import.meta.url)('./opa-capabilities.json')";
  return {
    name: 'capabilities-inline',
    setup(b) {
      b.onLoad({ filter: /[\\/]rego[\\/]builtins[\\/]capabilities\.js$/ }, (args) => {
        if (args.path !== file) return undefined;
        const text = readFileSync(file, 'utf8');
        if (!text.includes(load)) throw new Error(`${file}: no ${load} to inline`);
        const json = JSON.stringify(JSON.parse(readFileSync(join(dirname(file), 'opa-capabilities.json'), 'utf8')));
        return { contents: text.replace(load, `JSON.parse(${JSON.stringify(json)})`), loader: 'js' };
      });
    },
  };
}

/** In a command's bundle, every other command is imported at run time from the compiled tree. */
function otherCommandsOutside(tree, outdir, command) {
  return {
    name: 'other-commands-outside',
    setup(b) {
      b.onResolve({ filter: /^\.\/commands\/.*\.js$/ }, (args) => {
        const file = join(args.resolveDir, args.path);
        if (relative(tree, file) === join('cli', 'commands', `${command}.js`)) return undefined;
        return { path: relative(outdir, file).split(sep).join('/').replace(/^(?!\.)/, './'), external: true };
      });
    },
  };
}

/**
 * Code that finds files beside itself (the vendored OPA capabilities, the shipped Rego, the
 * precompiled validators, packages through createRequire) uses import.meta.url; in a bundle that
 * URL would name the bundle. Each use is rewritten to the URL of the compiled file it came from,
 * relative to the bundle folder (`base` is the bundle's own URL), so the bundle finds what the
 * unbundled tree finds.
 */
function sourceLocationsKept(tree, outdir, base) {
  return {
    name: 'source-locations-kept',
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, (args) => {
        if (relative(tree, args.path).startsWith('..')) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
        const from = relative(outdir, args.path).split(sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(from)}, ${base}).href`), loader: 'js' };
      });
    },
  };
}

/**
 * V8 code caches of the command bundles for the Node that builds (the one `npm ci` runs on this
 * machine), so that even the first run of decide or check-access finds its engine compiled. Each is
 * made by running the bin (with the V8 flags it runs with: none) on the staged tree with a private cache folder: a compile of the
 * quickstart, two decides on its bundle (the first compiling every module, as a first decide
 * does; the second from its certificate, as every later one) and a check-access; the caches it writes are moved into the bundle folder as
 * `<command>-<node version>-<arch>.v8`. V8 refuses a cache made by another Node, and the bin then
 * compiles as without one. Best effort: a step that fails only costs the first run its cache.
 */
function shipCodeCaches(work, tree) {
  const bin = join(work, 'bin', 'toolgate.cjs');
  mkdirSync(dirname(bin), { recursive: true });
  cpSync(join(root, 'bin', 'toolgate.cjs'), bin);
  // what the compiled code reads beside dist/ (its version, the shipped Rego, the examples, schemas)
  for (const name of ['package.json', 'rego', 'examples', 'schemas']) symlinkSync(join(root, name), join(work, name));
  const cache = join(work, 'code-cache');
  const out = join(work, 'quickstart');
  mkdirSync(cache, { recursive: true, mode: 0o700 });
  const env = { PATH: process.env.PATH ?? '', TOOLGATE_CACHE_DIR: cache, SOURCE_DATE_EPOCH: '0' };
  const run = (...args) => spawnSync(process.execPath, [bin, ...args], { cwd: root, env, stdio: process.env.TOOLGATE_BUILD_DEBUG ? 'inherit' : 'ignore', timeout: 120_000 }).status === 0;
  const v8 = join(cache, 'v8');
  const made = (command) => readdirSync(v8).find((f) => f.startsWith(`${command}-`) && f.endsWith(`-${process.version}-${process.arch}.bin`));
  const decide = () => run('decide', 'ci-bot', 'git::git_show', '--bundle', join(out, 'bundle.tar.gz'));
  // The first decide compiles every module and records their certificate; the cache shipped is a
  // second run's, which compiles only what the decision reaches (measured: ~2 ms off each later
  // decision, against a first one that then compiles the rest of the engine without a cache). The
  // second run reads the tarball, as a user's first decide on a bundle does (the first run's record
  // of its bundle-view miss is dropped: see src/bundle/decider.ts); the few functions reading a
  // view compile when a later decide uses them (a cache made from such a run instead was measured:
  // the same for those, 1-2 ms more for every first decide on a bundle).
  const dropDecideCache = () => {
    const first = made('decide');
    if (first) rmSync(join(v8, first));
    rmSync(join(cache, 'bundles'), { recursive: true, force: true });
    return true;
  };
  const ok = run('compile', '--example', 'quickstart', '--out', out) && decide() && dropDecideCache() && decide() && run('check-access', 'ci-bot', 'git::git_show', '--example', 'quickstart');
  if (!ok) {
    process.stderr.write('toolgate build: the code-cache runs failed; the first decide and check-access will compile their bundles\n');
    return;
  }
  for (const command of COMMAND_BUNDLES) {
    const file = made(command);
    if (file) renameSync(join(v8, file), join(tree, BUNDLE_FOLDER, `${command}-${process.version}-${process.arch}.v8`));
  }
  // The certificate of the Rego every bundle compiled without --signs carries (keyed on this
  // build's digest, written before): a user's first decide on such a bundle is then warm too.
  const certificates = join(tree, 'policy-certificates');
  mkdirSync(certificates, { recursive: true });
  for (const name of readdirSync(join(cache, 'policy')).filter((f) => f.endsWith('.json'))) cpSync(join(cache, 'policy', name), join(certificates, name));
}

/**
 * A digest of every file the build wrote: a run's caches (decide's compiled-policy certificates)
 * are keyed on it, so no entry made by one build is trusted by another.
 */
function buildDigest(tree) {
  const h = createHash('sha256');
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else h.update(`${relative(tree, p)}\0`).update(readFileSync(p)).update('\0');
    }
  };
  walk(tree);
  return h.digest('hex');
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
