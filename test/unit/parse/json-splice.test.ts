/** A JSON text read from its previous version reads as the whole text does, faults included, and shares what an edit left alone. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseText } from '../../../src/parse/document.ts';

function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (e) {
    return { error: `${(e as { code?: string }).code} ${(e as Error).message} ${JSON.stringify((e as { at?: unknown }).at)}` };
  }
}

const full = (text: string) => outcome(() => parseText('c.json', text).value);
const spliced = (before: string, text: string) => outcome(() => parseText('c.json', text, 'json', { previousJson: { text: before, value: parseText('c.json', before).value } }).value);

/** Every value's text span in a JSON text written by JSON.stringify, found by reading the text with a tiny parser. */
function valueSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let i = 0;
  const ws = () => {
    while (/\s/.test(text[i] ?? '')) i++;
  };
  const value = (): void => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      while (text[i] !== close) {
        if (c === '{') {
          value(); // the key, a string
          ws();
          i++; // ':'
        }
        value();
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (c === '"') {
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      i++;
    } else while (i < text.length && !/[\s,\]}]/.test(text[i]!)) i++;
    spans.push([start, i]);
  };
  value();
  return spans;
}

const json = fc.jsonValue({ maxDepth: 4 });
const indent = fc.constantFrom(0, 1, 2);

describe('spliced JSON reads', () => {
  it('equal a full read when a value is replaced by another', () => {
    fc.assert(
      fc.property(json, indent, fc.nat(), json, indent, (v, n, pick, w, m) => {
        const before = JSON.stringify(v, null, n);
        const spans = valueSpans(before);
        const [s, e] = spans[pick % spans.length]!;
        const text = before.slice(0, s) + JSON.stringify(w, null, m) + before.slice(e);
        expect(spliced(before, text)).toEqual(full(text));
      }),
      { numRuns: 400 },
    );
  });

  it('equal a full read, fault for fault, after any edit of the characters', () => {
    const piece = fc.stringMatching(/^[\s"\\{}[\]:,0-9a-z.eE+-]{0,6}$/);
    fc.assert(
      fc.property(json, indent, fc.nat(), fc.nat(8), piece, (v, n, at, cut, insert) => {
        const before = JSON.stringify(v, null, n);
        const s = at % (before.length + 1);
        const text = before.slice(0, s) + insert + before.slice(Math.min(before.length, s + cut));
        expect(spliced(before, text)).toEqual(full(text));
      }),
      { numRuns: 600 },
    );
  });

  it('refuses what a full read refuses, at the same place: a repeated key, a deep nest, an unsafe integer, a lone surrogate, keys one after NFC', () => {
    const before = JSON.stringify({ servers: [{ name: 'a', tools: [{ name: 't', x: 1 }] }, { name: 'b', tools: [] }] }, null, 2);
    for (const [from, to] of [
      ['"x": 1', '"x": 1, "x": 2'],
      ['"x": 1', `"x": ${'['.repeat(200)}${']'.repeat(200)}`],
      ['"x": 1', '"x": 12345678901234567890'],
      ['"x": 1', '"x": "\\ud800"'],
      ['"x": 1', '"\u00e9": 1, "e\u0301": 2'],
    ] as const) {
      const text = before.replace(from, to);
      const read = spliced(before, text);
      expect(read).toEqual(full(text));
      expect(read).toHaveProperty('error');
    }
  });

  it('keeps every member an edit left alone as the very object read before', () => {
    const catalog = { servers: Array.from({ length: 20 }, (_, s) => ({ name: `srv-${s}`, tools: Array.from({ length: 10 }, (_, t) => ({ name: `tool_${t}`, description: `Tool ${t} of server ${s}:` })) })) };
    const before = JSON.stringify(catalog, null, 2);
    const previous = parseText('c.json', before).value as typeof catalog;
    const text = before.replace('Tool 3 of server 5:', 'Tool 3 of server 5 (now also archives):');
    const next = parseText('c.json', text, 'json', { previousJson: { text: before, value: previous } }).value as typeof catalog;
    expect(next).toEqual(parseText('c.json', text).value);
    expect(next.servers.filter((s, i) => s === previous.servers[i]).length).toBe(19);
    expect(next.servers[5]!.tools.filter((t, i) => t === previous.servers[5]!.tools[i]).length).toBe(9);
  });
});
