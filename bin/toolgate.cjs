#!/usr/bin/env node
// No V8 flags here: with any V8 flag off its default, Node refuses its own code cache of its
// built-in modules and compiles them at each run (measured: --max-semi-space-size=64 cost ~9 ms of
// every short command, against 5-10% of the CPU of compiling a 200,000-grant estate). To compile
// a very large estate with a larger young generation, run the bin under
// `node --max-semi-space-size=64` (or set it in NODE_OPTIONS).
//
// Runs the CLI bundled from the compiled dist/ (built by `npm run build`, which `npm ci` and
// `npm pack` run as prepare): a handful of files to load instead of a hundred modules. A dist/
// built before the bundle existed still runs, unbundled.
//
// A command with a CommonJS bundle of its own (decide, check-access: see scripts/build.mjs) runs
// from it, compiled with V8's code cache, kept in the cache folder decide's compiled-policy
// certificates use (src/cli/policy-cache.ts): Node 20 caches no code of ES modules, and compiling
// the engine's source is a large part of such a command's start-up.
//
// CommonJS, not an ES module: Node starts a CommonJS entry without its ES-module loader (measured:
// ~3 ms of every run); commands outside a bundle of their own are still imported as ES modules.
// Built-in modules come through process.getBuiltinModule, as when this was an ES module (whose
// import of node:fs read every export and so loaded its streams).
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } = process.getBuiltinModule('node:fs');
const { createRequire } = process.getBuiltinModule('node:module');
const { dirname, isAbsolute, join } = process.getBuiltinModule('node:path');
const { fileURLToPath, pathToFileURL } = process.getBuiltinModule('node:url');
const vm = process.getBuiltinModule('node:vm');

const argv = process.argv.slice(2);
const notFound = (e, file) => e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes(file);

async function esmMain() {
  try {
    return (await import('../dist/cli-bundle/main.js')).main;
  } catch (e) {
    if (!notFound(e, 'dist/cli-bundle/main.js')) throw e;
  }
  try {
    return (await import('../dist/cli/main.js')).main;
  } catch (e) {
    if (!notFound(e, 'dist/cli/main.js')) throw e;
    process.stderr.write("toolgate: dist/ is not built: run 'npm run build' (it needs the dev dependencies)\n");
    process.exit(70);
  }
}

/** The cache folder, as src/cli/policy-cache.ts finds it. */
function cacheFolder(env) {
  if (env.TOOLGATE_CACHE_DIR) return env.TOOLGATE_CACHE_DIR;
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'toolgate');
  if (env.HOME && isAbsolute(env.HOME)) return join(env.HOME, '.cache', 'toolgate');
  return undefined;
}

/** Whether `dir` is this user's and writable by nobody else (a code cache is code: src/cli/policy-cache.ts isPrivateFolder). */
function isPrivateFolder(dir) {
  let st;
  try {
    st = statSync(dir, { throwIfNoEntry: false });
  } catch {
    return false; // a cache path through a file, or a symlink loop: no cache there
  }
  if (st === undefined || !st.isDirectory()) return false;
  if (process.platform === 'win32') return true;
  return (st.mode & 0o022) === 0 && (process.getuid === undefined || st.uid === process.getuid());
}

/** Where this build's code cache of a command's bundle goes for this Node, or undefined for none. */
function codeCacheFile(command, bundle) {
  if (argv.includes('--no-cache')) return undefined;
  const folder = cacheFolder(process.env);
  let build;
  try {
    build = readFileSync(join(dirname(bundle), '..', 'build-id.txt'), 'utf8').trim();
  } catch {
    return undefined;
  }
  if (folder === undefined || !/^[0-9a-f]{64}$/.test(build)) return undefined;
  return join(folder, 'v8', `${command}-${build}-${process.version}-${process.arch}.bin`);
}

/** mkdir -p one level at a time: Node's recursive mkdir never returns under /proc (src/cli/fs-io.ts makeFolders). */
function makeFolders(dir) {
  const missing = [];
  for (let d = dir; statSync(d, { throwIfNoEntry: false }) === undefined; d = dirname(d)) {
    if (dirname(d) === d) break;
    missing.push(d);
  }
  for (const d of missing.reverse()) mkdirSync(d, { mode: 0o700 });
}

/** Writes a code cache into place; other builds' caches of the command not rewritten for 30 days go. */
function storeCodeCache(file, bytes) {
  const dir = dirname(file);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    makeFolders(dir);
    if (!isPrivateFolder(dir)) return;
    writeFileSync(tmp, bytes, { mode: 0o600 });
    renameSync(tmp, file);
    const before = Date.now() - 30 * 86_400_000;
    for (const name of readdirSync(dir)) {
      const st = statSync(join(dir, name), { throwIfNoEntry: false });
      if (st?.isFile() && st.mtimeMs < before) rmSync(join(dir, name), { force: true });
    }
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // a cache path through a file or a loop: nothing was written
    }
  }
}

/** main() of a command's own bundle, and a function that stores its code cache once it has run; undefined without one. */
function commandBundle(command) {
  if (!/^[a-z][a-z-]*$/.test(command ?? '')) return undefined;
  const bundle = fileURLToPath(new URL(`../dist/cli-bundle/${command}.cjs`, pathToFileURL(__filename)));
  let source;
  try {
    source = readFileSync(bundle, 'utf8');
  } catch (e) {
    if (e?.code === 'ENOENT') return undefined;
    throw e;
  }
  const cacheFile = codeCacheFile(command, bundle);
  // the user's cache, else the one the build made for this Node beside the bundle (scripts/build.mjs);
  // --no-cache reads neither
  let cachedData;
  for (const file of [cacheFile && isPrivateFolder(dirname(cacheFile)) ? cacheFile : undefined, bundle.replace(/\.cjs$/, `-${process.version}-${process.arch}.v8`)]) {
    try {
      if (file && !argv.includes('--no-cache')) cachedData = readFileSync(file);
    } catch {
      cachedData = undefined;
    }
    if (cachedData) break;
  }
  // the build writes the bundle as CommonJS's module wrapper (scripts/build.mjs CJS_WRAPPER), so its
  // text is compiled as read; an older one is wrapped here
  const wrapper = '(function (exports, require, module, __filename, __dirname) {';
  const script = new vm.Script(source.startsWith(wrapper) ? source : `${wrapper}${source}\n})`, {
    filename: bundle,
    cachedData,
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  // after the run, so the cache holds the functions the run compiled, not only the top level
  const keep = () => {
    if (cacheFile && (!cachedData || script.cachedDataRejected)) storeCodeCache(cacheFile, script.createCachedData());
  };
  return { main: module.exports.main, keep };
}

/**
 * The CLI's io (src/cli/main.ts defaultIo) for a bundled command, writing with fs.writeSync:
 * creating process.stdout and process.stderr, or asking node:tty whether stderr is a terminal,
 * loads the net and stream machinery (measured: several ms of a decision), and these commands
 * write one small document and draw no progress. A pipe that would block falls back to the stream.
 */
function bundledIo() {
  const writer = (fd, stream) => (text) => {
    const bytes = Buffer.from(text, 'utf8');
    let off = 0;
    try {
      while (off < bytes.length) off += writeSync(fd, bytes, off);
    } catch (e) {
      if (e?.code === 'EAGAIN') stream().write(bytes.subarray(off));
      else if (e?.code !== 'EPIPE') throw e;
    }
  };
  return {
    stdout: writer(1, () => process.stdout),
    stderr: writer(2, () => process.stderr),
    cwd: process.cwd(),
    env: process.env,
    stdin: async () => {
      const chunks = [];
      for await (const c of process.stdin) chunks.push(c);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

async function run() {
  const bundled = commandBundle(argv[0]);
  if (bundled) {
    process.exitCode = await bundled.main(argv, bundledIo());
    bundled.keep();
  } else {
    process.exitCode = await (await esmMain())(argv);
  }
}

// a rejection nothing catches is printed and exits 1, as an ES-module entry's top-level await did
run();
