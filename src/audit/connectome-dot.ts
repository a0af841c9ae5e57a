/**
 * The declared connectome (src/connectome, `buildDeclaredConnectome`) as DOT for the HTML report,
 * each edge coloured by its sign: allow green, deny red, hold orange, ungoverned purple (dashed),
 * unset grey. toolgate itself only writes `unset`; other signs come from a consumer's sign policy.
 * Each edge carries the SVG class `sign_<sign>` (Graphviz escapes a hyphen in a class). The whole
 * graph is drawn: callers check its size against MAX_PICTURE_NODES first.
 */
import type { Graph } from '../connectome/index.ts';
import { attrs, q } from './dot.ts';

export const SIGN_COLOURS: Readonly<Record<string, string>> = {
  allow: '#2e7d32',
  deny: '#d32f2f',
  hold: '#ef8f00',
  ungoverned: '#7b1fa2',
  unset: '#9e9e9e',
};

const SHAPES: Readonly<Record<string, string>> = {
  server: 'box3d',
  tool: 'ellipse',
  resource: 'note',
  resource_template: 'tab',
  prompt: 'component',
  process: 'box',
  module: 'folder',
};

function labelOf(n: Graph['nodes'][number]): string {
  const name = n.labels.name;
  return typeof name === 'string' ? `${n.kind}: ${name}` : n.id;
}

export function connectomeDot(graph: Graph): { dot: string; signs: Record<string, number> } {
  const signs: Record<string, number> = {};
  const lines = ['digraph connectome {', '  graph [rankdir=LR, bgcolor="white", fontname="Helvetica"];', '  node [fontname="Helvetica", fontsize=10, style=filled, fillcolor="#f7f7f7"];'];
  for (const n of graph.nodes) {
    lines.push(`  ${q(n.id)}${attrs({ label: labelOf(n), shape: SHAPES[n.kind] ?? 'ellipse', class: `node_${n.kind}` })};`);
  }
  for (const e of graph.edges) {
    signs[e.sign] = (signs[e.sign] ?? 0) + 1;
    const color = SIGN_COLOURS[e.sign] ?? '#000000';
    lines.push(`  ${q(e.from)} -> ${q(e.to)}${attrs({ label: `${e.kind} (${e.sign})`, color, fontcolor: color, style: e.sign === 'ungoverned' ? 'dashed' : 'solid', class: `sign_${e.sign}` })};`);
  }
  lines.push('}', '');
  return { dot: lines.join('\n'), signs };
}
