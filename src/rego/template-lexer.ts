/**
 * The text parts of a template string (`$"...{expr}..."`, `` $`...{expr}...` ``) as the lexer meets
 * them: from the opening quote or a closing `}` up to the next unescaped `{` (an expression follows)
 * or the closing quote. `\{` is a literal brace in both forms; `$"` parts take JSON escapes, as
 * strings do, and end at a newline with an error; `` $` `` parts are raw and may span lines.
 */

export interface TemplatePart {
  /** The decoded text. */
  readonly text: string;
  /** The closing quote ended the part (no expression follows). */
  readonly end: boolean;
  /** Offset just past the part's last character (`{` or the quote). */
  readonly next: number;
  /** Newlines inside the part (raw parts only) and the offset after the last of them. */
  readonly newlines: number;
  readonly lastLineStart: number;
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '{': '{' };

/** Scans one part from `i` (just past the quote or the `}`); a fault is thrown as `fail(message)`. */
export function scanTemplatePart(src: string, i: number, raw: boolean, fail: (msg: string) => never): TemplatePart {
  let text = '';
  let newlines = 0;
  let lastLineStart = -1;
  const quote = raw ? 96 : 34;
  while (true) {
    if (i >= src.length) fail('non-terminated string');
    const c = src.charCodeAt(i);
    if (c === 10) {
      if (!raw) fail('non-terminated string');
      newlines++;
      lastLineStart = i + 1;
    }
    if (c === quote) return { text, end: true, next: i + 1, newlines, lastLineStart };
    if (c === 123) return { text, end: false, next: i + 1, newlines, lastLineStart };
    if (c === 92) {
      const e = src[i + 1] ?? '';
      if (raw) {
        if (e === '{') {
          text += '{';
          i += 2;
          continue;
        }
      } else if (e === 'u') {
        const h = src.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(h)) fail('illegal escape sequence');
        text += String.fromCharCode(parseInt(h, 16));
        i += 6;
        continue;
      } else {
        const d = SIMPLE_ESCAPES[e];
        if (d === undefined) fail('illegal escape sequence');
        text += d;
        i += 2;
        continue;
      }
    }
    text += src[i];
    i++;
  }
}
