/**
 * A block-YAML document read in pieces, so a recompile parses again only the text that changed:
 * each top-level entry is a piece, except that a block sequence (`grants:` and its 200,000 lines)
 * is cut into runs of whole items (./yaml-scan.ts says where). A piece whose text digest the cache
 * knows is taken from the JSON a previous compile kept of it; the others are parsed by js-yaml on
 * their own. Given the plan of the text's previous version, only the part around what changed is
 * cut and hashed again.
 *
 * Only plain documents are read this way: block mappings at column 0, no anchor or alias, no
 * directive or document marker, no tab before a line's content, no repeated top-level key. For
 * any other text, or when a piece does not parse to what it should (one key, or as many items as
 * the lines hold), the caller parses the whole text as before, so every error and its location is
 * exactly what a whole parse reports. A piece whose text may hold a negative zero (which JSON
 * would turn into 0) or a `__proto__` key is never taken from the cache.
 */
import { createHash } from 'node:crypto';
import { load as loadYaml, CORE_SCHEMA } from 'js-yaml';
import { commonHead, commonTail } from './common-ends.ts';
import { itemRuns, lastItemStart, lineEnd, mayHoldAlias, notPlain, resectioned, scanRuns, sections, sequenceLayout, type Section } from './yaml-scan.ts';

/** A piece's value as JSON text: a string, or its UTF-8 bytes as a previous compile kept them (decoded only when read). */
type PieceJson = string | Uint8Array;

/** The JSON texts a previous compile kept, by piece digest. */
export type PieceCache = ReadonlyMap<string, PieceJson>;

export interface YamlPiece {
  /** SHA-256 (hex) of the piece's kind and text. */
  readonly digest: string;
  /** The top-level key the piece belongs to. */
  readonly key: string;
  /** 'section': the key's whole value; 'items': a run of items of the key's sequence (`value` is that run). */
  readonly kind: 'section' | 'items';
  readonly value: unknown;
  /** The value as JSON, for the next compile's cache; absent when it must not be kept so (negative zero, `__proto__`). */
  readonly json?: PieceJson;
}

export interface PiecewiseRead {
  readonly value: Record<string, unknown>;
  readonly pieces: readonly YamlPiece[];
}

// JSON would write a negative zero as 0 and an infinity or NaN (YAML's .inf, .nan) as null, and JSON.parse
// defines a `__proto__` key where js-yaml may not. (A regex here: `-` is too common for a search by
// character to be quicker.)
const NOT_KEPT_AS_JSON = /(?:^|[\s[{,:])-\.?0|__proto__|\.(?:inf|Inf|INF|nan|NaN|NAN)/m;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/**
 * The digests of pieces of one text. An ASCII text (the usual manifest) is encoded once and its
 * pieces hashed as byte ranges, its offsets being byte offsets too: hashing tens of megabytes as
 * many sliced strings costs several times more.
 */
function pieceDigests(text: string): (kind: string, start: number, end: number) => string {
  const bytes = /[^\x00-\x7f]/.test(text) ? undefined : Buffer.from(text, 'latin1');
  return (kind, start, end) => {
    const h = createHash('sha256').update(kind).update('\n');
    return (bytes ? h.update(bytes.subarray(start, end)) : h.update(text.slice(start, end))).digest('hex');
  };
}

function parsePiece(text: string, maxDepth: number): unknown {
  return loadYaml(text, { schema: CORE_SCHEMA, maxDepth });
}

interface PlannedPiece {
  readonly key: string;
  /** 'section': the whole top-level entry; 'items': a run of `items` items of its sequence. */
  readonly kind: 'section' | 'items';
  readonly text: string;
  /** Where `text` lies in the document. */
  readonly start: number;
  readonly end: number;
  readonly items: number;
  readonly digest: string;
  readonly cacheable: boolean;
  readonly json?: PieceJson;
}

/** How a text splits into pieces and which of them the cache knows. */
export interface PiecePlan {
  readonly text: string;
  readonly sections: readonly Section[];
  readonly pieces: readonly PlannedPiece[];
  /** Whether the pieces the cache does not know are a small part of the text, so parsing them alone pays. */
  readonly mostlyCached: boolean;
}

/** Where a piece lies, with the piece of a previous plan it repeats (moved with the text around it), if any. */
interface Span {
  /** The top-level key, unquoted. */
  readonly key: string;
  readonly kind: 'section' | 'items';
  readonly start: number;
  readonly end: number;
  readonly items: number;
  readonly repeats?: PlannedPiece;
}

/** The spans of one section: its runs when it holds one block sequence, else the whole section. */
function sectionSpans(text: string, section: Section, runs = itemRuns(text, section)): Span[] {
  const key = keyOf(section.key);
  if (runs === undefined) return [{ key, kind: 'section', start: section.start, end: section.end, items: 0 }];
  return runs.map((r) => ({ key, kind: 'items', start: r.start, end: r.end, items: r.items }));
}

/**
 * The pieces of `text` (see the module comment), or undefined when it is not plain enough to cut.
 * `previous`, the plan of an earlier version of the text (a watch's previous save), spares cutting
 * and hashing what did not change; the plan is the same with it or without.
 */
export function planPieces(text: string, cache: PieceCache, previous?: PiecePlan): PiecePlan | undefined {
  const layout = (previous !== undefined ? replannedSpans(text, previous) : undefined) ?? freshSpans(text);
  if (layout === undefined) return undefined;
  const pieces: PlannedPiece[] = [];
  let unknownChars = 0;
  // Hashing a whole ASCII text's bytes beats hashing many sliced strings; a replan hashes only its new spans.
  const fresh = layout.spans.filter((s) => s.repeats === undefined).length;
  const digestOf = fresh > 16 ? pieceDigests(text) : (kind: string, start: number, end: number) => createHash('sha256').update(kind).update('\n').update(text.slice(start, end)).digest('hex');
  for (const span of layout.spans) {
    const pieceText = text.slice(span.start, span.end);
    const digest = span.repeats?.digest ?? digestOf(span.kind, span.start, span.end);
    // A text the cache knows was cacheable when it was kept (only such pieces are), so it is not scanned again.
    const known = cache.get(digest);
    const cacheable = span.repeats?.cacheable ?? (known !== undefined || !NOT_KEPT_AS_JSON.test(pieceText));
    const json = cacheable ? known : undefined;
    if (json === undefined) unknownChars += pieceText.length;
    pieces.push({ key: span.key, kind: span.kind, text: pieceText, start: span.start, end: span.end, items: span.items, digest, cacheable, ...(json !== undefined ? { json } : {}) });
  }
  // js-yaml pays a cost per document: past a quarter of the text, one whole parse is quicker.
  return { text, sections: layout.sections, pieces, mostlyCached: unknownChars * 4 < text.length };
}

function freshSpans(text: string): { sections: Section[]; spans: Span[] } | undefined {
  const split = sections(text);
  return split === undefined ? undefined : { sections: split, spans: split.flatMap((section) => sectionSpans(text, section)) };
}

/** Whether a line of `lines` (whole lines) starts with what could be a top-level key. */
function holdsKeyLine(lines: string): boolean {
  for (let at = 0; at < lines.length; at = lineEnd(lines, at)) {
    const c = lines.charCodeAt(at);
    if (c !== 32 && c !== 35 && c !== 10 && c !== 13) return true;
  }
  return false;
}

/**
 * The spans of `text` from those of `previous`, when the two differ only inside one section and by
 * lines no top-level key is on: the sections around it move, and in it only the runs from the
 * change up to the first cut that falls where a previous run began are cut again. Undefined when
 * the change is not of that kind (the caller then cuts the whole text).
 */
function replannedSpans(text: string, previous: PiecePlan): { sections: Section[]; spans: Span[] } | undefined {
  const old = previous.text;
  const repeat = (p: PlannedPiece, by: number): Span => ({ key: p.key, kind: p.kind, start: p.start + by, end: p.end + by, items: p.items, repeats: p });
  if (text === old) return { sections: [...previous.sections], spans: previous.pieces.map((p) => repeat(p, 0)) };
  const shift = text.length - old.length;
  const head = commonHead(text, old);
  const tail = commonTail(text, old, Math.min(text.length, old.length) - head);
  // The changed lines: from the start of the line the change begins in to the end of a line inside the common tail.
  // (lastIndexOf with -1 would look at offset 0.)
  const from = head === 0 ? 0 : text.lastIndexOf('\n', head - 1) + 1;
  const newline = text.indexOf('\n', text.length - tail);
  const to = newline === -1 ? text.length : newline + 1;
  const oldTo = to - shift;
  if (to - from > text.length / 4) return undefined;
  const lines = text.slice(from, to);
  if (mayHoldAlias(lines) || notPlain(lines)) return undefined;
  const at = holdsKeyLine(lines) || holdsKeyLine(old.slice(from, oldTo)) ? -1 : previous.sections.findIndex((s) => s.start < from && oldTo <= s.end);
  if (at === -1) return sectionwiseSpans(text, previous, from, to, repeat);
  const moved = (s: Section): Section => ({ key: s.key, start: s.start + shift, end: s.end + shift });
  const newSections = previous.sections.map((s, i) => (i < at ? s : i === at ? { ...s, end: s.end + shift } : moved(s)));
  const section = newSections[at]!;
  const before = previous.pieces.filter((p) => p.end <= previous.sections[at]!.start);
  const inside = previous.pieces.filter((p) => p.start >= previous.sections[at]!.start && p.end <= previous.sections[at]!.end);
  const after = previous.pieces.filter((p) => p.start >= previous.sections[at]!.end);
  return { sections: newSections, spans: [...before.map((p) => repeat(p, 0)), ...sectionAgain(text, section, inside, from, to, shift, repeat, sequenceLayout(old, previous.sections[at]!)?.indent), ...after.map((p) => repeat(p, shift))] };
}

/**
 * The spans of `text` from those of `previous` when the change between them spans sections (a new
 * agent and its grant, say) or moves a key line: each section outside the changed lines
 * `[from, to)`, or inside them with its previous text, repeats its pieces where it lies now; any
 * other section with its key in `previous` is cut again around its own change (`sectionAgain`),
 * and a new one is cut afresh.
 */
function sectionwiseSpans(text: string, previous: PiecePlan, from: number, to: number, repeat: (p: PlannedPiece, by: number) => Span): { sections: Section[]; spans: Span[] } | undefined {
  const now = resectioned(text, previous, from, to);
  if (now === undefined) return undefined;
  const old = previous.text;
  const before = new Map(previous.sections.map((s) => [s.key, s]));
  const spans: Span[] = [];
  for (const section of now) {
    const o = before.get(section.key);
    if (o === undefined) {
      spans.push(...sectionSpans(text, section));
      continue;
    }
    const by = section.start - o.start;
    const inside = previous.pieces.filter((p) => p.start >= o.start && p.end <= o.end);
    const length = section.end - section.start;
    const unchanged = length === o.end - o.start && (section.end <= from || section.start >= to || text.startsWith(old.slice(o.start, o.end), section.start));
    if (unchanged) {
      spans.push(...inside.map((p) => repeat(p, by)));
      continue;
    }
    // The section's own change, and its previous pieces where they would lie now had it not changed.
    const head = commonHead(text.slice(section.start, section.end), old.slice(o.start, o.end));
    const tail = commonTail(text.slice(section.start, section.end), old.slice(o.start, o.end), Math.min(length, o.end - o.start) - head);
    const changeFrom = text.lastIndexOf('\n', section.start + head - 1) + 1;
    const newline = text.indexOf('\n', section.end - tail);
    const changeTo = newline === -1 || newline >= section.end ? section.end : newline + 1;
    const moved = inside.map((p) => ({ ...p, start: p.start + by, end: p.end + by }));
    spans.push(...sectionAgain(text, section, moved, changeFrom, changeTo, length - (o.end - o.start), repeat, sequenceLayout(old, o)?.indent));
  }
  return { sections: now, spans };
}

/**
 * The spans of the section the change falls in, reusing the runs before it and after the first cut
 * that lines up again. `previousIndent`: the indent of the section's items in the previous text,
 * where its runs were cut; only at the same indent do they line up again.
 */
function sectionAgain(text: string, section: Section, inside: readonly PlannedPiece[], from: number, to: number, shift: number, repeat: (p: PlannedPiece, by: number) => Span, previousIndent: number | undefined): Span[] {
  const layout = inside[0]?.kind === 'items' ? sequenceLayout(text, section) : undefined;
  if (layout === undefined || layout.indent !== previousIndent) return sectionSpans(text, section);
  // The first run the change may alter, from a run start the change leaves alone (a line before it),
  // or from the sequence's start. (Lines added at the section's end extend its last run.)
  let first = inside.findIndex((p) => p.end > from);
  if (first === -1) first = inside.length - 1;
  while (first > 0 && inside[first]!.start >= from) first--;
  const runStart = first === 0 ? layout.bodyStart : inside[first]!.start;
  const oldStarts = new Map(inside.slice(first + 1).map((p, i) => [p.start, first + 1 + i]));
  const scanned = scanRuns(text, section, layout, runStart, (cut) => cut >= to && oldStarts.has(cut - shift));
  if (scanned === undefined) return sectionSpans(text, section);
  const again = scanned.runs.map((r): Span => ({ key: keyOf(section.key), kind: 'items', start: r.start, end: r.end, items: r.items }));
  const resumed = scanned.resyncedAt === undefined ? [] : inside.slice(oldStarts.get(scanned.resyncedAt - shift)!).map((p) => repeat(p, shift));
  return [...inside.slice(0, first).map((p) => repeat(p, 0)), ...again, ...resumed];
}

/**
 * Values read from kept JSON bytes, by those bytes: a process that compiles again (a watch) is
 * handed the very bytes its previous compile kept for an unchanged piece, and reads them once.
 * The value is shared between the documents read from them, which the compile never writes to
 * (test/unit/compile/frozen-inputs.test.ts).
 */
const keptValues = new WeakMap<Uint8Array, unknown>();

function keptValue(json: PieceJson): unknown {
  if (typeof json === 'string') return JSON.parse(json) as unknown;
  let value = keptValues.get(json);
  if (value === undefined) keptValues.set(json, (value = JSON.parse(decoder.decode(json)) as unknown));
  return value;
}

/**
 * The document's value read piece by piece, each known piece from its JSON and each other parsed
 * alone; undefined when a piece does not read as it should (one key, or as many items as its
 * lines hold): the caller then parses the whole text, which says what is wrong and where.
 * `maxDepth` is the whole document's limit; pieces, which sit one or two levels down, get less.
 */
export function readInPieces(plan: PiecePlan, maxDepth: number): PiecewiseRead | undefined {
  const pieces: YamlPiece[] = [];
  try {
    for (const p of plan.pieces) {
      let value: unknown;
      if (p.json !== undefined) value = keptValue(p.json);
      else if (p.kind === 'items') value = parsePiece(p.text, maxDepth - 2);
      else {
        const parsed = parsePiece(p.text, maxDepth - 1) as Record<string, unknown> | null;
        if (parsed === null || typeof parsed !== 'object' || Object.keys(parsed).length !== 1 || !Object.hasOwn(parsed, p.key)) return undefined;
        value = parsed[p.key];
      }
      if (p.kind === 'items' && (!Array.isArray(value) || value.length !== p.items)) return undefined;
      pieces.push(piece(p, value));
    }
  } catch {
    return undefined;
  }
  return { value: assemble(plan, pieces), pieces };
}

/**
 * The plan's text less one item of `key`'s block sequence (the last of its middle run: an edit
 * inside the text, as most are), when the sequence was cut into runs and holds two items or more;
 * else undefined. (A watch compiles such a text once, unsaved, before the first save:
 * cli/watch-rehearsal.ts.)
 */
export function withoutOneItem(plan: PiecePlan, key: string): string | undefined {
  const runs = plan.pieces.filter((p) => p.kind === 'items' && p.key === key);
  const section = plan.sections.find((s) => keyOf(s.key) === key);
  const run = runs[runs.length >> 1];
  if (run === undefined || section === undefined || runs.reduce((n, p) => n + p.items, 0) < 2) return undefined;
  const layout = sequenceLayout(plan.text, section);
  const at = layout === undefined ? undefined : lastItemStart(plan.text, run, layout.indent);
  return at === undefined ? undefined : plan.text.slice(0, at) + plan.text.slice(run.end);
}

/**
 * The pieces of a value js-yaml read from the whole text, or undefined when it does not split as
 * the plan does. The item counts are checked against the parsed sequences: a line taken for an
 * item start that is not one (inside a multi-line scalar) can only add to a count, never hide one.
 */
export function piecesOfValue(plan: PiecePlan, value: unknown): YamlPiece[] | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const doc = value as Record<string, unknown>;
  const keys = [...new Set(plan.pieces.map((p) => p.key))];
  if (Object.keys(doc).length !== keys.length || !keys.every((k) => Object.hasOwn(doc, k))) return undefined;
  const pieces: YamlPiece[] = [];
  const at = new Map<string, number>();
  for (const p of plan.pieces) {
    const v = doc[p.key];
    if (p.kind === 'section') {
      pieces.push(piece(p, v));
      continue;
    }
    if (!Array.isArray(v)) return undefined;
    const from = at.get(p.key) ?? 0;
    at.set(p.key, from + p.items);
    pieces.push(piece(p, v.slice(from, from + p.items)));
  }
  for (const [k, n] of at) if ((doc[k] as unknown[]).length !== n) return undefined;
  return pieces;
}

/**
 * A piece with its JSON, taken from the cache or written now (before anything downstream can touch
 * the value). JSON written now reads back as this value, so the next read of these bytes (a watch's
 * next save) shares it instead of parsing them.
 */
function piece(p: PlannedPiece, value: unknown): YamlPiece {
  let json = p.json;
  if (json === undefined && p.cacheable) keptValues.set((json = encoder.encode(JSON.stringify(value))), value);
  return { digest: p.digest, key: p.key, kind: p.kind, value, ...(json !== undefined ? { json } : {}) };
}

function assemble(plan: PiecePlan, pieces: readonly YamlPiece[]): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  plan.pieces.forEach((p, i) => {
    const v = pieces[i]!.value;
    if (p.kind === 'section') value[p.key] = v;
    else {
      const list = (value[p.key] ??= []) as unknown[];
      for (const item of v as unknown[]) list.push(item);
    }
  });
  return value;
}

function keyOf(written: string): string {
  if (written.startsWith('"')) return written.slice(1, -1);
  if (written.startsWith("'")) return written.slice(1, -1);
  return written;
}
