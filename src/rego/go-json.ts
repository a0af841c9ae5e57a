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
  const n = text.length;
  let i = 0;
  const fail = (phrase: string): never => {
    throw new GoJsonSyntaxError(phrase, i, i >= n);
  };
  const ws = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else return;
    }
  };
  const hex4 = (): number => {
    let u = 0;
    for (let k = 0; k < 4; k++) {
      const c = text.charCodeAt(i);
      const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (d < 0) fail('in \\u hexadecimal character escape');
      u = u * 16 + d;
      i++;
    }
    return u;
  };
  /** A string from its opening quote on; runs without escapes are copied as slices. */
  const str = (): string => {
    i++;
    let out = '';
    let run = i;
    for (;;) {
      if (i >= n) fail('in string literal');
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(run, i);
        i++;
        return out;
      }
      if (c < 0x20) fail('in string literal');
      if (c !== 0x5c) {
        i++;
        continue;
      }
      out += text.slice(run, i);
      i++;
      const e = text[i];
      if (e === 'u') {
        i++;
        const u = hex4();
        if (u >= 0xd800 && u < 0xdc00 && text[i] === '\\' && text[i + 1] === 'u') {
          const save = i;
          i += 2;
          const u2 = hex4();
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
        if (m === undefined) fail('in string escape code');
        out += m;
        i++;
      }
      run = i;
    }
  };
  /** An object member's key and its colon. */
  const key = (): string => {
    ws();
    if (text[i] !== '"') fail('looking for beginning of object key string');
    const k = str();
    ws();
    if (text[i] !== ':') fail('after object key');
    i++;
    return k;
  };
  const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
  const digits = (): void => {
    while (isDigit(text.charCodeAt(i))) i++;
  };
  /** A number literal, with Go's scanner's fault for each part that breaks off. */
  const number = (): string => {
    const start = i;
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else if (isDigit(text.charCodeAt(i))) digits();
    else fail('in numeric literal');
    if (text[i] === '.') {
      i++;
      if (!isDigit(text.charCodeAt(i))) fail('after decimal point in numeric literal');
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (!isDigit(text.charCodeAt(i))) fail('in exponent of numeric literal');
      digits();
    }
    return text.slice(start, i);
  };
  /** Whether the last scalar read was a number or a literal, which need a delimiter after them. */
  let bare = false;
  /** A scalar at `i`, or undefined at `[` or `{` (the caller opens those). */
  const scalar = (): T | undefined => {
    const c = text[i];
    bare = false;
    if (c === '"') return build.string(str());
    if (c === '[' || c === '{') return undefined;
    bare = true;
    const lit = c === 't' || c === 'f' || c === 'n' ? LITERALS[c] : undefined;
    if (lit !== undefined) {
      const [word, v] = lit;
      for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) fail(`in literal ${word} (expecting '${word[k]}')`);
      return build.literal(v);
    }
    if (c !== '-' && !isDigit(text.charCodeAt(i))) return fail('looking for beginning of value');
    return build.number(number());
  };

  let topBare = false;
  /** The document's one value, its containers kept on a stack rather than the call stack. */
  const document = (): T => {
    const stack: Open<T, O>[] = [];
    for (;;) {
      // read one value: a scalar, or the start of a container pushed on the stack
      ws();
      let v = scalar();
      if (v === undefined) {
        if (stack.length >= MAX_DEPTH) fail('exceeded max depth');
        const open = text[i];
        i++;
        ws();
        if (open === '[') {
          if (text[i] !== ']') {
            stack.push({ items: [] });
            continue;
          }
          i++;
          v = build.array([]);
        } else {
          if (text[i] !== '}') {
            stack.push({ object: build.openObject(), key: key() });
            continue;
          }
          i++;
          v = build.closeObject(build.openObject());
        }
      } else if (stack.length === 0) topBare = bare;
      // hand the value to the containers it completes, innermost first
      for (;;) {
        const top = stack[stack.length - 1];
        if (top === undefined) return v;
        if (top.items) top.items.push(v);
        else build.member(top.object, top.key, v);
        ws();
        const c = text[i];
        if (c === ',') {
          i++;
          if (!top.items) top.key = key();
          break;
        }
        if (top.items ? c !== ']' : c !== '}') fail(top.items ? 'after array element' : 'after object key:value pair');
        i++;
        stack.pop();
        v = top.items ? build.array(top.items) : build.closeObject(top.object);
      }
    }
  };
  const done = document();
  if (options.first) {
    // The decoder needs a delimiter after a bare number or literal; strings and containers end themselves.
    if (topBare && i < n && !/[\s,\]}:"[{]/.test(text[i]!)) fail('after top-level value');
    return done;
  }
  ws();
  if (i < n) fail('after top-level value');
  return done;
}
