/**
 * The one strict JSON reader (RFC 8259 syntax) for every JSON input. A key repeated in one object
 * is refused naming both places (JSON.parse would silently keep the last), `__proto__` is an
 * ordinary key, and every fault carries `line:col`. Two ways to read numbers:
 * - `parseStrictJson` (canonical inputs: graphs, windows, diff records): integers of any size kept
 *   exactly (a bigint beyond 2^53), a fraction or exponent kept as `JsonFloat` so the caller can
 *   refuse it by name;
 * - `parseJsonInput` (catalogs, manifests, servers files, observations, logs): plain JS numbers,
 *   and an integer beyond 2^53 or a number out of double range refused, since rounding it would
 *   make two different inputs one.
 */
import { ToolgateError } from '../errors.ts';

/** A JSON number written with a fraction or an exponent: it has no canonical bytes here. */
export class JsonFloat {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type StrictJsonValue = string | number | bigint | boolean | null | JsonFloat | StrictJsonValue[] | { [key: string]: StrictJsonValue };

export const STRICT_JSON_MAX_DEPTH = 128;

/**
 * Parses JSON text strictly.
 * @example parseStrictJson('{"a":12345678901234567890}', 'x.json') // { a: 12345678901234567890n }
 */
export function parseStrictJson(text: string, source = '<json>'): StrictJsonValue {
  return parseWith(new Parser(text, source, false));
}

/**
 * Parses a JSON input into plain values (numbers as JS numbers): what JSON.parse gives, minus its
 * silent losses (repeated keys, rounded integers, `__proto__` taken as the prototype).
 * @example parseJsonInput('{"a":1,"a":2}', 'c.json') // throws PARSE_ERROR at c.json:1:8 (first at 1:2)
 */
export function parseJsonInput(text: string, source: string, options: { readonly line?: number } = {}): unknown {
  const quick = quickJsonInput(text);
  if (quick !== undefined) return quick.value;
  const p = new Parser(text, source, true);
  // One line of a JSON Lines file: its faults are reported at that line of the file.
  if (options.line !== undefined) p.firstLine = options.line;
  return parseWith(p);
}

/**
 * The value of `text` read by JSON.parse (native, and the quicker reader of a large catalog),
 * when it is provably what the strict reader gives: no escaped surrogate (the strict reader refuses
 * a lone one), every number finite and either a fraction or a safe integer (the strict reader's
 * rules for the rest need the number's text), no nesting past the limit, and as many members in
 * the value as `:` written outside strings in the text (a repeated key, which JSON.parse keeps
 * once, makes one fewer). Undefined otherwise, and the strict reader reads it, saying what is wrong.
 */
function quickJsonInput(text: string): { value: unknown } | undefined {
  if (ESCAPED_SURROGATE.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const members = plainMembers(value, 0);
  return members >= 0 && members === colonsOutsideStrings(text) ? { value } : undefined;
}

const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/;

/** The number of object members in a JSON.parse value, or -1 where only the strict reader can say what it reads. */
function plainMembers(v: unknown, depth: number): number {
  if (depth > STRICT_JSON_MAX_DEPTH) return -1;
  if (typeof v === 'number') return Number.isFinite(v) && (Number.isSafeInteger(v) || !Number.isInteger(v)) ? 0 : -1;
  if (typeof v !== 'object' || v === null) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const m = plainMembers(v[i], depth + 1);
      if (m < 0) return -1;
      n += m;
    }
    return n;
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const m = plainMembers(o[keys[i]!], depth + 1);
    if (m < 0) return -1;
    n += m;
  }
  return n + keys.length;
}

/** How many `:` a JSON text holds outside its strings: in valid JSON, one per object member. */
function colonsOutsideStrings(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) n++;
    else if (c === 34) {
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    }
  }
  return n;
}

/**
 * One value of a JSON input read as `parseJsonInput` reads it, from `start` in `text`, nested `depth`
 * containers deep in its document: the value and the offset just after it. Throws as that reader does.
 */
export function readJsonInputAt(text: string, start: number, depth: number, source: string): { value: unknown; end: number } {
  const p = new Parser(text, source, true);
  p.i = start;
  const value = p.value(depth);
  return { value, end: p.i };
}

function parseWith(p: Parser): StrictJsonValue {
  const text = p.s;
  if (text.charCodeAt(0) === 0xfeff) p.fail('the text starts with a byte order mark (U+FEFF), which JSON does not allow');
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i < text.length) p.fail('unexpected text after the JSON value');
  return v;
}

const KEY_SLOTS = 64;

/** Half of a UTF-16 surrogate pair standing alone. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

class Parser {
  i = 0;
  firstLine = 1;
  readonly keys: (string | undefined)[] = new Array<string | undefined>(KEY_SLOTS).fill(undefined);
  constructor(
    readonly s: string,
    readonly source: string,
    /** Plain JS numbers (parseJsonInput) instead of exact integers and JsonFloat. */
    readonly plainNumbers: boolean,
  ) {}

  lineCol(at: number): { line: number; col: number } {
    let line = this.firstLine;
    let last = -1;
    for (let k = 0; k < at && k < this.s.length; k++) {
      if (this.s.charCodeAt(k) === 10) {
        line++;
        last = k;
      }
    }
    return { line, col: at - last };
  }

  fail(msg: string, at = this.i, code: 'PARSE_ERROR' | 'INPUT_TOO_LARGE' = 'PARSE_ERROR'): never {
    const { line, col } = this.lineCol(at);
    throw new ToolgateError(code, `${this.source}: invalid JSON at ${line}:${col}: ${msg}`, { at: [{ file: this.source, line, col }] });
  }

  /** Refuses a repeated key at its second place, naming the first (found again only now: this is rare). */
  repeatedKey(key: string, objectStart: number, at: number): never {
    const again = new Parser(this.s, this.source, this.plainNumbers);
    again.firstLine = this.firstLine;
    again.i = objectStart + 1;
    let first = at;
    for (;;) {
      again.ws();
      const keyAt = again.i;
      if (again.string() === key) {
        first = keyAt;
        break;
      }
      again.ws();
      again.i++; // ':'
      again.ws();
      again.value(0);
      again.ws();
      again.i++; // ','
    }
    const f = this.lineCol(first);
    const { line, col } = this.lineCol(at);
    throw new ToolgateError('PARSE_ERROR', `${this.source}: invalid JSON at ${line}:${col}: key ${JSON.stringify(key)} appears twice in one object (first at ${f.line}:${f.col})`, {
      at: [
        { file: this.source, line, col },
        { file: this.source, line: f.line, col: f.col },
      ],
    });
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  value(depth: number): StrictJsonValue {
    if (depth > STRICT_JSON_MAX_DEPTH) this.fail(`nesting deeper than ${STRICT_JSON_MAX_DEPTH}`, this.i, this.plainNumbers ? 'INPUT_TOO_LARGE' : 'PARSE_ERROR');
    const c = this.s.charCodeAt(this.i);
    switch (c) {
      case 123 /* { */:
        return this.object(depth);
      case 91 /* [ */:
        return this.array(depth);
      case 34 /* " */:
        return this.string();
      case 116 /* t */:
        return this.literal('true', true);
      case 102 /* f */:
        return this.literal('false', false);
      case 110 /* n */:
        return this.literal('null', null);
      default:
        if (c === 45 || (c >= 48 && c <= 57)) return this.number();
        return this.fail(Number.isNaN(c) ? 'unexpected end of input' : `unexpected character ${JSON.stringify(this.s[this.i])}`);
    }
  }

  literal<T>(word: string, v: T): T {
    if (!this.s.startsWith(word, this.i)) this.fail(`unexpected token`);
    this.i += word.length;
    return v;
  }

  object(depth: number): { [key: string]: StrictJsonValue } {
    const objectStart = this.i;
    this.i++;
    const out: { [key: string]: StrictJsonValue } = {};
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 34) this.fail('expected a string key');
      const at = this.i;
      const key = this.key();
      // No JSON value is undefined, so a key not found needs no own-property check; one found may
      // be inherited ("toString") or repeated.
      if (out[key] !== undefined && Object.prototype.hasOwnProperty.call(out, key)) this.repeatedKey(key, objectStart, at);
      this.ws();
      if (this.s.charCodeAt(this.i) !== 58) this.fail("expected ':'");
      this.i++;
      this.ws();
      const v = this.value(depth + 1);
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        continue;
      }
      if (c === 125) {
        this.i++;
        return out;
      }
      this.fail("expected ',' or '}'");
    }
  }

  array(depth: number): StrictJsonValue[] {
    this.i++;
    const out: StrictJsonValue[] = [];
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s.charCodeAt(this.i);
      if (c === 44) {
        this.i++;
        continue;
      }
      if (c === 93) {
        this.i++;
        return out;
      }
      this.fail("expected ',' or ']'");
    }
  }

  /**
   * An object key. Keys repeat from object to object: one seen before is found in a small cache
   * by its first two units and compared in place (then the closing quote must follow), and the
   * cached string, a property name already, is reused instead of a new slice being made and
   * looked up again: an internalized key makes object()'s repeated-key test one fast property read.
   */
  key(): string {
    const s = this.s;
    const start = this.i + 1;
    const slot = (s.charCodeAt(start) * 31 + s.charCodeAt(start + 1)) & (KEY_SLOTS - 1);
    const cached = this.keys[slot];
    if (cached !== undefined && s.charCodeAt(start + cached.length) === 34 && s.startsWith(cached, start)) {
      this.i = start + cached.length + 1;
      return cached;
    }
    const key = this.string();
    // Only a key written without escapes is cached: its text in the input is then the key itself.
    if (this.i - start - 1 === key.length) this.keys[slot] = key;
    return key;
  }

  string(): string {
    const s = this.s;
    const start = this.i + 1;
    let i = start;
    // Fast path: no escape, no control character before the closing quote.
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 34) {
        this.i = i + 1;
        return s.slice(start, i);
      }
      if (c === 92 || c < 32 || Number.isNaN(c)) break;
      i++;
    }
    let out = s.slice(start, i);
    for (;;) {
      const c = s.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string', i);
      if (c === 34) {
        this.i = i + 1;
        // Only an escape can write half a surrogate pair; such a string has no UTF-8 form.
        if (LONE_SURROGATE.test(out)) this.fail('the string holds a lone UTF-16 surrogate (\\uD800-\\uDFFF unpaired), which has no UTF-8 form', start - 1);
        return out;
      }
      if (c < 32) this.fail('control character in string', i);
      if (c === 92) {
        const e = s[i + 1];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            const hex = s.slice(i + 2, i + 6);
            if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('bad \\u escape', i);
            out += String.fromCharCode(parseInt(hex, 16));
            i += 4;
            break;
          }
          default:
            this.fail('bad escape', i);
        }
        i += 2;
        continue;
      }
      out += s[i];
      i++;
    }
  }

  number(): number | bigint | JsonFloat {
    const s = this.s;
    const m = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    m.lastIndex = this.i;
    const r = m.exec(s);
    if (!r) return this.fail('bad number');
    this.i = m.lastIndex;
    const text = r[0];
    if (this.plainNumbers) {
      const n = Number(text);
      if (!Number.isFinite(n)) this.fail(`the number ${text} is out of range`, this.i - text.length);
      // Beyond 2^53 a double keeps only some integers, each written one way (its shortest
      // round-trip form); any other spelling is rounded and two different inputs would read as one.
      if (r[1] === undefined && r[2] === undefined && !Number.isSafeInteger(n) && String(n) !== text) {
        this.fail(`the integer ${text} is beyond 2^53 and cannot be kept exactly (a double reads it as ${String(n)})`, this.i - text.length);
      }
      return n;
    }
    if (r[1] !== undefined || r[2] !== undefined) return new JsonFloat(text);
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }
}
