/**
 * Rego tokenizer: identifiers, numbers, strings (JSON escapes), raw strings, operators; `#` comments.
 * A template string is a `tmpl` token per text part with the tokens of each `{expr}` between them.
 */
import { RegoError } from './errors.ts';
import { scanTemplatePart } from './template-lexer.ts';

export type TokenType = 'ident' | 'number' | 'string' | 'op' | 'tmpl' | 'eof';

export interface Token {
  readonly type: TokenType;
  /** Identifier/operator text, number literal text, or the decoded string. */
  readonly text: string;
  readonly line: number;
  readonly col: number;
  /** Whitespace (or a comment) precedes the token. */
  readonly ws: boolean;
  /** A newline precedes the token. */
  readonly nl: boolean;
  /** Raw string (backquoted), also a `` $`...` `` template part. */
  readonly raw?: boolean;
  /** `tmpl` tokens: the part opens the template string / the closing quote ends it. */
  readonly tmplStart?: boolean;
  readonly tmplEnd?: boolean;
}

const OPS3: string[] = [];
const OPS2 = [':=', '==', '!=', '<=', '>='];
const OPS1 = '()[]{},;:.=<>+-*/%&|';

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function tokenize(src: string, file: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const n = src.length;
  const fail = (msg: string, l = line, c = i - lineStart + 1): never => {
    throw new RegoError('rego_parse_error', msg, { file, line: l, col: c });
  };
  // the template strings whose expression is being read: their raw flag and open braces inside it
  const templates: { raw: boolean; depth: number }[] = [];
  const templatePart = (from: number, raw: boolean, start: boolean, tokLine: number, col: number, ws: boolean, nl: boolean): void => {
    const part = scanTemplatePart(src, from, raw, (msg) => fail(msg, tokLine, col));
    out.push({ type: 'tmpl', text: part.text, line: tokLine, col, ws, nl, raw, tmplStart: start, tmplEnd: part.end });
    if (part.newlines > 0) {
      line += part.newlines;
      lineStart = part.lastLineStart;
    }
    i = part.next;
    if (start && !part.end) templates.push({ raw, depth: 0 });
    else if (!start && part.end) templates.pop();
  };
  while (true) {
    let ws = false;
    let nl = false;
    // whitespace and comments
    while (i < n) {
      const c = src.charCodeAt(i);
      if (c === 10) {
        nl = true;
        ws = true;
        i++;
        line++;
        lineStart = i;
      } else if (c === 32 || c === 9 || c === 13) {
        ws = true;
        i++;
      } else if (c === 35) {
        ws = true;
        while (i < n && src.charCodeAt(i) !== 10) i++;
      } else break;
    }
    const col = i - lineStart + 1;
    if (i >= n) {
      out.push({ type: 'eof', text: '', line, col, ws, nl: true });
      return out;
    }
    const c = src.charCodeAt(i);
    if (isIdentStart(c)) {
      const s = i;
      while (i < n && isIdentPart(src.charCodeAt(i))) i++;
      out.push({ type: 'ident', text: src.slice(s, i), line, col, ws, nl });
      continue;
    }
    if (isDigit(c)) {
      // OPA's scanner: a `.` after digits starts a fraction and an `e` an exponent, each needing digits;
      // a letter right after the number makes it malformed (errors at the number's start)
      const s = i;
      const digitsFrom = (msg: string): void => {
        if (!isDigit(src.charCodeAt(i))) fail(msg, line, col);
        while (i < n && isDigit(src.charCodeAt(i))) i++;
      };
      while (i < n && isDigit(src.charCodeAt(i))) i++;
      if (src[i] === '.') {
        i++;
        digitsFrom('expected fraction');
      }
      if (src[i] === 'e' || src[i] === 'E') {
        i++;
        if (src[i] === '+' || src[i] === '-') i++;
        digitsFrom('expected exponent');
      }
      if (i < n && isIdentStart(src.charCodeAt(i))) fail('illegal number format', line, col);
      out.push({ type: 'number', text: src.slice(s, i), line, col, ws, nl });
      continue;
    }
    if (c === 34) {
      // "..." with JSON escapes
      i++;
      let s = '';
      let start = i;
      while (true) {
        if (i >= n || src.charCodeAt(i) === 10) fail('non-terminated string', line, col);
        const d = src.charCodeAt(i);
        if (d === 34) break;
        if (d === 92) {
          s += src.slice(start, i);
          const e = src[i + 1];
          i += 2;
          switch (e) {
            case '"':
              s += '"';
              break;
            case '\\':
              s += '\\';
              break;
            case '/':
              s += '/';
              break;
            case 'b':
              s += '\b';
              break;
            case 'f':
              s += '\f';
              break;
            case 'n':
              s += '\n';
              break;
            case 'r':
              s += '\r';
              break;
            case 't':
              s += '\t';
              break;
            case 'u': {
              const h = src.slice(i, i + 4);
              // OPA's scanner takes the four characters whatever they are; its unquoting then refuses non-hex
              if (h.length < 4 || h.includes('\n')) fail('non-terminated string', line, col);
              if (!/^[0-9a-fA-F]{4}$/.test(h)) fail(`illegal string literal: ${src.slice(col - 1 + lineStart, stringEnd(src, i + 4) + 1)}`, line, col);
              s += String.fromCharCode(parseInt(h, 16));
              i += 4;
              break;
            }
            default:
              fail('illegal escape sequence', line, col);
          }
          start = i;
          continue;
        }
        i++;
      }
      s += src.slice(start, i);
      i++;
      out.push({ type: 'string', text: s, line, col, ws, nl });
      continue;
    }
    if (c === 96) {
      const s = i + 1;
      const startLine = line;
      i++;
      while (i < n && src.charCodeAt(i) !== 96) {
        if (src.charCodeAt(i) === 10) {
          line++;
          lineStart = i + 1;
        }
        i++;
      }
      if (i >= n) fail('non-terminated string', startLine, col);
      out.push({ type: 'string', text: src.slice(s, i), line: startLine, col, ws, nl, raw: true });
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (OPS3.length > 0 && OPS3.includes(src.slice(i, i + 3))) {
      out.push({ type: 'op', text: src.slice(i, i + 3), line, col, ws, nl });
      i += 3;
      continue;
    }
    if (OPS2.includes(two)) {
      out.push({ type: 'op', text: two, line, col, ws, nl });
      i += 2;
      continue;
    }
    const open = templates[templates.length - 1];
    if (open !== undefined && c === 125 && open.depth === 0) {
      templatePart(i + 1, open.raw, false, line, col, ws, nl);
      continue;
    }
    if (open !== undefined && (c === 123 || c === 125)) open.depth += c === 123 ? 1 : -1;
    if (c === 36 && (src[i + 1] === '"' || src[i + 1] === '`')) {
      templatePart(i + 2, src[i + 1] === '`', true, line, col, ws, nl);
      continue;
    }
    if (OPS1.includes(src[i] as string)) {
      out.push({ type: 'op', text: src[i] as string, line, col, ws, nl });
      i++;
      continue;
    }
    if (c === 33 || c === 36) fail(`illegal ${src[i]} character`);
    if (c === 0xa0) fail('illegal non-breaking space character, use a regular space instead');
    fail('illegal token');
  }
}

/** Where a `"` string whose escapes are skipped as OPA's scanner skips them ends (its closing quote, or the line's end). */
function stringEnd(src: string, from: number): number {
  let i = from;
  while (i < src.length && src[i] !== '"' && src[i] !== '\n') i += src[i] === '\\' ? 2 : 1;
  return Math.min(i, src.length - 1);
}
