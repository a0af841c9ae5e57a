/**
 * From a path inside a parsed document back to `line:col` in its text, for error messages.
 *
 * Built lazily, on the first location asked for, from js-yaml's event stream (JSON is read the
 * same way, being YAML flow): one pass records each node's kind and source offset in typed arrays,
 * with the index of a collection's end so a lookup skips whole subtrees. A lookup then costs the
 * path's breadth, not the document's size; the `yaml` package's full CST, which this replaces,
 * took minutes and gigabytes on a 35 MB manifest.
 */
import { parseEvents } from 'js-yaml';
import type { SourceAt } from '../errors.ts';

export type PathSegment = string | number;
export type Locate = (path: readonly PathSegment[], target?: 'key' | 'value') => SourceAt;

// js-yaml event types
const SEQUENCE = 2;
const MAPPING = 3;
const SCALAR = 4;
const ALIAS = 5;
const END = 6;
// js-yaml scalar styles whose value offset is one past an opening quote
const SINGLE_QUOTED = 2;
const DOUBLE_QUOTED = 3;

interface EventIndex {
  readonly kind: Uint8Array;
  /** Source offset where the node starts (at the opening quote for a quoted scalar). */
  readonly start: Int32Array;
  /** For a collection: the index just past its end event. For a scalar: the value's end offset. */
  readonly next: Int32Array;
  readonly style: Uint8Array;
  readonly length: number;
}

interface ScalarEvent {
  type: number;
  valueStart?: number;
  valueEnd?: number;
  start?: number;
  anchorStart?: number;
  style?: number;
}

function buildIndex(text: string): EventIndex {
  let cap = 1024;
  let kind = new Uint8Array(cap);
  let start = new Int32Array(cap);
  let next = new Int32Array(cap);
  let style = new Uint8Array(cap);
  let n = 0;
  const open: number[] = [];
  for (const ev of parseEvents(text, {}) as unknown as ScalarEvent[]) {
    if (ev.type === END) {
      const i = open.pop();
      if (i !== undefined) next[i] = n;
      continue;
    }
    if (ev.type !== SEQUENCE && ev.type !== MAPPING && ev.type !== SCALAR && ev.type !== ALIAS) continue;
    if (n === cap) {
      cap *= 2;
      const grow = <T extends Uint8Array | Int32Array>(a: T, b: T): T => (b.set(a), b);
      kind = grow(kind, new Uint8Array(cap));
      start = grow(start, new Int32Array(cap));
      next = grow(next, new Int32Array(cap));
      style = grow(style, new Uint8Array(cap));
    }
    kind[n] = ev.type;
    style[n] = ev.style ?? 0;
    if (ev.type === SCALAR) {
      const quoted = ev.style === SINGLE_QUOTED || ev.style === DOUBLE_QUOTED;
      start[n] = (ev.valueStart ?? 0) - (quoted ? 1 : 0);
      next[n] = ev.valueEnd ?? 0;
    } else if (ev.type === ALIAS) {
      start[n] = (ev.anchorStart ?? 1) - 1;
    } else {
      start[n] = ev.start ?? 0;
      open.push(n);
    }
    n++;
  }
  return { kind, start, next, style, length: n };
}

function lineIndex(text: string): Int32Array {
  const lines = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines.push(i + 1);
  return Int32Array.from(lines);
}

/** The index of the event after the node at `i` and everything inside it. */
function skip(ix: EventIndex, i: number): number {
  const k = ix.kind[i];
  return k === SEQUENCE || k === MAPPING ? ix.next[i]! : i + 1;
}

function keyText(ix: EventIndex, text: string, i: number): string | undefined {
  if (ix.kind[i] !== SCALAR) return undefined;
  const st = ix.style[i];
  const from = ix.start[i]! + (st === SINGLE_QUOTED || st === DOUBLE_QUOTED ? 1 : 0);
  const raw = text.slice(from, ix.next[i]);
  if (st === SINGLE_QUOTED) return raw.replace(/''/g, "'");
  if (st === DOUBLE_QUOTED) {
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return raw;
    }
  }
  return raw;
}

function lineCol(lineStarts: Int32Array, offset: number): { line: number; col: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: offset - lineStarts[lo]! + 1 };
}

/**
 * The top-level section of a block-style YAML document that holds `key`: from the line `key:` at
 * column 0 to the next line that starts another top-level entry. Indexing only that section keeps
 * a location in `expected_exceptions` from paying for 200,000 grants above it.
 */
function topLevelSection(text: string, key: string): { offset: number; text: string } | undefined {
  const quoted = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const head = new RegExp(`^(?:${quoted}|"${quoted}"|'${quoted}')[ \t]*:`, 'm').exec(text);
  if (!head) return undefined;
  const rest = /\n(?=[^\s#-])/g;
  rest.lastIndex = head.index + 1;
  const end = rest.exec(text);
  return { offset: head.index, text: text.slice(head.index, end ? end.index + 1 : text.length) };
}

/** Returns `locate`, building an index on first use (per top-level section of block YAML). */
export function lazyLocator(file: string, text: string): Locate {
  const indexes = new Map<string, { ix: EventIndex | null; offset: number }>();
  const indexFor = (section: string, sliceText: string, offset: number) => {
    let entry = indexes.get(section);
    if (!entry) {
      let ix: EventIndex | null;
      try {
        ix = buildIndex(sliceText);
      } catch {
        ix = null; // text the event parser cannot read: report the file alone
      }
      indexes.set(section, (entry = { ix, offset }));
    }
    return entry;
  };
  // The line starts too are found on first use: most documents are read without a fault to place.
  let lines: Int32Array | undefined;
  const flow = /^\s*[{[]/.test(text);
  // Finding a section scans the whole text; an audit asks for thousands of locations in one section.
  const sections = new Map<string, ReturnType<typeof topLevelSection>>();
  const sectionOf = (key: string) => {
    if (!sections.has(key)) sections.set(key, topLevelSection(text, key));
    return sections.get(key);
  };
  return (path, target = 'value') => {
    const where = pointer(path);
    const first = path[0];
    const section = typeof first === 'string' && !flow ? sectionOf(first) : undefined;
    const { ix, offset } = section ? indexFor(`/${first}`, section.text, section.offset) : indexFor('', text, 0);
    if (!ix || ix.length === 0) return { file, path: where };
    const at = find(ix, section ? section.text : text, path, target);
    return { file, ...lineCol((lines ??= lineIndex(text)), offset + at), path: where };
  };
}

/** The source offset of the node at `path` (or of the deepest node on it that exists). */
function find(ix: EventIndex, text: string, path: readonly PathSegment[], target: 'key' | 'value'): number {
  let node = 0; // the root node
  let keyAt = -1;
  for (const seg of path) {
    const k = ix.kind[node];
    let found = -1;
    keyAt = -1;
    if (k === SEQUENCE && typeof seg === 'number') {
      let i = node + 1;
      for (let c = 0; i < ix.next[node]! && c < seg; c++) i = skip(ix, i);
      if (i < ix.next[node]!) found = i;
    } else if (k === MAPPING) {
      for (let i = node + 1; i < ix.next[node]!; ) {
        const valueAt = skip(ix, i);
        if (keyText(ix, text, i) === String(seg)) {
          keyAt = i;
          found = valueAt;
          break;
        }
        i = skip(ix, valueAt);
      }
    }
    if (found === -1) break; // report the deepest node that exists
    node = found;
  }
  return target === 'key' && keyAt !== -1 ? ix.start[keyAt]! : ix.start[node]!;
}

/** RFC 6901 JSON pointer of a path. */
export function pointer(path: readonly PathSegment[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}
