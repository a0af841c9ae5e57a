/**
 * Parse a JSON or YAML input text into a plain value, keeping a way back from a path inside the
 * value to `line:col` in the text, so schema and reference errors can name the exact place.
 *
 * JSON goes through the one strict JSON reader (../canonical/strict-json.ts) and YAML through js-yaml (YAML 1.2 core schema: `yes` stays a string,
 * no implicit timestamps; duplicate keys and multiple documents refused; alias expansion capped);
 * both are fast. The index that turns a path into `line:col` (./locator.ts) is built only when an
 * error or notice needs one.
 */
import { load as loadYaml, parseEvents, CORE_SCHEMA, YAMLException } from 'js-yaml';
import { createRequire } from 'node:module';
import { LONE_SURROGATE, parseJsonInput, readJsonInputAt } from '../canonical/strict-json.ts';
import { ToolgateError, type SourceAt } from '../errors.ts';
import { lazyLocator, pointer, type Locate, type PathSegment } from './locator.ts';
import { piecesOfValue, planPieces, readInPieces, type PieceCache, type PiecePlan, type YamlPiece } from './yaml-pieces.ts';
import { mayHoldAlias } from './yaml-scan.ts';
import { spliceJson } from './json-splice.ts';

export { pointer, type PathSegment } from './locator.ts';

/** Deepest nesting accepted in any input document. */
export const MAX_DEPTH = 128;


export interface ParsedDocument {
  readonly file: string;
  readonly value: unknown;
  /** Location of the value at `path` (or of its nearest located ancestor); `key` points at the mapping key instead. */
  readonly locate: Locate;
  /** The pieces a YAML text was read in, when it was read with a piece cache (./yaml-pieces.ts). */
  readonly pieces?: readonly YamlPiece[];
  /** How the text was cut into pieces, for reading its next version (`ParseOptions.previousPlan`). */
  readonly plan?: PiecePlan;
}

export interface ParseOptions {
  /** Read block YAML in pieces, taking unchanged ones from this cache (./yaml-pieces.ts). */
  readonly pieces?: PieceCache;
  /** The plan of an earlier version of the text (`ParsedDocument.plan`), so only what changed is cut again. */
  readonly previousPlan?: PiecePlan;
  /** An earlier version of a JSON text and the value it was read as here, so only the member an edit falls in is read again (./json-splice.ts). */
  readonly previousJson?: { readonly text: string; readonly value: unknown };
}

export function isYamlFile(file: string): boolean {
  return /\.ya?ml$/i.test(file);
}

/** Parses text as JSON (by `.json` extension or `format`) or YAML; throws PARSE_ERROR with a location. */
export function parseText(file: string, text: string, format: 'json' | 'yaml' = isYamlFile(file) ? 'yaml' : 'json', options: ParseOptions = {}): ParsedDocument {
  if (format === 'yaml') return parseYaml(file, text, options.pieces, options.previousPlan);
  return (options.previousJson && splicedJson(file, text, options.previousJson)) || parseJson(file, text);
}

function lineColAt(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let last = -1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      last = i;
    }
  }
  return { line, col: offset - last };
}

function parseJson(file: string, text: string): ParsedDocument {
  // The strict reader refuses what JSON.parse would silently lose (repeated keys, rounded
  // integers, numbers out of range) and bounds nesting, each at line:col.
  const value = parseJsonInput(text, file);
  const locate = lazyLocator(file, text);
  if (MAY_HOLD_NON_ASCII.test(text)) refuseNfcCollisions(value, locate);
  return { file, value, locate };
}

/** The JSON document read from its previous version when an edit falls within one member (./json-splice.ts); undefined for a full read. */
function splicedJson(file: string, text: string, previous: { readonly text: string; readonly value: unknown }): ParsedDocument | undefined {
  const read = (t: string, start: number, depth: number) => {
    try {
      return readJsonInputAt(t, start, depth, file);
    } catch {
      return undefined;
    }
  };
  const spliced = spliceJson(previous, text, read);
  if (spliced === undefined) return undefined;
  const { start, end } = spliced.member;
  const locate = lazyLocator(file, text);
  // The rest of the text passed these when it was read before; a fault in the member is left to the full read to place.
  if (MAY_HOLD_NON_ASCII.test(text.slice(start, end))) {
    try {
      refuseNfcCollisions(spliced.member.value, locate);
    } catch {
      return undefined;
    }
  }
  return { file, value: spliced.value, locate };
}

function parseYaml(file: string, text: string, cache?: PieceCache, previousPlan?: PiecePlan): ParsedDocument {
  // js-yaml parses roughly ten times faster than the `yaml` package's Document API on large
  // manifests; the `yaml` CST is built only when an error needs a line and column.
  // With a piece cache, a text mostly unchanged since the last compile parses only what changed.
  const plan = cache ? planPieces(text, cache, previousPlan) : undefined;
  const inPieces = plan?.mostlyCached ? readInPieces(plan, MAX_DEPTH) : undefined;
  let value: unknown;
  try {
    value = inPieces ? inPieces.value : loadYaml(text, { schema: CORE_SCHEMA, filename: file, maxDepth: MAX_DEPTH });
  } catch (e) {
    if (e instanceof RangeError) throw tooDeep(file, text);
    if (e instanceof YAMLException) {
      const mark = (e as YAMLException & { mark?: { line: number; column: number } }).mark;
      const reason = (e as YAMLException & { reason?: string }).reason ?? e.message;
      if (/maxDepth/.test(reason)) throw mark ? new ToolgateError('INPUT_TOO_LARGE', `document nests deeper than ${MAX_DEPTH} levels`, { at: [{ file, line: mark.line + 1, col: mark.column + 1 }] }) : tooDeep(file, text);
      if (/input is empty/.test(reason)) return emptyDocument(file);
      const at = mark ? { file, line: mark.line + 1, col: mark.column + 1 } : /more than one document|single document/.test(reason) ? secondDocumentAt(file, text) : { file };
      throw new ToolgateError('PARSE_ERROR', `invalid YAML: ${reason}`, { at: [at] });
    }
    throw new ToolgateError('PARSE_ERROR', `invalid YAML: ${(e as Error).message}`, { at: [{ file }] });
  }
  // Only an alias can make the value larger or deeper than its text: js-yaml's maxDepth refuses
  // deeper nesting first, and without aliases every value costs a character of source, so a text
  // with none (pieces hold none either) needs no walk.
  if (inPieces === undefined && mayHoldAlias(text)) checkShape(file, value, text);
  const locate = lazyLocator(file, text);
  // Read in pieces, only the text parsed now can hold what these refuse: a kept piece passed them
  // when it was first parsed. Top-level keys are the one object that spans pieces.
  const scanned = inPieces && plan ? plan.pieces.filter((p) => p.json === undefined).map((p) => p.text) : [text];
  const mayHold = (re: RegExp) => scanned.some((t) => re.test(t));
  if (mayHold(MAY_OVERFLOW_YAML)) refuseNonFinite(value, locate, text);
  if (mayHold(MAY_HOLD_SURROGATE)) refuseLoneSurrogates(value, locate);
  if (mayHold(MAY_HOLD_NON_ASCII) || (inPieces && plan?.pieces.some((p) => MAY_HOLD_NON_ASCII.test(p.key)))) refuseNfcCollisions(value, locate);
  const pieces = inPieces?.pieces ?? (plan ? piecesOfValue(plan, value) : undefined);
  return { file, value, locate, ...(pieces ? { pieces } : {}), ...(plan ? { plan } : {}) };
}

// A number js-yaml turns into ±Infinity needs an exponent of 3+ digits or 309+ digits; YAML also
// spells .inf and .nan. Only text that holds one is walked.
// Keys can only coincide after NFC normalisation when some key is not ASCII.
const MAY_HOLD_NON_ASCII = /[^\x00-\x7f]|\\u|\\x|\\U/;
// A lone surrogate can only be written as an escape (the text itself is UTF-8).
const MAY_HOLD_SURROGATE = /\\u[dD][89a-fA-F]|\\U0000[dD][89a-fA-F]/;
const MAY_OVERFLOW_YAML = /\d[eE][+-]?\d{3}|\d{16}|\.(?:inf|Inf|INF|nan|NaN|NAN)\b/;

/**
 * Refuses a number that is not finite (1e400 read as Infinity, YAML .inf / .nan) or an integer
 * beyond 2^53 (rounded on reading) at its line:col: left in, it would fail later naming no file,
 * or make two different documents one.
 */
function refuseNonFinite(value: unknown, locate: Locate, text: string): void {
  const stack: [unknown, PathSegment[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) {
      throw new ToolgateError('PARSE_ERROR', `${pointer(path) || '/'}: the number ${v} is out of range (no JSON number is infinite or NaN)`, { at: [locate(path)] });
    }
    // An integer beyond 2^53 that a double cannot hold: the value written is not the value kept.
    if (typeof v === 'number' && Number.isInteger(v) && !Number.isSafeInteger(v) && !writtenExactly(v, locate(path), text)) {
      throw new ToolgateError('PARSE_ERROR', `${pointer(path) || '/'}: an integer beyond 2^53 cannot be kept exactly (a double reads it as ${String(v)})`, { at: [locate(path)] });
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, [...path, i]]));
    else for (const [k, c] of Object.entries(v)) stack.push([c, [...path, k]]);
  }
}

/**
 * Refuses two keys of one object that are one key after NFC normalisation ("é" written composed and
 * decomposed): canonical bytes normalise keys, so the two would collide there, far from the file.
 */
function refuseNfcCollisions(value: unknown, locate: Locate): void {
  // Paths are kept as parent links and spelled out only for the error: the walk visits every node.
  const values: unknown[] = [value];
  const parents: number[] = [-1];
  const keys: PathSegment[] = [''];
  const pathOf = (i: number): PathSegment[] => {
    const out: PathSegment[] = [];
    for (let j = i; j > 0; j = parents[j]!) out.push(keys[j]!);
    return out.reverse();
  };
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (let k = 0; k < v.length; k++) if (v[k] !== null && typeof v[k] === 'object') (values.push(v[k]), parents.push(i), keys.push(k));
      continue;
    }
    let seen: Map<string, string> | undefined;
    for (const k of Object.keys(v)) {
      if (/[^\x00-\x7f]/.test(k)) {
        seen ??= new Map();
        const first = seen.get(k.normalize('NFC'));
        if (first !== undefined) {
          const path = pathOf(i);
          throw new ToolgateError('PARSE_ERROR', `${pointer([...path, k])}: the keys ${escapedKey(first)} and ${escapedKey(k)} are one key after NFC normalisation`, {
            at: [locate([...path, k], 'key'), locate([...path, first], 'key')],
          });
        }
        seen.set(k.normalize('NFC'), k);
      }
      const c = (v as Record<string, unknown>)[k];
      if (c !== null && typeof c === 'object') (values.push(c), parents.push(i), keys.push(k));
    }
  }
}

/** A key with every character outside printable ASCII as \\uXXXX, so two spellings can be told apart. */
function escapedKey(k: string): string {
  return `"${k.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}"`;
}

/** Refuses a string or key holding a lone UTF-16 surrogate (no UTF-8 form, no canonical bytes) at its line:col. */
function refuseLoneSurrogates(value: unknown, locate: Locate): void {
  const stack: [unknown, PathSegment[]][] = [[value, []]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string' && LONE_SURROGATE.test(v)) {
      throw new ToolgateError('PARSE_ERROR', `${pointer(path) || '/'}: the string holds a lone UTF-16 surrogate, which has no UTF-8 form`, { at: [locate(path)] });
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) v.forEach((c, i) => stack.push([c, [...path, i]]));
    else {
      for (const [k, c] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) throw new ToolgateError('PARSE_ERROR', `${pointer([...path, k])}: the key holds a lone UTF-16 surrogate, which has no UTF-8 form`, { at: [locate([...path, k], 'key')] });
        stack.push([c, [...path, k]]);
      }
    }
  }
}

/**
 * Whether the integer token at `at` is the spelling JSON gives `v` (its shortest round-trip form):
 * only then does each accepted text read as a different value.
 */
function writtenExactly(v: number, at: SourceAt, text: string): boolean {
  if (at.line === undefined || at.col === undefined) return false;
  let offset = 0;
  for (let l = 1; l < at.line; l++) offset = text.indexOf('\n', offset) + 1;
  const token = /^[-+]?[0-9_]+(?![0-9_.eExXoO])/.exec(text.slice(offset + at.col - 1, offset + at.col + 400));
  if (!token) return true; // written another way (a fraction, an exponent, hex): not an integer's digits
  return token[0].replace(/_/g, '').replace(/^\+/, '') === String(v);
}

/**
 * Where the second document of a multi-document stream starts (its `---`, or its first token
 * after a `...`), for the error js-yaml raises without a mark. Runs only on that error.
 */
function secondDocumentAt(file: string, text: string): SourceAt {
  // Loaded here, not at the top: importing `yaml` costs ~100 ms, and only this error needs it.
  const { Parser: YamlParser } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  let seen = 0;
  for (const token of new YamlParser().parse(text)) {
    if (token.type !== 'document' || seen++ === 0) continue;
    return { file, ...lineColAt(text, token.offset) };
  }
  return { file };
}

function emptyDocument(file: string): ParsedDocument {
  return { file, value: null, locate: (path) => ({ file, line: 1, col: 1, path: pointer(path) }) };
}

function tooDeep(file: string, text: string): ToolgateError {
  return new ToolgateError('INPUT_TOO_LARGE', `document nests deeper than ${MAX_DEPTH} levels`, { at: [eventAt(file, text, 'deep')] });
}

/**
 * Where a YAML document first nests deeper than MAX_DEPTH ('deep'), or its first alias ('alias'),
 * from js-yaml's event stream; runs only on those refusals. The file alone when the events cannot
 * be read either.
 */
function eventAt(file: string, text: string, what: 'deep' | 'alias'): SourceAt {
  try {
    let depth = 0;
    for (const ev of parseEvents(text, { maxDepth: MAX_DEPTH + 1 }) as unknown as { type: number; start?: number; anchorStart?: number }[]) {
      if (ev.type === EVENT_SEQUENCE || ev.type === EVENT_MAPPING) {
        if (what === 'deep' && ++depth > MAX_DEPTH) return { file, ...lineColAt(text, ev.start ?? 0) };
      } else if (ev.type === EVENT_END) depth--;
      else if (ev.type === EVENT_ALIAS && what === 'alias') return { file, ...lineColAt(text, (ev.anchorStart ?? 1) - 1) };
    }
  } catch {
    // an event stream too deep for the event parser as well
  }
  return { file };
}

// js-yaml event types (as ./locator.ts reads them)
const EVENT_SEQUENCE = 2;
const EVENT_MAPPING = 3;
const EVENT_ALIAS = 5;
const EVENT_END = 6;

/**
 * Refuses documents nested deeper than MAX_DEPTH, and documents whose aliases expand to far more
 * values than the text could hold without them (an alias bomb): without aliases every value costs
 * at least one character of source, so a linear cap catches any exponential expansion.
 */
function checkShape(file: string, value: unknown, text: string): void {
  const cap = text.length * 4 + 10_000;
  let count = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (++count > cap) {
      throw new ToolgateError('PARSE_ERROR', `YAML aliases expand to more than ${cap} values (possible alias bomb)`, { at: [eventAt(file, text, 'alias')] });
    }
    if (v === null || typeof v !== 'object') continue;
    if (d >= MAX_DEPTH) throw tooDeep(file, text);
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, d + 1]);
  }
}
