/**
 * Whether two glob-style patterns match a common non-empty string, as OPA's `regex.globs_match`
 * decides it with github.com/yashtewari/glob-intersection v0.2.0 (`gintersect.NonEmpty`).
 *
 * The pattern language is that library's, not a full regular expression: a token is a character,
 * `.` (any character) or a set `[abc]` / `[a-z]` (no negation), optionally followed by `+` or `*`;
 * `\` escapes the next character. The decision is the library's greedy token walk, reproduced step
 * for step, so its answers (including where it is not exact) and its error texts are OPA's.
 * Sets are kept as sorted code-point ranges instead of one entry per character, which decides the
 * same membership and overlap questions without enumerating a range like `[\u0000-\u{10FFFF}]`.
 */

/** A pattern the library rejects; the message is the library's (`input:…, pos:N, …`). */
export class GlobIntersectionSyntaxError extends Error {
  override readonly name = 'GlobIntersectionSyntaxError';
}

type Flag = 'none' | 'plus' | 'star';

/** Inclusive code-point ranges, sorted and disjoint. */
type Ranges = readonly (readonly [number, number])[];

type Token =
  | { kind: 'character'; flag: Flag; rune: number }
  | { kind: 'dot'; flag: Flag }
  | { kind: 'set'; flag: Flag; ranges: Ranges };

const KIND_ORDER = { character: 0, dot: 1, set: 2 } as const;

const INVALID = 'the input provided is invalid';

/**
 * True when some non-empty string matches both patterns.
 *
 * @example
 * globsIntersect('a.*', '.*b') // true ("ab")
 * globsIntersect('[0-9]+', '[a-z]+') // false
 */
export function globsIntersect(lhs: string, rhs: string): boolean {
  const trimmed = trimGlobs(parseGlob(lhs), parseGlob(rhs));
  if (trimmed === undefined) return false;
  return intersectNormal(trimmed[0], trimmed[1]);
}

function parseGlob(text: string): Token[] {
  return simplify(tokenize(Array.from(text, (c) => c.codePointAt(0)!)));
}

// ---------------------------------------------------------------- tokens

function syntaxError(input: readonly number[], pos: number, message: string): GlobIntersectionSyntaxError {
  return new GlobIntersectionSyntaxError(`input:${String.fromCodePoint(...input)}, pos:${pos}, ${message}: ${INVALID}`);
}

interface Rune {
  readonly next: number;
  readonly rune: number;
  readonly escaped: boolean;
}

/** The rune at `index` (a `\` escapes the one after it), or undefined at the end of input. */
function nextRune(input: readonly number[], index: number): Rune | undefined {
  if (index >= input.length) return undefined;
  const r = input[index]!;
  if (r !== 0x5c) return { next: index + 1, rune: r, escaped: false };
  if (index === input.length - 1) throw syntaxError(input, index, 'input ends with a \\ (escape) character');
  return { next: index + 2, rune: input[index + 1]!, escaped: true };
}

const PLUS = 0x2b;
const STAR = 0x2a;
const DOT = 0x2e;
const OPEN = 0x5b;
const CLOSE = 0x5d;
const DASH = 0x2d;

function flagOf(r: number): Flag | undefined {
  return r === PLUS ? 'plus' : r === STAR ? 'star' : undefined;
}

function tokenize(input: readonly number[]): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  for (;;) {
    const first = nextRune(input, index);
    if (first === undefined) return tokens;
    index = first.next;
    let token: Token;
    if (first.escaped) token = { kind: 'character', flag: 'none', rune: first.rune };
    else if (first.rune === DOT) token = { kind: 'dot', flag: 'none' };
    else if (first.rune === CLOSE) throw syntaxError(input, index, "set-close ']' with no preceding '['");
    else if (first.rune === OPEN) {
      const set = tokenizeSet(input, index);
      index = set.next;
      token = { kind: 'set', flag: 'none', ranges: set.ranges };
    } else if (flagOf(first.rune) !== undefined) {
      throw syntaxError(input, index, `flag '${String.fromCodePoint(first.rune)}' must be preceded by a non-flag`);
    } else token = { kind: 'character', flag: 'none', rune: first.rune };
    const f = nextRune(input, index);
    if (f !== undefined && !f.escaped) {
      const flag = flagOf(f.rune);
      if (flag !== undefined) {
        token.flag = flag;
        index = f.next;
      }
    }
    tokens.push(token);
  }
}

/** The set starting after its `[`: its ranges and the index after its `]`. */
function tokenizeSet(input: readonly number[], start: number): { next: number; ranges: Ranges } {
  const ranges: [number, number][] = [];
  let index = start;
  let prev = 0;
  let prevExists = false;
  for (;;) {
    const at = nextRune(input, index);
    if (at === undefined) throw syntaxError(input, index, 'found [ without matching ]');
    index = at.next;
    if (at.escaped) {
      ranges.push([at.rune, at.rune]);
      prev = at.rune;
      prevExists = true;
    } else if (at.rune === DASH) {
      if (!prevExists) throw syntaxError(input, index, "range character '-' must be preceded by a Unicode character");
      if (index >= input.length - 1) throw syntaxError(input, index, "range character '-' must be followed by a Unicode character");
      const hi = nextRune(input, index)!;
      index = hi.next;
      if (!hi.escaped && (hi.rune === CLOSE || hi.rune === DASH)) {
        throw syntaxError(input, index, "range character '-' cannot be followed by a special symbol");
      }
      if (hi.rune < prev) {
        throw syntaxError(
          input,
          index,
          `range is out of order: '${String.fromCodePoint(hi.rune)}' comes before '${String.fromCodePoint(prev)}' in Unicode`,
        );
      }
      ranges.push([prev, hi.rune]);
      prevExists = false;
    } else if (at.rune === CLOSE) {
      return { next: index, ranges: normalise(ranges) };
    } else {
      ranges.push([at.rune, at.rune]);
      prev = at.rune;
      prevExists = true;
    }
  }
}

function normalise(ranges: [number, number][]): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Folds runs of the same flagged token: `t*t*` is `t*`, and `t+t*`, `t*t+` are `t+`. */
function simplify(tokens: Token[]): Token[] {
  const simple: Token[] = [];
  for (const t of tokens) {
    const latest = simple[simple.length - 1];
    if (latest !== undefined && t.flag !== 'none' && latest.flag !== 'none' && sameToken(t, latest)) {
      latest.flag = t.flag === 'plus' || latest.flag === 'plus' ? 'plus' : 'star';
    } else simple.push(t);
  }
  return simple;
}

/** The same token apart from its flag. */
function sameToken(a: Token, b: Token): boolean {
  if (a.kind === 'character' && b.kind === 'character') return a.rune === b.rune;
  if (a.kind === 'dot' && b.kind === 'dot') return true;
  if (a.kind === 'set' && b.kind === 'set') {
    return a.ranges.length === b.ranges.length && a.ranges.every(([lo, hi], i) => lo === b.ranges[i]![0] && hi === b.ranges[i]![1]);
  }
  return false;
}

/** Whether two tokens (flags aside) can match a common character. */
function tokensMatch(x: Token, y: Token): boolean {
  const [a, b] = KIND_ORDER[x.kind] <= KIND_ORDER[y.kind] ? [x, y] : [y, x];
  if (a.kind === 'character') {
    if (b.kind === 'character') return a.rune === b.rune;
    if (b.kind === 'dot') return true;
    return b.kind === 'set' && inRanges(b.ranges, a.rune);
  }
  // The library lets a dot match any set, an empty `[]` included.
  if (a.kind === 'dot') return true;
  return a.kind === 'set' && b.kind === 'set' && rangesOverlap(a.ranges, b.ranges);
}

function inRanges(ranges: Ranges, r: number): boolean {
  return ranges.some(([lo, hi]) => lo <= r && r <= hi);
}

function rangesOverlap(a: Ranges, b: Ranges): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const [alo, ahi] = a[i]!;
    const [blo, bhi] = b[j]!;
    if (alo <= bhi && blo <= ahi) return true;
    if (ahi < bhi) i++;
    else j++;
  }
  return false;
}

// ---------------------------------------------------------------- the library's walk

/** Drops the equal unflagged prefix and suffix (keeping one token of each), or undefined on a mismatch. */
function trimGlobs(g1: Token[], g2: Token[]): [Token[], Token[]] | undefined {
  let l = 0;
  for (; l < g1.length && l < g2.length && g1[l]!.flag === 'none' && g2[l]!.flag === 'none'; l++) {
    if (!tokensMatch(g1[l]!, g2[l]!)) return undefined;
  }
  if (l > 0) l--;
  let r1 = g1.length - 1;
  let r2 = g2.length - 1;
  for (; r1 >= 0 && r1 >= l && r2 >= 0 && r2 >= l && g1[r1]!.flag === 'none' && g2[r2]!.flag === 'none'; r1--, r2--) {
    if (!tokensMatch(g1[r1]!, g2[r2]!)) return undefined;
  }
  if (r1 < g1.length - 1) {
    r1++;
    r2++;
  }
  return [g1.slice(l, r1 + 1), g2.slice(l, r2 + 1)];
}

function intersectNormal(g1: Token[], g2: Token[]): boolean {
  let i = 0;
  let j = 0;
  for (; i < g1.length && j < g2.length; i++, j++) {
    if (g1[i]!.flag === 'none' && g2[j]!.flag === 'none') {
      if (!tokensMatch(g1[i]!, g2[j]!)) return false;
    } else return intersectSpecial(g1.slice(i), g2.slice(j));
  }
  return i === g1.length && j === g2.length;
}

function intersectSpecial(g1: Token[], g2: Token[]): boolean {
  const [flagged, other] = g1[0]!.flag !== 'none' ? [g1, g2] : [g2, g1];
  return flagged[0]!.flag === 'plus' ? intersectPlus(flagged, other) : intersectStar(flagged, other);
}

function intersectPlus(plussed: Token[], other: Token[]): boolean {
  if (!tokensMatch(plussed[0]!, other[0]!)) return false;
  if (intersectStar(plussed, other.slice(1))) return true;
  return other[0]!.flag !== 'none' && intersectNormal(plussed.slice(1), other);
}

function intersectStar(starred: Token[], other: Token[]): boolean {
  const star = starred[0]!;
  const next = starred[1];
  for (let i = 0; i < other.length; i++) {
    const t = other[i]!;
    if (next !== undefined && tokensMatch(t, next)) {
      if (intersectNormal(starred.slice(1), other.slice(i))) return true;
      if (!tokensMatch(t, star)) return false;
    } else if (!tokensMatch(t, star)) return false;
  }
  return next === undefined;
}
