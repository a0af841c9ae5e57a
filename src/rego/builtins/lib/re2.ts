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
import { RE2JS, RE2JSException } from 're2js';

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
  let program: RE2JS;
  try {
    program = RE2JS.compile(source);
  } catch (e) {
    if (e instanceof RE2JSException) throw new RegexpSyntaxError(e.message, { cause: e });
    throw e;
  }
  const groupNames = new Array<string>(program.groupCount() + 1).fill('');
  for (const [name, index] of Object.entries(program.namedGroups())) groupNames[index] = name;
  const re: Regexp = { source, program, groupNames };
  if (cache.size >= CACHE_MAX) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(source, re);
  return re;
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
    const group = ref.number ?? re.groupNames.indexOf(ref.name);
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
