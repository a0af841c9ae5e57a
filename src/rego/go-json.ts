/**
 * JSON as Go's encoding/json reads it: the one reader for the JSON OPA reads with Go's rules, that is
 * json.unmarshal and json.is_valid in the engine and the bundle files (.manifest, data.json,
 * .signatures.json) in bundle/. Go's string escapes (an escaped lone surrogate becomes U+FFFD), its
 * 10,000-level nesting limit (read with an explicit stack, so no input can overflow ours), number
 * literals handed over as text, and its syntax faults as data (the phrase Go's scanner uses, where,
 * what was found) so that each caller words them as its own output needs.
 */

/** What the reader builds a document of (values T, objects O while their members are read). */
export interface GoJsonBuilder<T, O> {
  string(s: string): T;
  /** A number literal as written (JSON's grammar, any length). */
  number(literal: string): T;
  literal(v: boolean | null): T;
  array(items: T[]): T;
  /** An object's members come in document order through `member`; a repeated key comes twice. */
  openObject(): O;
  member(object: O, key: string, value: T): void;
  closeObject(object: O): T;
}

/** A document that is not JSON: Go's scanner phrase, the offset of the fault, and whether the text ended there. */
export class GoJsonSyntaxError extends Error {
  constructor(
    /** Go's words after the character, e.g. `after object key`, `in literal true (expecting 'r')`. */
    readonly phrase: string,
    readonly offset: number,
    /** The text ended before the fault could be read (Go: unexpected end of JSON input). */
    readonly atEnd: boolean,
  ) {
    super(atEnd ? `unexpected end of JSON input (${phrase})` : `${phrase} at offset ${offset}`);
    this.name = 'GoJsonSyntaxError';
  }
}

/** Go's json.Decoder limit on nested arrays and objects. */
export const MAX_DEPTH = 10_000;

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const LITERALS: Readonly<Record<string, readonly [string, boolean | null]>> = { t: ['true', true], f: ['false', false], n: ['null', null] };

type Open<T, O> = { readonly items: T[] } | { readonly items?: undefined; readonly object: O; key: string };

/**
 * Reads one JSON document. With `first`, stops after the first value, as json.Decoder.Decode does
 * (a bare number or literal must still be followed by a delimiter); otherwise only whitespace may follow.
 */
export function readGoJson<T, O>(text: string, build: GoJsonBuilder<T, O>, options: { readonly first?: boolean } = {}): T {
  const r = new GoJsonReader(text, build);
  const done = r.document();
  if (options.first) {
    // The decoder needs a delimiter after a bare number or literal; strings and containers end themselves.
    if (r.topBare && r.i < r.n && !/[\s,\]}:"[{]/.test(text[r.i]!)) r.fail('after top-level value');
    return done;
  }
  r.ws();
  if (r.i < r.n) r.fail('after top-level value');
  return done;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** The reader's state and its parts (methods rather than closures: a reader is made per document, and most documents are small). */
class GoJsonReader<T, O> {
  i = 0;
  readonly n: number;
  /** Whether the last scalar read was a number or a literal, which need a delimiter after them. */
  bare = false;
  topBare = false;

  constructor(
    readonly text: string,
    readonly build: GoJsonBuilder<T, O>,
  ) {
    this.n = text.length;
  }

  fail(phrase: string): never {
    throw new GoJsonSyntaxError(phrase, this.i, this.i >= this.n);
  }

  ws(): void {
    const text = this.text;
    for (;;) {
      const c = text.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }

  hex4(): number {
    let u = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.text.charCodeAt(this.i);
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (d < 0) this.fail('in \\u hexadecimal character escape');
      u = u * 16 + d;
      this.i++;
    }
    return u;
  }

  /** A string from its opening quote on; runs without escapes are copied as slices. */
  str(): string {
    const text = this.text;
    const n = this.n;
    let i = this.i + 1;
    let out = '';
    let run = i;
    for (;;) {
      if (i >= n) {
        this.i = i;
        this.fail('in string literal');
      }
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(run, i);
        this.i = i + 1;
        return out;
      }
      if (c < 0x20) {
        this.i = i;
        this.fail('in string literal');
      }
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(run, i);
      i++;
      const e = text[i];
      if (e === 'u') {
        this.i = i + 1;
        const u = this.hex4();
        i = this.i;
        if (u >= 0xd800 && u < 0xdc00 && text[i] === '\\' && text[i + 1] === 'u') {
          const save = i;
          this.i = i + 2;
          const u2 = this.hex4();
          i = this.i;
          if (u2 >= 0xdc00 && u2 < 0xe000) {
            out += String.fromCharCode(u, u2);
            run = i;
            continue;
          }
          i = save;
        }
        out += u >= 0xd800 && u < 0xe000 ? '\uFFFD' : String.fromCharCode(u);
      } else {
        const m = e === undefined ? undefined : ESCAPES[e];
        if (m === undefined) {
          this.i = i;
          this.fail('in string escape code');
        }
        out += m;
        i++;
      }
      run = i;
    }
  }

  /** An object member's key and its colon. */
  key(): string {
    this.ws();
    if (this.text[this.i] !== '"') this.fail('looking for beginning of object key string');
    const k = this.str();
    this.ws();
    if (this.text[this.i] !== ':') this.fail('after object key');
    this.i++;
    return k;
  }

  digits(): void {
    while (isDigit(this.text.charCodeAt(this.i))) this.i++;
  }

  /** A number literal, with Go's scanner's fault for each part that breaks off. */
  number(): string {
    const text = this.text;
    const start = this.i;
    if (text[this.i] === '-') this.i++;
    if (text[this.i] === '0') this.i++;
    else if (isDigit(text.charCodeAt(this.i))) this.digits();
    else this.fail('in numeric literal');
    if (text[this.i] === '.') {
      this.i++;
      if (!isDigit(text.charCodeAt(this.i))) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (text[this.i] === 'e' || text[this.i] === 'E') {
      this.i++;
      if (text[this.i] === '+' || text[this.i] === '-') this.i++;
      if (!isDigit(text.charCodeAt(this.i))) this.fail('in exponent of numeric literal');
      this.digits();
    }
    return text.slice(start, this.i);
  }

  /** A scalar at `i`, or undefined at `[` or `{` (the caller opens those). */
  scalar(): T | undefined {
    const text = this.text;
    const c = text[this.i];
    this.bare = false;
    if (c === '"') return this.build.string(this.str());
    if (c === '[' || c === '{') return undefined;
    this.bare = true;
    const lit = c === 't' || c === 'f' || c === 'n' ? LITERALS[c] : undefined;
    if (lit !== undefined) {
      const [word, v] = lit;
      for (let k = 0; k < word.length; k++, this.i++) if (text[this.i] !== word[k]) this.fail(`in literal ${word} (expecting '${word[k]}')`);
      return this.build.literal(v);
    }
    if (c !== '-' && !isDigit(text.charCodeAt(this.i))) return this.fail('looking for beginning of value');
    return this.build.number(this.number());
  }

  /** The document's one value, its containers kept on a stack rather than the call stack. */
  document(): T {
    const text = this.text;
    const build = this.build;
    const stack: Open<T, O>[] = [];
    for (;;) {
      // read one value: a scalar, or the start of a container pushed on the stack
      this.ws();
      let v = this.scalar();
      if (v === undefined) {
        if (stack.length >= MAX_DEPTH) this.fail('exceeded max depth');
        const open = text[this.i];
        this.i++;
        this.ws();
        if (open === '[') {
          if (text[this.i] !== ']') {
            stack.push({ items: [] });
            continue;
          }
          this.i++;
          v = build.array([]);
        } else {
          if (text[this.i] !== '}') {
            stack.push({ object: build.openObject(), key: this.key() });
            continue;
          }
          this.i++;
          v = build.closeObject(build.openObject());
        }
      } else if (stack.length === 0) this.topBare = this.bare;
      // hand the value to the containers it completes, innermost first
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) return v;
        if (top.items) top.items.push(v);
        else build.member(top.object, top.key, v);
        this.ws();
        const c = text[this.i];
        if (c === ',') {
          this.i++;
          if (!top.items) top.key = this.key();
          break;
        }
        if (top.items ? c !== ']' : c !== '}') this.fail(top.items ? 'after array element' : 'after object key:value pair');
        this.i++;
        stack.pop();
        v = top.items ? build.array(top.items) : build.closeObject(top.object);
      }
    }
  }
}
