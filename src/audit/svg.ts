/**
 * DOT -> SVG in-process with Graphviz compiled to WebAssembly (@viz-js/viz): no `dot` binary,
 * no network. The SVG comes back without its XML prolog and doctype so it can be inlined.
 */
import type { Viz } from '@viz-js/viz';
import { ToolgateError } from '../errors.ts';

let viz: Promise<Viz> | undefined;

export async function renderSvg(dot: string, name: string): Promise<string> {
  // Loaded on the first picture only: a large estate's report draws none and never pays for it.
  viz ??= import('@viz-js/viz').then((m) => m.instance());
  const r = (await viz).render(dot, { format: 'svg' });
  if (r.status !== 'success') {
    throw new ToolgateError('EXPORT_REFUSED', `the ${name} picture could not be laid out: ${r.errors.map((e) => e.message).join('; ')}`);
  }
  return r.output.replace(/^<\?xml[^>]*>\s*/, '').replace(/<!DOCTYPE[^>]*>\s*/, '').replace(/<!--[\s\S]*?-->\s*/g, '');
}
