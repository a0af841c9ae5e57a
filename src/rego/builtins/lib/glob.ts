/**
 * Glob patterns as OPA's `glob.match` reads them, with github.com/gobwas/glob v1.1.0 (its lexer in
 * syntax/lexer.go, its parser in parse.go): `*` any run of non-separator characters, `**` any run of
 * characters, `?` one non-separator character, `[abc]` / `[a-z]` one character from a set or one
 * range (`[!…]` negates it; a set and a range cannot be mixed), `{a,b}` alternatives (nestable),
 * `\x` a literal x. Errors are the library's, at its UTF-8 byte offsets
 * (`glob: syntax error at 5: range hi character is less than lo`).
 *
 * The parsed pattern is compiled to an RE2 expression (lib/re2.ts; characters are code points).
 * RE2 never backtracks, so matching is linear in the subject: a pattern such as `*a*a*a*a*b` cannot
 * stall on a long subject as it does on a backtracking matcher.
 */
import { compileRegexp, matchString, type Regexp } from './re2.ts';

/** A pattern gobwas/glob rejects; the message is the library's. */
export class GlobSyntaxError extends Error {
  override readonly name = 'GlobSyntaxError';
}

type Token =
  | { kind: 'text'; text: string }
  | { kind: 'any' | 'super' | 'single' | 'not' | 'separator' | 'range-open' | 'range-close' | 'range-between' | 'terms-open' | 'terms-close' }
  | { kind: 'range-lo' | 'range-hi'; rune: number };

/** The library's lexer: one item per fetch, an error stopping everything at the offset reached. */
class Lexer {
  private readonly runes: number[];
  /** UTF-8 byte offset of each rune, and of the end. */
  private readonly offsets: number[];
  private index = 0;
  private termsLevel = 0;
  private readonly queue: Token[] = [];

  constructor(source: string) {
    this.runes = Array.from(source, (c) => c.codePointAt(0)!);
    this.offsets = [0];
    for (const r of this.runes) this.offsets.push(this.offsets[this.offsets.length - 1]! + utf8Length(r));
  }

  /** The byte offset right after the most recently fetched item (what the library reports). */
  offset(): number {
    return this.offsets[this.index]!;
  }

  next(): Token | undefined {
    if (this.queue.length === 0) this.fetchItem();
    return this.queue.shift();
  }

  private fail(reason: string): never {
    throw new GlobSyntaxError(`glob: syntax error at ${this.offset()}: ${reason}`);
  }

  private read(): number | undefined {
    const r = this.runes[this.index];
    if (r !== undefined) this.index++;
    return r;
  }

  private fetchItem(): void {
    const r = this.read();
    if (r === undefined) return;
    if (r === OPEN_TERMS) {
      this.termsLevel++;
      this.queue.push({ kind: 'terms-open' });
    } else if (r === COMMA && this.termsLevel > 0) {
      this.queue.push({ kind: 'separator' });
    } else if (r === CLOSE_TERMS && this.termsLevel > 0) {
      this.queue.push({ kind: 'terms-close' });
      this.termsLevel--;
    } else if (r === OPEN_RANGE) {
      this.queue.push({ kind: 'range-open' });
      this.fetchRange();
    } else if (r === SINGLE) {
      this.queue.push({ kind: 'single' });
    } else if (r === ANY) {
      if (this.runes[this.index] === ANY) {
        this.index++;
        this.queue.push({ kind: 'super' });
      } else this.queue.push({ kind: 'any' });
    } else {
      this.index--;
      if (this.fetchText(this.termsLevel > 0 ? IN_TERMS_BREAKERS : IN_TEXT_BREAKERS)) this.fail('trailing backslash');
    }
  }

  private fetchRange(): void {
    let wantHi = false;
    let wantClose = false;
    let seenNot = false;
    for (;;) {
      const r = this.read();
      if (r === undefined) this.fail('unexpected end of input');
      if (wantClose) {
        if (r !== CLOSE_RANGE) this.fail('expected close range character');
        this.queue.push({ kind: 'range-close' });
        return;
      }
      if (wantHi) {
        this.queue.push({ kind: 'range-hi', rune: r });
        wantClose = true;
        continue;
      }
      if (!seenNot && r === NOT) {
        this.queue.push({ kind: 'not' });
        seenNot = true;
        continue;
      }
      if (this.runes[this.index] === BETWEEN) {
        this.index++;
        this.queue.push({ kind: 'range-lo', rune: r }, { kind: 'range-between' });
        wantHi = true;
        continue;
      }
      this.index--;
      // A trailing backslash here is at the end of input, so the library's next read replaces that
      // error with its own (`unexpected end of input`).
      this.fetchText(RANGE_BREAKERS);
      wantClose = true;
    }
  }

  /** Queues the text up to a breaker; true when the input ended right after a backslash. */
  private fetchText(breakers: readonly number[]): boolean {
    let text = '';
    let escaped = false;
    for (;;) {
      const r = this.read();
      if (r === undefined) break;
      if (!escaped) {
        if (r === ESCAPE) {
          escaped = true;
          continue;
        }
        if (breakers.includes(r)) {
          this.index--;
          break;
        }
      }
      escaped = false;
      text += String.fromCodePoint(r);
    }
    if (text !== '') this.queue.push({ kind: 'text', text });
    return escaped;
  }
}

const ANY = 0x2a;
const COMMA = 0x2c;
const SINGLE = 0x3f;
const ESCAPE = 0x5c;
const OPEN_RANGE = 0x5b;
const CLOSE_RANGE = 0x5d;
const OPEN_TERMS = 0x7b;
const CLOSE_TERMS = 0x7d;
const NOT = 0x21;
const BETWEEN = 0x2d;
const IN_TEXT_BREAKERS = [SINGLE, ANY, OPEN_RANGE, OPEN_TERMS];
const IN_TERMS_BREAKERS = [...IN_TEXT_BREAKERS, CLOSE_TERMS, COMMA];
const RANGE_BREAKERS = [CLOSE_RANGE];

function utf8Length(r: number): number {
  return r < 0x80 ? 1 : r < 0x800 ? 2 : r < 0x10000 ? 3 : 4;
}

/** A code point as an RE2 escape, safe inside and outside a class. */
function literal(r: number): string {
  return `\\x{${r.toString(16)}}`;
}

function literalText(text: string): string {
  return Array.from(text, (c) => literal(c.codePointAt(0)!)).join('');
}

interface Operator {
  readonly kind: 'terms' | 'list';
  readonly index: number;
}

/**
 * Translate a glob into an RE2 expression anchored at both ends, following the library's
 * operand/operator stack: `{` opens a group and its first alternative, `,` closes an alternative
 * and opens the next, `}` closes the last one and the group.
 */
export function globToRegExpSource(pattern: string, separators: readonly string[]): string {
  const sep = separators.map((s) => literal(s.codePointAt(0)!)).join('');
  const single = sep === '' ? '(?s:.)' : `[^${sep}]`;
  const lex = new Lexer(pattern);
  const fail = (reason: string): never => {
    throw new GlobSyntaxError(`glob: syntax error at ${lex.offset()}: ${reason}`);
  };
  let stack: string[] = [];
  const operators: Operator[] = [];
  for (let token = lex.next(); token !== undefined; token = lex.next()) {
    switch (token.kind) {
      case 'single':
        stack.push(single);
        break;
      case 'text':
        stack.push(literalText(token.text));
        break;
      case 'range-open':
        stack.push(parseRange(lex, fail));
        break;
      case 'any':
        stack.push(`${single}*`);
        break;
      case 'super':
        stack.push('(?s:.)*');
        break;
      case 'terms-open':
        operators.push({ kind: 'terms', index: stack.length }, { kind: 'list', index: stack.length });
        break;
      case 'separator': {
        const top = operators[operators.length - 1] ?? fail('unexpected `,`');
        if (top.kind === 'list') operators.pop();
        stack = [...stack.slice(0, top.index), stack.slice(top.index).join('')];
        operators.push({ kind: 'list', index: stack.length });
        break;
      }
      case 'terms-close':
        for (;;) {
          const top = operators.pop() ?? fail('unexpected `}`');
          const parts = stack.slice(top.index);
          stack = [...stack.slice(0, top.index), top.kind === 'terms' ? `(?:${parts.join('|')})` : parts.join('')];
          if (top.kind === 'terms') break;
        }
        break;
      default:
        fail(`unexpected token ${token.kind}`);
    }
  }
  if (operators.length !== 0) fail('unclosed `{`');
  return `^(?:${stack.join('')})$`;
}

/** The class after its `[`: one range or one set of characters, possibly negated. */
function parseRange(lex: Lexer, fail: (reason: string) => never): string {
  let not = false;
  let lo = -1;
  let hi = -1;
  let chars: string | undefined;
  for (;;) {
    const token = lex.next();
    if (token === undefined) return fail('unclosed `[`');
    switch (token.kind) {
      case 'not':
        not = true;
        break;
      case 'range-lo':
        lo = token.rune;
        break;
      case 'range-between':
        break;
      case 'range-hi':
        hi = token.rune;
        if (hi < lo) fail('range hi character is less than lo');
        break;
      case 'text':
        chars = token.text;
        break;
      case 'range-close': {
        const isRange = lo >= 0 && hi >= 0;
        if ((chars !== undefined) === isRange) fail('could not parse range');
        const body = isRange ? `${literal(lo)}-${literal(hi)}` : literalText(chars!);
        return `[${not ? '^' : ''}${body}]`;
      }
      default:
        break;
    }
  }
}

const cache = new Map<string, Regexp>();
const CACHE_MAX = 256;

/** Compile (cached) and match. Throws GlobSyntaxError on a malformed pattern. */
export function globMatch(pattern: string, separators: readonly string[], subject: string): boolean {
  const key = `${separators.join('\u0000')}\u0001${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileRegexp(globToRegExpSource(pattern, separators));
    if (cache.size >= CACHE_MAX) {
      const first = cache.keys().next();
      if (first.done !== true) cache.delete(first.value);
    }
    cache.set(key, re);
  }
  return matchString(re, subject);
}

/** glob.quote_meta: escape every glob meta character (gobwas/glob's QuoteMeta). */
export function globQuoteMeta(s: string): string {
  let out = '';
  for (const ch of s) {
    if ('*?\\[]{}'.includes(ch)) out += '\\';
    out += ch;
  }
  return out;
}
