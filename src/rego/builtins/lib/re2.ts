/**
 * Go's `regexp` package (https://pkg.go.dev/regexp), the regular expressions OPA evaluates, on re2js,
 * a pure-JavaScript port of RE2 that follows Go's parser and matcher: RE2 syntax (no backreferences
 * or lookaround), leftmost-first matching, time linear in the subject, and Go's parse errors in Go's
 * wording (`error parsing regexp: missing closing ): \`(a\``).
 *
 * Subjects are JavaScript strings, so every index here counts UTF-16 code units; Go counts UTF-8
 * bytes. Only the slices cut at those indices leave this module, and they are the same characters.
 * Go's iteration rules (no empty match right after a match, `Split`'s edge cases, `Expand`'s `$name`
 * syntax) are reproduced here rather than borrowed from re2js's Java- and JS-flavoured helpers.
 */
import { createRequire } from 'node:module';
import type { RE2JS, RE2JSException } from 're2js';
import { rewriteUnicodeClasses } from './re2-unicode-classes.ts';

type Re2js = typeof import('re2js');

// re2js is loaded on the first compile: most policies never match a regex, and loading it was a
// visible part of every evaluation's start. Only this module's one instance is used, so its
// exception classes are the ones the instanceof checks below see.
const load = createRequire(import.meta.url);
let lib: Re2js | undefined;
const re2js = (): Re2js => (lib ??= load('re2js') as Re2js);

/** A pattern Go's regexp/syntax rejects; the message is Go's, `error parsing regexp: …`. */
export class RegexpSyntaxError extends Error {
  override readonly name = 'RegexpSyntaxError';
}

/** A compiled pattern: the engine's program plus what `Expand` needs (group names by index). */
export interface Regexp {
  readonly source: string;
  readonly program: RE2JS;
  /** Capture group names by group index (0 is the whole match); `''` for an unnamed group. */
  readonly groupNames: readonly string[];
}

/** Start/end pairs of the whole match then each group, `-1` for a group that took no part. */
export type MatchIndex = readonly number[];

const CACHE_MAX = 1000;
const cache = new Map<string, Regexp>();

/**
 * Compile a pattern as Go's `regexp.Compile` does (cached: policies re-evaluate the same few
 * patterns, and a compile costs far more than a short match).
 *
 * @example
 * matchString(compileRegexp('^a+$'), 'aaa') // true
 */
export function compileRegexp(source: string): Regexp {
  const hit = cache.get(source);
  if (hit !== undefined) {
    // Refresh recency: the cache evicts the least recently used pattern.
    cache.delete(source);
    cache.set(source, hit);
    return hit;
  }
  const { program, groupNames } = compileProgram(source);
  const re: Regexp = { source, program, groupNames };
  if (cache.size >= CACHE_MAX) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(source, re);
  return re;
}

function compileProgram(source: string): { program: RE2JS; groupNames: string[] } {
  const classes = rewriteUnicodeClasses(source);
  let renamed: Map<string, string> | undefined;
  const { RE2JS, RE2JSException, RE2JSSyntaxException } = re2js();
  let program: RE2JS;
  try {
    program = RE2JS.compile(classes.source);
  } catch (e) {
    if (!(e instanceof RE2JSException)) throw e;
    // Go accepts a name used by several groups (RE2 and re2js do not): give re2js unique names
    // and keep Go's for Expand.
    if (!(e instanceof RE2JSSyntaxException) || e.error !== DUPLICATE_NAME) throw syntaxError(e, source, classes.originalExpr);
    const unique = uniqueGroupNames(classes.source);
    renamed = unique.original;
    try {
      program = RE2JS.compile(unique.source);
    } catch (e2) {
      if (!(e2 instanceof RE2JSException)) throw e2;
      throw syntaxError(e2, source, (expr) => {
        let named = expr;
        for (const [synthetic, name] of unique.original) named = named.replaceAll(`<${synthetic}>`, `<${name}>`);
        return classes.originalExpr(named);
      });
    }
  }
  const groupNames = new Array<string>(program.groupCount() + 1).fill('');
  for (const [name, index] of Object.entries(program.namedGroups())) groupNames[index] = renamed?.get(name) ?? name;
  return { program, groupNames };
}

const DUPLICATE_NAME = 'duplicate capture group name';
/** Errors Go reports with the whole pattern, which re2js leaves out. */
const WHOLE_PATTERN_ERRORS = new Set(['expression nests too deeply', 'expression too large']);

/**
 * Go's syntax.Error text, `error parsing regexp: CODE: \`TEXT\``, with TEXT as it stands in the
 * pattern the caller wrote (re2js saw a rewritten one).
 */
function syntaxError(e: RE2JSException, source: string, originalExpr: (expr: string) => string): RegexpSyntaxError {
  if (!(e instanceof re2js().RE2JSSyntaxException)) return new RegexpSyntaxError(e.message, { cause: e });
  const quoted = e.input ?? '';
  const expr = quoted === '' && WHOLE_PATTERN_ERRORS.has(e.error) ? source : originalExpr(quoted);
  return new RegexpSyntaxError(`error parsing regexp: ${e.error}: \`${expr}\``, { cause: e });
}

/**
 * The pattern with every repeated capture group name replaced by a fresh one, and the original name
 * of each fresh one. Group openers are found as Go's parser finds them: not inside a character class
 * (where `[:name:]` may hold a `]`), an escape, or a `\Q…\E` literal.
 */
function uniqueGroupNames(source: string): { source: string; original: Map<string, string> } {
  const opener = /P?<([A-Za-z0-9_]+)>/y;
  const all = new Set<string>();
  const found: { at: number; length: number; name: string; prefix: string }[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (c === '\\') {
      if (source[i + 1] === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        i = end < 0 ? source.length : end + 2;
      } else i += 2;
    } else if (c === '[') {
      i = classEnd(source, i);
    } else if (c === '(' && source[i + 1] === '?') {
      opener.lastIndex = i + 2;
      const m = opener.exec(source);
      if (m !== null) {
        all.add(m[1]!);
        found.push({ at: i + 2, length: m[0].length, name: m[1]!, prefix: m[0].startsWith('P') ? 'P<' : '<' });
      }
      i += 2;
    } else i += 1;
  }
  const seen = new Set<string>();
  const original = new Map<string, string>();
  let out = '';
  let last = 0;
  for (const g of found) {
    if (!seen.has(g.name)) {
      seen.add(g.name);
      continue;
    }
    let n = 2;
    while (all.has(`${g.name}_${n}`)) n++;
    const fresh = `${g.name}_${n}`;
    all.add(fresh);
    original.set(fresh, g.name);
    out += `${source.slice(last, g.at)}${g.prefix}${fresh}>`;
    last = g.at + g.length;
  }
  return { source: out + source.slice(last), original };
}

/** The index after the character class opening at `start` (Go's rules: a leading `]` is literal). */
function classEnd(source: string, start: number): number {
  let j = start + 1;
  if (source[j] === '^') j++;
  if (source[j] === ']') j++;
  while (j < source.length && source[j] !== ']') {
    if (source[j] === '\\') j += 2;
    else if (source.startsWith('[:', j)) {
      const close = source.indexOf(':]', j + 2);
      j = close < 0 ? j + 1 : close + 2;
    } else j += 1;
  }
  return j + 1;
}

/** Whether Go's regexp/syntax accepts the pattern. */
export function isValidRegexp(source: string): boolean {
  try {
    compileRegexp(source);
    return true;
  } catch (e) {
    if (e instanceof RegexpSyntaxError) return false;
    throw e;
  }
}

/** Go's `MatchString`: does the pattern match anywhere in `s`. */
export function matchString(re: Regexp, s: string): boolean {
  return re.program.test(s);
}

/**
 * Go's `FindAllStringSubmatchIndex(s, n)`: successive non-overlapping matches, at most `n` (all when
 * `n < 0`), an empty match abutting the previous match skipped.
 */
export function findAllSubmatchIndex(re: Regexp, s: string, n: number): MatchIndex[] {
  const found = re.program.re2().findAllSubmatchIndex(s, n) as number[][] | null;
  return found ?? [];
}

/** Go's `FindAllString(s, n)`. */
export function findAllString(re: Regexp, s: string, n: number): string[] {
  return findAllSubmatchIndex(re, s, n).map((m) => s.slice(m[0], m[1]));
}

/** Go's `FindAllStringSubmatch(s, n)`: a group that took no part in the match is `''`. */
export function findAllStringSubmatch(re: Regexp, s: string, n: number): string[][] {
  return findAllSubmatchIndex(re, s, n).map((m) => {
    const groups: string[] = [];
    for (let g = 0; g < m.length; g += 2) groups.push(m[g]! < 0 ? '' : s.slice(m[g], m[g + 1]));
    return groups;
  });
}

/** Go's `Split(s, -1)`: the text between matches; an empty match at 0 cuts nothing. */
export function splitString(re: Regexp, s: string): string[] {
  if (re.source.length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of findAllSubmatchIndex(re, s, -1)) {
    end = m[0]!;
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1]!;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** Go's `ReplaceAllString`: every match replaced by the template expanded as by `Expand`. */
export function replaceAllString(re: Regexp, s: string, template: string): string {
  let out = '';
  let last = 0;
  for (const m of findAllSubmatchIndex(re, s, -1)) {
    out += s.slice(last, m[0]) + expandTemplate(re, template, s, m);
    last = m[1]!;
  }
  return out + s.slice(last);
}

const NAME_CHAR = /[\p{L}\p{Nd}_]/u;

/**
 * Go's `Regexp.Expand`: `$$` is `$`; `$name` and `${name}` take the longest run of letters, digits
 * and `_` and name a group by number (no leading zeros) or by name, empty when the group took no part
 * or does not exist; a `$` not followed by a name is kept as text.
 */
export function expandTemplate(re: Regexp, template: string, s: string, m: MatchIndex): string {
  let out = '';
  let rest = template;
  for (;;) {
    const dollar = rest.indexOf('$');
    if (dollar < 0) break;
    out += rest.slice(0, dollar);
    rest = rest.slice(dollar + 1);
    if (rest.startsWith('$')) {
      out += '$';
      rest = rest.slice(1);
      continue;
    }
    const ref = templateReference(rest);
    if (ref === undefined) {
      out += '$';
      continue;
    }
    rest = rest.slice(ref.length);
    // By name, Go takes the first group of that name that took part in the match.
    const group = ref.number ?? re.groupNames.findIndex((name, i) => name === ref.name && (m[2 * i] ?? -1) >= 0);
    if (group >= 0) {
      const start = m[2 * group];
      if (start !== undefined && start >= 0) out += s.slice(start, m[2 * group + 1]);
    }
  }
  return out + rest;
}

interface TemplateReference {
  readonly name: string;
  /** The group number when the name is one (digits, no leading zero, at most nine of them as Go caps it). */
  readonly number: number | undefined;
  /** Characters of the template the reference takes, braces included. */
  readonly length: number;
}

function templateReference(text: string): TemplateReference | undefined {
  const brace = text.startsWith('{');
  const body = brace ? text.slice(1) : text;
  let name = '';
  for (const ch of body) {
    if (!NAME_CHAR.test(ch)) break;
    name += ch;
  }
  if (name === '') return undefined;
  if (brace && body[name.length] !== '}') return undefined;
  const number = /^(0|[1-9][0-9]{0,8})$/.test(name) ? Number(name) : undefined;
  return { name, number, length: name.length + (brace ? 2 : 0) };
}

const GO_META = /[\\.+*?()|[\]{}^$]/g;

/** Go's `regexp.QuoteMeta`: the pattern that matches `s` literally. */
export function quoteMeta(s: string): string {
  return s.replace(GO_META, '\\$&');
}
