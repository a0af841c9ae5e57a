/**
 * Where a block-YAML text's pieces lie (src/parse/yaml-pieces.ts reads them): its top-level
 * sections, and the runs of whole items a block sequence is cut into, at item lines a hash of the
 * line's text picks, so an inserted or edited item moves no cut far from it. A text the scans here
 * do not take as plain (an alias, a directive, a tab in the indentation, a repeated key) is not
 * cut at all.
 */

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


export interface Section {
  readonly key: string;
  /** Offsets of the section's text: its key line up to the next section's. */
  readonly start: number;
  readonly end: number;
}

const SPACE = 32;
const HASH = 35;
const LF = 10;
const CR = 13;
const DASH = 45;

/** The offset just past the line that starts at `at` (past its newline, or the end of the text). */
export function lineEnd(text: string, at: number): number {
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

/**
 * The top-level key the line at `at` opens (as written, quotes and all); null for a line that opens
 * none (indented, a comment, blank); undefined for a line at the top that is not a plain key line.
 */
function keyOnLine(text: string, at: number): string | null | undefined {
  const c = text.charCodeAt(at);
  if (c === SPACE || c === HASH || c === LF || c === CR) return null;
  const m = KEY_LINE.exec(text.slice(at, lineEnd(text, at)).replace(/\r?\n$/, ''));
  return m && !m[1]!.includes('__proto__') ? m[1]! : undefined;
}

/** The top-level sections of a plain text (see the module comment), or undefined when it is not plain. */
export function sections(text: string): Section[] | undefined {
  if (mayHoldAlias(text) || notPlain(text)) return undefined;
  const out: { key: string; start: number; end: number }[] = [];
  const seen = new Set<string>();
  for (let at = 0; at < text.length; at = lineEnd(text, at)) {
    const key = keyOnLine(text, at);
    if (key === null) {
      if (out.length === 0 && !blankOrComment(text, at)) return undefined;
      continue;
    }
    if (key === undefined || seen.has(key)) return undefined;
    seen.add(key);
    if (out.length > 0) out.at(-1)!.end = at;
    out.push({ key, start: at, end: text.length });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * `sections(text)` for a text that differs from `previous.text` only in its whole lines `[from, to)`
 * (the previous text's `[from, to - shift)`), lines the caller found plain: the sections around
 * them as they were (moved by the change in length), and key lines looked for in those lines alone.
 */
export function resectioned(text: string, previous: { readonly text: string; readonly sections: readonly Section[] }, from: number, to: number): Section[] | undefined {
  const shift = text.length - previous.text.length;
  const first = previous.sections[0];
  // What precedes the first key is checked by the whole scan.
  if (first === undefined || from <= first.start) return sections(text);
  const out: { key: string; start: number; end: number }[] = [];
  for (const s of previous.sections) if (s.start < from) out.push({ key: s.key, start: s.start, end: s.end });
  for (let at = from; at < to; at = lineEnd(text, at)) {
    const key = keyOnLine(text, at);
    if (key === undefined) return undefined;
    if (key !== null) out.push({ key, start: at, end: text.length });
  }
  for (const s of previous.sections) if (s.start >= to - shift) out.push({ key: s.key, start: s.start + shift, end: s.end + shift });
  const seen = new Set<string>();
  for (let i = 0; i < out.length; i++) {
    if (seen.has(out[i]!.key)) return undefined;
    seen.add(out[i]!.key);
    out[i]!.end = i + 1 < out.length ? out[i + 1]!.start : text.length;
  }
  return out;
}

/** 32-bit FNV-1a of the UTF-16 units from `start` to `end`. */
function lineHash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A run of whole items of a section's sequence: its offsets and how many items it holds. */
export interface ItemRun {
  readonly start: number;
  readonly end: number;
  readonly items: number;
}

/** How a section holding one block sequence lays out: its body's start, its first item line and that line's indent. */
export interface SequenceLayout {
  readonly bodyStart: number;
  readonly first: number;
  readonly indent: number;
}

/**
 * The layout of a section that holds one block sequence (and only blank or comment lines before
 * it); undefined for any other section.
 */
export function sequenceLayout(text: string, section: Section): SequenceLayout | undefined {
  const bodyStart = lineEnd(text, section.start);
  const head = KEY_LINE.exec(text.slice(section.start, bodyStart).replace(/\r?\n$/, ''))!;
  if (head[2]?.replace(/#.*$/, '').trim()) return undefined; // `key: value` on one line
  let first = bodyStart;
  while (first < section.end && blankOrComment(text, first)) first = lineEnd(text, first);
  if (first >= section.end) return undefined;
  let indent = 0;
  while (text.charCodeAt(first + indent) === SPACE) indent++;
  return isItemAt(text, first, indent) ? { bodyStart, first, indent } : undefined;
}

function isItemAt(text: string, at: number, indent: number): boolean {
  for (let i = 0; i < indent; i++) if (text.charCodeAt(at + i) !== SPACE) return false;
  if (text.charCodeAt(at + indent) !== DASH) return false;
  const after = text.charCodeAt(at + indent + 1);
  return after === SPACE || after === LF || after === CR || Number.isNaN(after);
}

function insideItem(text: string, at: number, indent: number): boolean {
  for (let i = 0; i <= indent; i++) if (text.charCodeAt(at + i) !== SPACE) return false;
  return true;
}

/**
 * The runs of the section's sequence from `runStart` (its body's start, or the item line a run
 * starts at) up to the section's end; `resync`, given the start of each run found after the first,
 * may end the scan there (the runs from it on are known), and the runs up to it are returned.
 * Undefined when a line is neither an item, inside one, blank nor a comment.
 */
export function scanRuns(text: string, section: Section, layout: SequenceLayout, runStart: number, resync?: (at: number) => boolean): { runs: ItemRun[]; resyncedAt?: number } | undefined {
  const { indent } = layout;
  const runs: ItemRun[] = [];
  let start = runStart;
  let items = 0;
  let opened = 0; // the hash of the line that opened the current item
  for (let at = runStart === layout.bodyStart ? layout.first : runStart; at < section.end; ) {
    const next = lineEnd(text, at);
    if (isItemAt(text, at, indent)) {
      // A new item: the run ends before it when the line that opened the previous item says so.
      if (items >= MAX_ITEMS || (items >= MIN_ITEMS && (opened & CUT_MASK) === 0)) {
        runs.push({ start, end: at, items });
        if (resync?.(at)) return { runs, resyncedAt: at };
        start = at;
        items = 0;
      }
      items++;
      opened = lineHash(text, at, next);
    } else if (!insideItem(text, at, indent) && !blankOrComment(text, at)) {
      return undefined;
    }
    at = next;
  }
  runs.push({ start, end: section.end, items });
  return { runs };
}

/** Where the last item line of a run of whole items (at the sequence's `indent`) starts; undefined when it holds none. */
export function lastItemStart(text: string, run: { readonly start: number; readonly end: number }, indent: number): number | undefined {
  let last: number | undefined;
  for (let at = run.start; at < run.end; at = lineEnd(text, at)) if (isItemAt(text, at, indent)) last = at;
  return last;
}

/** The runs of whole items of a section that holds one block sequence; undefined for any other section. */
export function itemRuns(text: string, section: Section): ItemRun[] | undefined {
  const layout = sequenceLayout(text, section);
  return layout === undefined ? undefined : scanRuns(text, section, layout, layout.bodyStart)?.runs;
}
