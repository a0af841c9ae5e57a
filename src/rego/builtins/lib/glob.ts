/**
 * Glob patterns with the semantics OPA gets from gobwas/glob:
 * `*` any run of non-delimiter characters, `**` any run of characters,
 * `?` one non-delimiter character, `[abc]` / `[a-z]` / `[!abc]` one character from (or not from)
 * a list or range, `{a,b}` alternatives (nestable), `\x` a literal x.
 * Compiled to an RE2 expression (lib/re2.ts: characters are code points). RE2 never backtracks, so
 * matching is linear in the subject: a pattern such as `*a*a*a*a*b` cannot stall on a long subject as
 * it does on a backtracking matcher.
 */
import { compileRegexp, matchString, type Regexp } from './re2.ts';

export class GlobSyntaxError extends Error {}

/** Any character, newlines included. */
const ANY = '[\\s\\S]';

function escapeRe(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? '\\' + ch : ch;
}

function escapeClass(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? '\\' + ch : ch;
}

function classOf(chars: readonly string[]): string {
  return chars.map(escapeClass).join('');
}

/** Translate a glob into a regular-expression source anchored at both ends. */
export function globToRegExpSource(pattern: string, delimiters: readonly string[]): string {
  const cps = Array.from(pattern);
  const delim = classOf(delimiters);
  const single = delim === '' ? ANY : `[^${delim}]`;
  let i = 0;
  let depth = 0;
  let out = '';
  while (i < cps.length) {
    const c = cps[i]!;
    if (c === '\\') {
      const n = cps[i + 1];
      if (n === undefined) throw new GlobSyntaxError('unexpected end of input after escape');
      out += escapeRe(n);
      i += 2;
    } else if (c === '*') {
      if (cps[i + 1] === '*') {
        out += `${ANY}*`;
        i += 2;
      } else {
        out += `${single}*`;
        i += 1;
      }
    } else if (c === '?') {
      out += single;
      i += 1;
    } else if (c === '[') {
      let j = i + 1;
      let negated = false;
      if (cps[j] === '!') {
        negated = true;
        j += 1;
      }
      const items: string[] = [];
      let closed = false;
      while (j < cps.length) {
        let ch = cps[j]!;
        if (ch === ']') {
          closed = true;
          j += 1;
          break;
        }
        if (ch === '\\') {
          j += 1;
          const e = cps[j];
          if (e === undefined) break;
          ch = e;
        }
        if (cps[j + 1] === '-' && cps[j + 2] !== undefined && cps[j + 2] !== ']') {
          let hi = cps[j + 2]!;
          let k = j + 3;
          if (hi === '\\') {
            const e = cps[j + 3];
            if (e === undefined) break;
            hi = e;
            k = j + 4;
          }
          if (hi.codePointAt(0)! < ch.codePointAt(0)!) {
            throw new GlobSyntaxError(`invalid range ${ch}-${hi}`);
          }
          items.push(`${escapeClass(ch)}-${escapeClass(hi)}`);
          j = k;
        } else {
          items.push(escapeClass(ch));
          j += 1;
        }
      }
      if (!closed) throw new GlobSyntaxError('unexpected end of input: unclosed character class');
      if (items.length === 0) throw new GlobSyntaxError('empty character class');
      out += negated ? `[^${items.join('')}]` : `[${items.join('')}]`;
      i = j;
    } else if (c === '{') {
      depth += 1;
      out += '(?:';
      i += 1;
    } else if (c === '}' && depth > 0) {
      depth -= 1;
      out += ')';
      i += 1;
    } else if (c === ',' && depth > 0) {
      out += '|';
      i += 1;
    } else {
      out += escapeRe(c);
      i += 1;
    }
  }
  if (depth > 0) throw new GlobSyntaxError('unexpected end of input: unclosed alternatives');
  return `^(?:${out})$`;
}

const cache = new Map<string, Regexp>();
const CACHE_MAX = 256;

/** Compile (cached) and match. Throws GlobSyntaxError on a malformed pattern. */
export function globMatch(pattern: string, delimiters: readonly string[], subject: string): boolean {
  const key = `${delimiters.join('\u0000')}\u0001${pattern}`;
  let re = cache.get(key);
  if (re === undefined) {
    re = compileRegexp(globToRegExpSource(pattern, delimiters));
    if (cache.size >= CACHE_MAX) {
      const first = cache.keys().next();
      if (first.done !== true) cache.delete(first.value);
    }
    cache.set(key, re);
  }
  return matchString(re, subject);
}

/** glob.quote_meta: escape every glob meta character. */
export function globQuoteMeta(s: string): string {
  let out = '';
  for (const ch of s) {
    if ('*?\\[]{}'.includes(ch)) out += '\\';
    out += ch;
  }
  return out;
}
