/**
 * A block-YAML document read in pieces, so a recompile parses again only the text that changed:
 * each top-level entry is a piece, except that a block sequence (`grants:` and its 200,000 lines)
 * is cut into runs of whole items, at item lines a hash of the line's text picks (so an inserted
 * or edited item moves no cut far from it). A piece whose text digest the cache knows is taken
 * from the JSON a previous compile kept of it; the others are parsed by js-yaml on their own.
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

/** Items per run: at least MIN (but the last), at most MAX, cut after an item whose first line hashes to 0 in the low 7 bits (a save parses ~160 items again). */
const MIN_ITEMS = 32;
const MAX_ITEMS = 1024;
const CUT_MASK = 127;

const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*|"[^"\\\n]*"|'[^'\n]*'):(?:[ ]+(.*))?$/;

/*
 * Two questions about a text, each what a multiline regex asks (given beside it), answered by
 * looking only where the one character it needs occurs (indexOf): the regexes walk every line of
 * tens of megabytes, which cost more than cutting the text.
 */
const BEFORE_NODE = /[\s[{,:]/;
const NOT_NAME = /[\s,[\]{}"']/;
const LINE_END = /[\n\r\u2028\u2029]/;

/** Whether the text holds an alias: `(?:^|[\s[{,:])\*[^\s,[\]{}"']` (after a line start, a space or a flow indicator, a name character). */
export function mayHoldAlias(text: string): boolean {
  for (let i = text.indexOf('*'); i !== -1; i = text.indexOf('*', i + 1)) {
    if ((i === 0 || BEFORE_NODE.test(text[i - 1]!)) && i + 1 < text.length && !NOT_NAME.test(text[i + 1]!)) return true;
  }
  return false;
}

/** Whether some line starts with `%`, `---`, `...`, `?` or spaces then a tab: `^(?:%|---|\.\.\.|\t| *\t|\?)` (multiline). */
export function notPlain(text: string): boolean {
  const atLineStart = (i: number) => i === 0 || LINE_END.test(text[i - 1]!);
  for (let i = text.indexOf('\t'); i !== -1; i = text.indexOf('\t', i + 1)) {
    let j = i;
    while (j > 0 && text.charCodeAt(j - 1) === 32) j--;
    if (atLineStart(j)) return true;
  }
  for (const marker of ['%', '---', '...', '?']) {
    for (let i = text.indexOf(marker); i !== -1; i = text.indexOf(marker, i + 1)) if (atLineStart(i)) return true;
  }
  return false;
}

// JSON would write a negative zero as 0, and JSON.parse defines a `__proto__` key where js-yaml may not.
// (A regex here: `-` is too common for a search by character to be quicker.)
const NOT_KEPT_AS_JSON = /(?:^|[\s[{,:])-\.?0|__proto__/m;

interface Section {
  readonly key: string;
  /** Offsets of the section's text: its key line up to the next section's. */
  readonly start: number;
  readonly end: number;
}

const decoder = new TextDecoder();

const SPACE = 32;
const HASH = 35;
const LF = 10;
const CR = 13;
const DASH = 45;

/** The offset just past the line that starts at `at` (past its newline, or the end of the text). */
function lineEnd(text: string, at: number): number {
  const nl = text.indexOf('\n', at);
  return nl === -1 ? text.length : nl + 1;
}

/** Whether the line at `at` holds only spaces, or spaces and a comment. */
function blankOrComment(text: string, at: number): boolean {
  let i = at;
  while (text.charCodeAt(i) === SPACE) i++;
  const c = text.charCodeAt(i);
  return c === HASH || c === LF || Number.isNaN(c) || (c === CR && text.charCodeAt(i + 1) === LF);
}

function sections(text: string): Section[] | undefined {
  if (mayHoldAlias(text) || notPlain(text)) return undefined;
  const out: { key: string; start: number; end: number }[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < text.length; at = lineEnd(text, at)) {
    const c = text.charCodeAt(at);
    if (c === SPACE || c === HASH || c === LF || c === CR) {
      if (out.length === 0 && !blankOrComment(text, at)) return undefined;
      continue;
    }
    const m = KEY_LINE.exec(text.slice(at, lineEnd(text, at)).replace(/\r?\n$/, ''));
    if (!m || seen.has(m[1]!) || m[1]!.includes('__proto__')) return undefined;
    seen.add(m[1]!);
    if (out.length > 0) out.at(-1)!.end = at;
    out.push({ key: m[1]!, start: at, end: text.length });
  }
  return out.length > 0 ? out : undefined;
}

/** 32-bit FNV-1a of the UTF-16 units from `start` to `end`. */
function lineHash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * Runs of whole items of a section that holds one block sequence (and only blank or comment lines
 * before it), each as its offsets and item count; undefined for any other section.
 */
function itemRuns(text: string, section: Section): { start: number; end: number; items: number }[] | undefined {
  const bodyStart = lineEnd(text, section.start);
  const head = KEY_LINE.exec(text.slice(section.start, bodyStart).replace(/\r?\n$/, ''))!;
  if (head[2]?.replace(/#.*$/, '').trim()) return undefined; // `key: value` on one line
  let first = bodyStart;
  while (first < section.end && blankOrComment(text, first)) first = lineEnd(text, first);
  if (first >= section.end) return undefined;
  let indent = 0;
  while (text.charCodeAt(first + indent) === SPACE) indent++;
  const isItem = (at: number) => {
    for (let i = 0; i < indent; i++) if (text.charCodeAt(at + i) !== SPACE) return false;
    if (text.charCodeAt(at + indent) !== DASH) return false;
    const after = text.charCodeAt(at + indent + 1);
    return after === SPACE || after === LF || after === CR || Number.isNaN(after);
  };
  const inside = (at: number) => {
    for (let i = 0; i <= indent; i++) if (text.charCodeAt(at + i) !== SPACE) return false;
    return true;
  };
  if (!isItem(first)) return undefined;
  const runs: { start: number; end: number; items: number }[] = [];
  let runStart = bodyStart;
  let items = 0;
  let opened = 0; // the hash of the line that opened the current item
  for (let at = first; at < section.end; ) {
    const next = lineEnd(text, at);
    if (isItem(at)) {
      // A new item: the run ends before it when the line that opened the previous item says so.
      if (items >= MAX_ITEMS || (items >= MIN_ITEMS && (opened & CUT_MASK) === 0)) {
        runs.push({ start: runStart, end: at, items });
        runStart = at;
        items = 0;
      }
      items++;
      opened = lineHash(text, at, next);
    } else if (!inside(at) && !blankOrComment(text, at)) {
      return undefined; // a line that is neither an item, inside one, blank nor a comment
    }
    at = next;
  }
  runs.push({ start: runStart, end: section.end, items });
  return runs;
}

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
  readonly items: number;
  readonly digest: string;
  readonly cacheable: boolean;
  readonly json?: PieceJson;
}

/** How a text splits into pieces and which of them the cache knows. */
export interface PiecePlan {
  readonly pieces: readonly PlannedPiece[];
  /** Whether the pieces the cache does not know are a small part of the text, so parsing them alone pays. */
  readonly mostlyCached: boolean;
}

/** The pieces of `text` (see the module comment), or undefined when it is not plain enough to cut. */
export function planPieces(text: string, cache: PieceCache): PiecePlan | undefined {
  const split = sections(text);
  if (split === undefined) return undefined;
  const pieces: PlannedPiece[] = [];
  let unknownChars = 0;
  const digestOf = pieceDigests(text);
  const add = (key: string, kind: 'section' | 'items', start: number, end: number, items: number) => {
    const pieceText = text.slice(start, end);
    const digest = digestOf(kind, start, end);
    // A text the cache knows was cacheable when it was kept (only such pieces are), so it is not scanned again.
    const known = cache.get(digest);
    const cacheable = known !== undefined || !NOT_KEPT_AS_JSON.test(pieceText);
    const json = cacheable ? known : undefined;
    if (json === undefined) unknownChars += pieceText.length;
    pieces.push({ key: keyOf(key), kind, text: pieceText, items, digest, cacheable, ...(json !== undefined ? { json } : {}) });
  };
  for (const section of split) {
    const runs = itemRuns(text, section);
    if (runs === undefined) add(section.key, 'section', section.start, section.end, 0);
    else for (const run of runs) add(section.key, 'items', run.start, run.end, run.items);
  }
  // js-yaml pays a cost per document: past a quarter of the text, one whole parse is quicker.
  return { pieces, mostlyCached: unknownChars * 4 < text.length };
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

/** A piece with its JSON, taken from the cache or written now (before anything downstream can touch the value). */
function piece(p: PlannedPiece, value: unknown): YamlPiece {
  const json = p.json ?? (p.cacheable ? JSON.stringify(value) : undefined);
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
