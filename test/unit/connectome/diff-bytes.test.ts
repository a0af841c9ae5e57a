/**
 * encodeDiff has a fast path (ids encoded once, labels copied as byte ranges) and the plain path
 * over the record's strings (taken for any record that is not the diff's own). Both must write the
 * same bytes, whatever the ids hold; and writeDiff must hand a sink those same bytes, in chunks of
 * any size, whatever the window holds (a window larger than a chunk goes to the sink whole).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { buildGraph, diffConnectomes, diffDigestHex, encodeDiff, nodeFromIdentity, writeDiff, type ConnectomeEdge, type DiffRecord } from '../../../src/connectome/index.ts';
import { digestHex } from '../../../src/canonical/digest.ts';
import { compareUtf16 } from '../../../src/canonical/json.ts';

const window = { ended_at: '2026-09-14T01:00:00Z', started_at: '2026-09-14T00:00:00Z' };
const signs = ['allow', 'deny', 'hold', 'ungoverned', 'unset'] as const;
const name = fc.oneof(fc.stringMatching(/^[a-z_]{1,6}$/), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.constantFrom('é', 'e\u0301', '"q"', 'a\\b', '\u{1F600}', '\uFF01', 'x\ny'));

const graphs = fc
  .uniqueArray(name, { minLength: 2, maxLength: 8, selector: (s) => s.normalize('NFC') })
  .chain((names) =>
    fc.record({
      names: fc.constant(names),
      declared: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 12 }),
      observed: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 12 }),
    }),
  );

function graph(names: string[], edges: [number, number, (typeof signs)[number]][], provenance: 'declared' | 'observed') {
  const nodes = names.map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }));
  const seen = new Set<string>();
  const out: ConnectomeEdge[] = [];
  for (const [a, b, sign] of edges) {
    const key = `${a}/${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ from: nodes[a]!.id, to: nodes[b]!.id, kind: 'invoke', provenance, sign });
  }
  return buildGraph({ nodes, edges: out });
}

describe('encodeDiff', () => {
  it('writes the same bytes on its fast path as from the record strings', () => {
    fc.assert(
      fc.property(graphs, ({ names, declared, observed }) => {
        const record = diffConnectomes(graph(names, declared, 'declared'), graph(names, observed, 'observed'), { window });
        const fast = encodeDiff(record);
        const plain = encodeDiff({ ...record, classes: { ...record.classes } });
        expect(Buffer.from(fast).equals(Buffer.from(plain))).toBe(true);
        // The spread above made the label lists: the fast path now checks them against the positions.
        expect(Buffer.from(encodeDiff(record)).equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('writes the same bytes on both paths for classes of many blocks of labels and ids that need escaping', () => {
    // The fast path gathers labels and reads ids a block (1,024) at a time; these classes hold
    // several blocks and a tail, and a fifth of the ids are not printable ASCII.
    const names = Array.from({ length: 1500 }, (_, i) => (i % 5 === 0 ? `n"${i}\\é\n` : `n${i}`));
    // Distinct (from, to) pairs: k's from is k mod 1,500, its to a step of `shift` + k div 1,500 on.
    const edges = (shift: number, count: number): [number, number, (typeof signs)[number]][] =>
      Array.from({ length: count }, (_, k) => [k % 1500, (k % 1500) + shift + Math.floor(k / 1500), signs[k % signs.length]!]).map(
        ([a, b, sign]) => [a as number, (b as number) % 1500, sign as (typeof signs)[number]],
      );
    const declared = edges(1, 6000);
    // The observation sees half the declared edges, with the next sign over (so a sign changes
    // where both are set), and as many edges of its own.
    const seen = declared.slice(0, 3000).map(([a, b, sign]): [number, number, (typeof signs)[number]] => [a, b, signs[(signs.indexOf(sign) + 1) % signs.length]!]);
    const record = diffConnectomes(graph(names, declared, 'declared'), graph(names, [...seen, ...edges(11, 3000)], 'observed'), { window });
    const c = record.classes;
    for (const list of [c.changed_sign, c.declared_and_observed, c.declared_never_observed, c.observed_but_undeclared]) expect(list.length).toBeGreaterThan(1024);
    const fast = Buffer.from(encodeDiff(record));
    const plain = Buffer.from(encodeDiff({ ...record, classes: { ...record.classes } }));
    expect(fast.equals(plain)).toBe(true);
    expect(streamed(record, 4096).bytes.equals(plain)).toBe(true);
  });
});

function streamed(record: DiffRecord, chunkBytes?: number): { bytes: Buffer; chunks: number } {
  const parts: Buffer[] = [];
  // Copied: a chunk is only valid during the call.
  writeDiff(record, (chunk) => parts.push(Buffer.from(chunk)), { chunkBytes });
  return { bytes: Buffer.concat(parts), chunks: parts.length };
}

describe('writeDiff', () => {
  it('hands the sink the bytes of encodeDiff, in chunks of any size', () => {
    fc.assert(
      fc.property(graphs, fc.integer({ min: 1, max: 300 }), fc.nat(600), ({ names, declared, observed }, chunkBytes, note) => {
        const record = diffConnectomes(graph(names, declared, 'declared'), graph(names, observed, 'observed'), { window: { ...window, note: 'n'.repeat(note) } });
        const whole = Buffer.from(encodeDiff(record));
        expect(streamed(record, chunkBytes).bytes.equals(whole)).toBe(true);
        expect(streamed({ ...record, classes: { ...record.classes } }, chunkBytes).bytes.equals(whole)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('writes a chunk right up to its end whatever the chunk size (labels of the largest kind and signs, every alignment)', () => {
    // Labels copy their pieces four bytes at a time and may write a few bytes past a copy: a label
    // that ends at the very end of a chunk must not spoil what lies past the chunk.
    const nodes = Array.from({ length: 12 }, (_, i) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: `t${String(i).padStart(2, '0')}` }));
    const edges = (provenance: 'declared' | 'observed', sign: (a: number, b: number) => (typeof signs)[number]): ConnectomeEdge[] =>
      nodes.flatMap((f, a) => nodes.map((t, b) => ({ from: f.id, to: t.id, kind: 'supervise' as const, provenance, sign: sign(a, b) })));
    const declared = buildGraph({ nodes, edges: edges('declared', (a, b) => ((a + b) % 3 === 0 ? 'ungoverned' : 'deny')) });
    const observed = buildGraph({ nodes, edges: edges('observed', (a, b) => ((a * b) % 2 === 0 ? 'allow' : 'ungoverned')) });
    const record = diffConnectomes(declared, observed, { window });
    expect(record.classes.changed_sign.length).toBeGreaterThan(50);
    const whole = Buffer.from(encodeDiff(record));
    for (let chunkBytes = 200; chunkBytes < 500; chunkBytes++) expect(streamed(record, chunkBytes).bytes.equals(whole)).toBe(true);
  });

  it('flushes a large record in many chunks and digests it the same streamed as whole', () => {
    const names = Array.from({ length: 40 }, (_, i) => `tool_${i}`);
    const all = names.flatMap((_, a) => names.map((__, b) => [a, b, 'unset'] as [number, number, 'unset']));
    const record = diffConnectomes(graph(names, all.slice(0, 1000), 'declared'), graph(names, all.slice(500), 'observed'), { window });
    const whole = Buffer.from(encodeDiff(record));
    const { bytes, chunks } = streamed(record, 4096);
    expect(bytes.equals(whole)).toBe(true);
    expect(chunks).toBeGreaterThan(whole.length / 4096 - 1);
    expect(diffDigestHex(record)).toBe(digestHex(whole, 'sha256'));
    const sha512 = { ...record, algorithm: 'sha512' as const };
    expect(diffDigestHex(sha512)).toBe(digestHex(encodeDiff(sha512), 'sha512'));
  });
});

describe('diffConnectomes classes', () => {
  // Each side holds its own subset of the nodes, so the union is sometimes one side's nodes (whose
  // union positions the diff then reads as its own), sometimes both, sometimes neither.
  const sides = fc
    // Names past U+D7FF (where UTF-16 and code-point order part) now and then.
    .uniqueArray(fc.oneof({ arbitrary: fc.stringMatching(/^[a-z]{1,3}$/), weight: 6 }, fc.constantFrom('\uFF01', '\u{1F600}', 'z\uFF01', 'z\u{1F600}', 'é')), { minLength: 2, maxLength: 9 })
    .chain((names) =>
      fc.record({
        names: fc.constant(names),
        inD: fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }),
        inO: fc.array(fc.boolean(), { minLength: names.length, maxLength: names.length }),
        declared: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 20 }),
        observed: fc.array(fc.tuple(fc.nat(names.length - 1), fc.nat(names.length - 1), fc.constantFrom(...signs)), { maxLength: 20 }),
      }),
    );

  function side(names: string[], keep: boolean[], edges: [number, number, (typeof signs)[number]][], provenance: 'declared' | 'observed') {
    const nodes = names.map((n) => nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }));
    const kept = edges.filter(([a, b]) => keep[a] && keep[b]);
    const seen = new Set<string>();
    const out: ConnectomeEdge[] = [];
    for (const [a, b, sign] of kept) {
      if (seen.has(`${a}/${b}`)) continue;
      seen.add(`${a}/${b}`);
      out.push({ from: nodes[a]!.id, to: nodes[b]!.id, kind: 'invoke', provenance, sign });
    }
    return { graph: buildGraph({ nodes: nodes.filter((_, i) => keep[i]), edges: out }), edges: out };
  }

  it('sorts every edge into the class a map of edge keys gives it, and writes the same bytes on both paths', () => {
    fc.assert(
      fc.property(sides, ({ names, inD, inO, declared, observed }) => {
        const d = side(names, inD, declared, 'declared');
        const o = side(names, inO, observed, 'observed');
        const record = diffConnectomes(d.graph, o.graph, { window });
        const key = (e: { from: string; to: string; kind: string }) => `${e.from} ${e.to} ${e.kind}`;
        const oSign = new Map(o.edges.map((e) => [key(e), e.sign]));
        const dKeys = new Set(d.edges.map(key));
        const want = { changed: new Set<string>(), both: new Set<string>(), never: new Set<string>(), undeclared: new Set<string>() };
        for (const e of d.edges) {
          const os = oSign.get(key(e));
          if (os === undefined) want.never.add(key(e));
          else if (e.sign !== 'unset' && os !== 'unset' && e.sign !== os) want.changed.add(key(e));
          else want.both.add(key(e));
        }
        for (const e of o.edges) if (!dKeys.has(key(e))) want.undeclared.add(key(e));
        const c = record.classes;
        expect(new Set(c.changed_sign.map(key))).toEqual(want.changed);
        expect(new Set(c.declared_and_observed.map(key))).toEqual(want.both);
        expect(new Set(c.declared_never_observed.map(key))).toEqual(want.never);
        expect(new Set(c.observed_but_undeclared.map(key))).toEqual(want.undeclared);
        // Each list is in the record's order: (from, to, kind) by UTF-16 code units.
        for (const list of [c.changed_sign, c.declared_and_observed, c.declared_never_observed, c.observed_but_undeclared]) {
          expect(list.map(key)).toEqual([...list].sort((a, b) => compareUtf16(a.from, b.from) || compareUtf16(a.to, b.to) || compareUtf16(a.kind, b.kind)).map(key));
        }
        const dSign = new Map(d.edges.map((e) => [key(e), e.sign]));
        const bothSigns = [...want.both].map((k) => [dSign.get(k), oSign.get(k)]);
        const idOf = new Map(names.map((n, i) => [nodeFromIdentity({ tag: 'tool', server: 'srv', name: n }).id, i]));
        const count = (keep: boolean[], edges: ConnectomeEdge[]) => edges.filter((e) => keep[idOf.get(e.from)!] && keep[idOf.get(e.to)!]).length;
        expect(record.coverage).toEqual({
          declared_and_observed: want.changed.size + want.both.size,
          declared_edges: d.edges.length,
          declared_endpoint_covered: count(inO, d.edges),
          declared_nodes: inD.filter(Boolean).length,
          declared_sign_only: bothSigns.filter(([ds, os]) => ds !== 'unset' && os === 'unset').length,
          nodes_in_both: inD.filter((x, i) => x && inO[i]).length,
          observed_edges: o.edges.length,
          observed_endpoint_declared: count(inD, o.edges),
          observed_nodes: inO.filter(Boolean).length,
          observed_sign_only: bothSigns.filter(([ds, os]) => os !== 'unset' && ds === 'unset').length,
        });
        const plain = encodeDiff({ ...record, classes: { ...record.classes } });
        const fresh = diffConnectomes(d.graph, o.graph, { window });
        expect(Buffer.from(encodeDiff(fresh)).equals(Buffer.from(plain))).toBe(true);
        expect(streamed(fresh, 64).bytes.equals(Buffer.from(plain))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
