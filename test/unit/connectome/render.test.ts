/** DOT and GraphML text: what each escapes, and the GraphML refusal of a character XML 1.0 cannot carry. */
import { describe, it, expect } from 'vitest';
import { buildGraph, edgeOf, nodeFromIdentity, toDot, toGraphML } from '../../../src/connectome/index.ts';

const server = nodeFromIdentity({ tag: 'server', server: 's' });
const tool = (name: string, title?: string) => nodeFromIdentity({ tag: 'tool', server: 's', name }, { name, ...(title !== undefined ? { title } : {}) });
const graphOf = (t: ReturnType<typeof tool>) => buildGraph({ nodes: [server, t], edges: [edgeOf(server.id, t.id, 'invoke')] });

describe('toDot', () => {
  it('quotes every id and value, escaping only quotes and backslashes', () => {
    const dot = toDot(graphOf(tool('a"b\\c', 'plain')));
    expect(dot).toContain(`"label_name"="a\\"b\\\\c"`);
    expect(dot).toContain(`"label_title"="plain"`);
    expect(toDot(graphOf(tool('t')))).toContain(`  "${server.id}" -> "${tool('t').id}" [kind="invoke", provenance="declared", sign="unset"];`);
  });
});

describe('toGraphML', () => {
  it('escapes markup, quotes and line breaks, and leaves other text as it is', () => {
    const xml = toGraphML(graphOf(tool('t', 'a & <b> "c"\td\ne\r')));
    expect(xml).toContain('>a &amp; &lt;b&gt; &quot;c&quot;&#9;d&#10;e&#13;</data>');
    expect(xml).toContain('>t</data>');
  });
  it('refuses a character XML 1.0 cannot carry, naming the node and label', () => {
    const t = tool('t', 'bell\u0007');
    expect(() => toGraphML(graphOf(t))).toThrowError(expect.objectContaining({ code: 'EXPORT_REFUSED', message: `node ${JSON.stringify(t.id)} label "title": U+0007 is not an XML 1.0 character; GraphML cannot carry it` }));
  });
});
