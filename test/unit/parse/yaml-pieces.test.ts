/** Block YAML read in pieces gives what one whole parse gives: the same value, the same error, the same place. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseText, type ParsedDocument } from '../../../src/parse/document.ts';
import { planPieces, withoutOneItem, type PieceCache } from '../../../src/parse/yaml-pieces.ts';

/** An item of a sequence, written in one of the styles a manifest uses. */
const item: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.nat(30), fc.nat(9)).map(([a, t]) => `  - {agent: agent-${a}, tool: "srv-${t}::tool_${a % 7}"}\n`),
  fc.tuple(fc.nat(30), fc.nat(9)).map(([a, t]) => `  - agent: agent-${a}\n    tool: srv-${t}::tool_${a}\n`),
  fc.nat(50).map((a) => `  - agent-${a}\n`),
  fc.nat(50).map((a) => `  # a note on ${a}\n  - "quoted \\n  - not an item ${a}"\n`),
  fc.nat(50).map((a) => `  - reason: |\n      first line ${a}\n      - a dash inside the scalar\n    agent: agent-${a}\n`),
  fc.nat(50).map((a) => `  - reason: a plain scalar\n      that goes on ${a}\n`),
  fc.constant('\n'),
);

const section = (key: string) => fc.array(item, { minLength: 0, maxLength: 200 }).map((items) => `${key}:\n${items.join('') || '  []\n'}`);

const documentText = fc
  .tuple(section('agents'), section('grants'), fc.constantFrom('', 'instance_id: tg-1\n', '# a comment at the top\n'), fc.constantFrom('', 'governed_by:\n  "res://a": [p1]\n'))
  .map(([a, g, head, tail]) => `${head}${a}${g}${tail}`);

type Outcome = { value: unknown } | { error: string };

function outcome(read: () => ParsedDocument): Outcome {
  try {
    return { value: read().value };
  } catch (e) {
    const err = e as Error & { code?: string; at?: unknown };
    return { error: `${err.code ?? ''} ${err.message} ${JSON.stringify(err.at)}` };
  }
}

function cacheOf(doc: ParsedDocument): PieceCache {
  return new Map((doc.pieces ?? []).flatMap((p) => (p.json !== undefined ? [[p.digest, p.json] as const] : [])));
}

/** An edit of the text: a line replaced, inserted or removed, possibly breaking the document. */
const edit = fc.tuple(fc.nat(10_000), fc.constantFrom('  - {agent: agent-99, tool: "srv-1::tool_1"}\n', '  - broken: [\n', 'grants:\n', '  - *alias\n', '', '  -\ttab\n'), fc.boolean());

function applyEdit(text: string, [at, line, replace]: [number, string, boolean]): string {
  const lines = text.split(/(?<=\n)/);
  const i = at % (lines.length + 1);
  lines.splice(i, replace ? 1 : 0, line);
  return lines.join('');
}

describe('reading block YAML in pieces', () => {
  it('gives the value or the error of a whole parse, before and after any edits, from any cache', () => {
    fc.assert(
      fc.property(documentText, fc.array(edit, { maxLength: 4 }), (text, edits) => {
        let cache: PieceCache = new Map();
        for (const t of [text, ...edits.reduce<string[]>((acc, e) => [...acc, applyEdit(acc.at(-1) ?? text, e)], [])]) {
          const whole = outcome(() => parseText('m.yaml', t, 'yaml'));
          let doc: ParsedDocument | undefined;
          const inPieces = outcome(() => (doc = parseText('m.yaml', t, 'yaml', { pieces: cache })));
          expect(inPieces).toEqual(whole);
          if (doc) cache = new Map([...cache, ...cacheOf(doc)]);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('parses again only the run of items an edit touched', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => `  - {agent: agent-${i % 50}, tool: "srv-${i % 13}::tool_${i}"}\n`);
    const text = `agents:\n  - agent-0\ngrants:\n${items.join('')}`;
    const first = parseText('m.yaml', text, 'yaml', { pieces: new Map() });
    expect(first.pieces!.length).toBeGreaterThan(4);
    const edited = text.replace('tool: "srv-7::tool_12500"', 'tool: "srv-8::tool_12500"');
    const plan = planPieces(edited, cacheOf(first))!;
    expect(plan.mostlyCached).toBe(true);
    expect(plan.pieces.filter((p) => p.json === undefined)).toHaveLength(1);
    const next = parseText('m.yaml', edited, 'yaml', { pieces: cacheOf(first) });
    expect(next.value).toEqual(parseText('m.yaml', edited, 'yaml').value);
    // The runs the edit left alone are the values read before, not parsed again from their JSON.
    const grants = (d: ParsedDocument) => (d.value as { grants: unknown[] }).grants;
    expect(grants(next)[0]).toBe(grants(first)[0]);
    expect(grants(next)[19_999]).toBe(grants(first)[19_999]);
    expect(grants(next)[12_500]).not.toBe(grants(first)[12_500]);
  });

  it('keeps no JSON of a piece holding what JSON cannot write (a negative zero), and refuses .inf and .nan as a whole parse does', () => {
    const text = (v: string) => `agents:\n  - agent-0\nweights:\n  w: ${v}\n`;
    for (const v of ['-0', '-0.0', '-.0']) {
      const doc = parseText('m.yaml', text(v), 'yaml', { pieces: new Map() });
      expect(doc.pieces!.find((p) => p.key === 'weights')!.json, v).toBeUndefined();
      expect(doc.pieces!.find((p) => p.key === 'agents')!.json, v).toBeDefined();
    }
    for (const v of ['.inf', '-.Inf', '.NaN']) {
      expect(outcome(() => parseText('m.yaml', text(v), 'yaml', { pieces: new Map() }))).toEqual(outcome(() => parseText('m.yaml', text(v), 'yaml')));
      expect(outcome(() => parseText('m.yaml', text(v), 'yaml'))).toHaveProperty('error');
    }
  });

  it('takes one item out of a sequence, the text left reading as the document less that item', () => {
    fc.assert(
      fc.property(documentText, (text) => {
        const plan = planPieces(text, new Map());
        const whole = outcome(() => parseText('m.yaml', text, 'yaml'));
        if (plan === undefined || !('value' in whole)) return;
        const grants = ((whole.value as Record<string, unknown>).grants ?? null) as unknown[] | null;
        const less = withoutOneItem(plan, 'grants');
        if (!Array.isArray(grants) || grants.length < 2) return void expect(less).toBeUndefined();
        // Cut into runs, the sequence loses exactly one of its items, the rest of the document as it was.
        if (less === undefined) return void expect(plan.pieces.some((p) => p.key === 'grants' && p.kind === 'items')).toBe(false);
        const after = parseText('m.yaml', less, 'yaml').value as Record<string, unknown>;
        const left = after.grants as unknown[];
        expect(left).toHaveLength(grants.length - 1);
        const i = left.findIndex((g, k) => JSON.stringify(g) !== JSON.stringify(grants[k]));
        const gone = i === -1 ? grants.length - 1 : i;
        expect(left).toEqual(grants.filter((_, k) => k !== gone));
        expect({ ...after, grants: null }).toEqual({ ...(whole.value as Record<string, unknown>), grants: null });
      }),
      { numRuns: 300 },
    );
  });

  it('takes out the last item of the middle run of a long sequence', () => {
    const items = Array.from({ length: 3000 }, (_, i) => `  - {agent: agent-${i % 50}, tool: "srv-${i % 13}::tool_${i}"}\n`);
    const plan = planPieces(`agents:\n  - agent-0\ngrants:\n${items.join('')}`, new Map())!;
    const runs = plan.pieces.filter((p) => p.kind === 'items' && p.key === 'grants');
    expect(runs.length).toBeGreaterThan(4);
    const middle = runs[runs.length >> 1]!;
    const gone = runs.slice(0, runs.length >> 1).reduce((n, p) => n + p.items, 0) + middle.items - 1;
    expect(withoutOneItem(plan, 'grants')).toBe(`agents:\n  - agent-0\ngrants:\n${items.filter((_, i) => i !== gone).join('')}`);
    expect(withoutOneItem(plan, 'agents')).toBeUndefined();
  });

  it('is not used for text that is not plain block YAML (aliases, documents, flow at the top)', () => {
    for (const text of ['a: &x [1]\nb: *x\n', '---\na: 1\n', '{a: 1}\n', 'a: 1\na: 2\n', '%YAML 1.2\n---\na: 1\n']) expect(planPieces(text, new Map())).toBeUndefined();
  });

  it('plans a text again from its previous plan as planning it afresh does, after any edits', () => {
    fc.assert(
      fc.property(documentText, fc.array(edit, { minLength: 1, maxLength: 4 }), fc.array(fc.tuple(fc.nat(10_000), item, fc.boolean()), { maxLength: 3 }), (text, edits, itemEdits) => {
        const cache: PieceCache = new Map();
        let previous = planPieces(text, cache);
        let t = text;
        for (const e of [...edits, ...itemEdits]) {
          t = applyEdit(t, e);
          const afresh = planPieces(t, cache);
          const again = previous === undefined ? afresh : planPieces(t, cache, previous);
          expect(again).toEqual(afresh);
          previous = afresh;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('plans a text again as afresh when the first key line goes and the text then starts with a blank line', () => {
    const before = planPieces('agents:\n\ngrants:\n  []\n', new Map());
    expect(planPieces('\ngrants:\n  []\n', new Map(), before)).toEqual(planPieces('\ngrants:\n  []\n', new Map()));
  });

  it('plans a text again from its previous plan as afresh when one save changes several places (a new agent and its grant)', () => {
    fc.assert(
      fc.property(documentText, fc.array(fc.tuple(fc.nat(10_000), fc.oneof(item, fc.constantFrom('grants:\n', 'agents:\n', '  - agent-new\n', '')), fc.boolean()), { minLength: 2, maxLength: 5 }), (text, edits) => {
        const cache: PieceCache = new Map();
        const previous = planPieces(text, cache);
        const after = edits.reduce((t, e) => applyEdit(t, e), text);
        if (previous !== undefined) expect(planPieces(after, cache, previous)).toEqual(planPieces(after, cache));
      }),
      { numRuns: 300 },
    );
  });

  it('cuts a long sequence again only near its edits when a save also changes another section, or its first item', () => {
    const grants = Array.from({ length: 6000 }, (_, i) => `  - {agent: agent-${i % 97}, tool: "srv-${i % 13}::tool_${i}"}\n`);
    const base = `agents:\n${Array.from({ length: 97 }, (_, i) => `  - agent-${i}\n`).join('')}grants:\n${grants.join('')}policies:\n  - {id: p1, effect: DENY}\n`;
    const cache: PieceCache = new Map();
    const before = planPieces(base, cache)!;
    const known = new Set(before.pieces.map((p) => p.text));
    for (const after of [
      base.replace('agents:\n', 'agents:\n  - agent-new\n').replace('grants:\n', 'grants:\n  - {agent: agent-new, tool: "srv-1::tool_1"}\n'),
      base.replace('grants:\n', 'grants:\n  - {agent: agent-1, tool: "srv-1::tool_1"}\n'),
      base.replace('agents:\n', 'agents:\n  - agent-new\n').replace('tool: "srv-3::tool_3000"', 'tool: "srv-4::tool_3000"'),
    ]) {
      const again = planPieces(after, cache, before)!;
      expect(again).toEqual(planPieces(after, cache));
      expect(again.pieces.filter((p) => !known.has(p.text)).length).toBeLessThanOrEqual(4);
    }
  });

  it('plans a long sequence again from its previous plan as afresh, cutting again only near the edit', () => {
    const grants = Array.from({ length: 6000 }, (_, i) => `  - {agent: agent-${i % 97}, tool: "srv-${i % 13}::tool_${i}"}\n`);
    const base = `agents:\n  - agent-1\ngrants:\n${grants.join('')}policies:\n  - {id: p1, effect: DENY}\n`;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(10_000), item, fc.boolean()), { minLength: 1, maxLength: 3 }), (edits) => {
        const cache: PieceCache = new Map();
        const before = planPieces(base, cache)!;
        const after = edits.reduce((t, e) => applyEdit(t, e), base);
        const again = planPieces(after, cache, before);
        expect(again).toEqual(planPieces(after, cache));
        // Most runs are the previous plan's, moved: the same texts (an edit above the first key makes the text not plain).
        const known = new Set(before.pieces.map((p) => p.text));
        if (again !== undefined) expect(again.pieces.filter((p) => !known.has(p.text)).length).toBeLessThanOrEqual(3 * edits.length);
      }),
      { numRuns: 60 },
    );
  });
});
