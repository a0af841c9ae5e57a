/**
 * DOT and GraphML renderings of a connectome in its canonical order (reference: beam_mcp
 * docs/connectome-canonical.md, "What the exports are"). They carry kind, level, labels, edge
 * kind, provenance and sign, never a weight; they are not canonical forms and are not hashed.
 * A label value that is not a string is written as its canonical JSON text.
 */
import { ByteSink } from '../canonical/bytes.ts';
import { canonicalString, compareUtf16 } from '../canonical/json.ts';
import { ToolgateError } from '../errors.ts';
import { checkGraph, type Graph, type GraphInput, type LabelValue } from './graph.ts';
import { nfc } from './strings.ts';

/** Label entries of a node in rule-4 order, keys NFC, values as text. */
function labelEntries(labels: { readonly [k: string]: LabelValue }): [string, string][] {
  const out: [string, string][] = [];
  for (const k of Object.keys(labels)) {
    const v = labels[k]!;
    out.push([nfc(k), typeof v === 'string' ? nfc(v) : canonicalString(v)]);
  }
  return out.sort((a, b) => compareUtf16(a[0], b[0]));
}

// Most ids and values hold neither a quote nor a backslash: those are only put between quotes.
const DOT_SPECIAL = /["\\]/;

function dotQuote(s: string): string {
  return DOT_SPECIAL.test(s) ? `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"` : `"${s}"`;
}

/** Graphviz DOT text. Every id, value and label attribute name is quoted. */
export function toDot(graph: Graph | GraphInput): string {
  const g = checkGraph(graph);
  // Lines are joined a few hundred at a time: every line kept to the end (each a tree of string
  // pieces) cost the young-generation GC more than the rest of the rendering.
  const chunks: string[] = [];
  let lines: string[] = ['digraph connectome {'];
  const add = (line: string): void => {
    if (lines.push(line) >= 512) {
      chunks.push(lines.join('\n'));
      lines = [];
    }
  };
  for (const n of g.nodes) {
    let attrs = `kind=${dotQuote(n.kind)}, level=${dotQuote(n.level)}`;
    for (const [k, v] of labelEntries(n.labels)) attrs += `, ${dotQuote(`label_${k}`)}=${dotQuote(v)}`;
    add(`  ${dotQuote(n.id)} [${attrs}];`);
  }
  for (const e of g.edges) {
    add(`  ${dotQuote(e.from)} -> ${dotQuote(e.to)} [kind=${dotQuote(e.kind)}, provenance=${dotQuote(e.provenance)}, sign=${dotQuote(e.sign)}];`);
  }
  lines.push('}', '');
  chunks.push(lines.join('\n'));
  return chunks.join('\n');
}

// XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/;

const XML_SPECIAL = /[&<>"\t\n\r]/g;

/** `s` as XML character data or attribute text; `where` names it in the refusal of a character XML 1.0 cannot carry. */
function xmlText(s: string, where: () => string): string {
  const bad = NOT_XML.exec(s);
  if (bad) {
    const cp = bad[0].codePointAt(0)!;
    throw new ToolgateError('EXPORT_REFUSED', `${where()}: U+${cp.toString(16).toUpperCase().padStart(4, '0')} is not an XML 1.0 character; GraphML cannot carry it`, {
      at: [{ file: '<graph>', path: where() }],
    });
  }
  if (s.search(XML_SPECIAL) < 0) return s;
  return s.replace(XML_SPECIAL, (c) => {
    switch (c) {
      case '&': return '&amp;';
      case '<': return '&lt;';
      case '>': return '&gt;';
      case '"': return '&quot;';
      case '\t': return '&#9;';
      case '\n': return '&#10;';
      default: return '&#13;';
    }
  });
}

/** GraphML text. Label keys are declared `l0`, `l1`, ... in rule-4 order with `attr.name` carrying the key. */
export function toGraphML(graph: Graph | GraphInput): string {
  return new TextDecoder().decode(toGraphMLBytes(graph));
}

/** The UTF-8 bytes of `toGraphML`, as they are written (a file needs no text in between). */
export function toGraphMLBytes(graph: Graph | GraphInput): Uint8Array {
  const g = checkGraph(graph);
  const perNode = g.nodes.map((n) => labelEntries(n.labels));
  const keySet = new Set<string>();
  for (const entries of perNode) for (const [k] of entries) keySet.add(k);
  const keys = [...keySet].sort(compareUtf16);
  const keyId = new Map(keys.map((k, i) => [k, `l${i}`]));
  const sink = new ByteSink();
  const out: string[] = [];
  const flush = (): void => {
    if (out.length > 512) {
      sink.write(out.join(''));
      out.length = 0;
    }
  };
  out.push('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n');
  out.push('  <key id="kind" for="node" attr.name="kind" attr.type="string"/>\n');
  out.push('  <key id="level" for="node" attr.name="level" attr.type="string"/>\n');
  for (const k of keys) out.push(`  <key id="${keyId.get(k)!}" for="node" attr.name="${xmlText(k, () => `label key ${JSON.stringify(k)}`)}" attr.type="string"/>\n`);
  out.push('  <key id="ekind" for="edge" attr.name="kind" attr.type="string"/>\n');
  out.push('  <key id="provenance" for="edge" attr.name="provenance" attr.type="string"/>\n');
  out.push('  <key id="sign" for="edge" attr.name="sign" attr.type="string"/>\n');
  out.push('  <graph id="connectome" edgedefault="directed">\n');
  g.nodes.forEach((n, i) => {
    const where = () => `node ${JSON.stringify(n.id)}`;
    out.push(`    <node id="${xmlText(n.id, where)}">\n      <data key="kind">${n.kind}</data>\n      <data key="level">${n.level}</data>\n`);
    for (const [k, v] of perNode[i]!) out.push(`      <data key="${keyId.get(k)!}">${xmlText(v, () => `${where()} label ${JSON.stringify(k)}`)}</data>\n`);
    out.push('    </node>\n');
    flush();
  });
  for (const e of g.edges) {
    const where = () => `edge ${JSON.stringify(e.from)} -> ${JSON.stringify(e.to)}`;
    out.push(
      `    <edge source="${xmlText(e.from, where)}" target="${xmlText(e.to, where)}">\n      <data key="ekind">${e.kind}</data>\n      <data key="provenance">${e.provenance}</data>\n      <data key="sign">${e.sign}</data>\n    </edge>\n`,
    );
    flush();
  }
  out.push('  </graph>\n</graphml>\n');
  sink.write(out.join(''));
  return sink.bytes();
}
