// Preloaded with `node --import` to record every module a process loads, for the start-up tests:
// ES modules through a resolve hook (each resolved URL is appended to $TOOLGATE_MODULE_TRACE), and
// CommonJS modules from require's cache when the process exits.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const out = process.env.TOOLGATE_MODULE_TRACE;
if (out) {
  register(new URL('./module-trace-hooks.mjs', import.meta.url), { data: { out } });
  const require = createRequire(import.meta.url);
  process.on('exit', () => appendFileSync(out, Object.keys(require.cache).map((f) => `${pathToFileURL(f).href}\n`).join('')));
}
