// The loader hooks of module-trace.mjs; they run on the loader thread, so they write the file directly.
import { appendFileSync } from 'node:fs';

let out;
export function initialize(data) {
  out = data.out;
}
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(out, `${r.url}\n`);
  return r;
}
