/**
 * Which `\p{…}` names Go's regexp/syntax (Go 1.26, the Go OPA 1.22.3 is built with) accepts, and what
 * each means, so that re2js (which knows more spellings in some places and fewer in others) is handed
 * only names Go resolves, spelled as re2js knows them.
 *
 * Go first canonicalises the name (`_`, `-` and spaces dropped, first letter upper case, the rest
 * lower case), then looks it up among Unicode categories, scripts and category aliases. A script whose
 * own name is not in that canonical form (`Old_Italic`, `SignWriting`) therefore cannot be named at
 * all, while `\p{greek}` and `\p{Letter}` work. The lists below are Go's unicode tables (Unicode
 * 15.0.0) reduced to the names reachable that way.
 *
 * `rewriteUnicodeClasses` hands re2js a pattern with every class name spelled as Go resolves it, and
 * maps re2js's error texts back to the pattern as written.
 */

/** Categories (`unicode.Categories`); `LC` is reached as `Lc`. */
const CATEGORIES = new Set([
  'C', 'Cc', 'Cf', 'Cn', 'Co', 'Cs', 'L', 'LC', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn', 'N',
  'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm', 'So', 'Z', 'Zl',
  'Zp', 'Zs',
]);

/** Scripts whose name survives canonicalisation (`unicode.Scripts`). */
const SCRIPTS = new Set([
  'Adlam', 'Ahom', 'Arabic', 'Armenian', 'Avestan', 'Balinese', 'Bamum', 'Batak', 'Bengali', 'Bhaiksuki',
  'Bopomofo', 'Brahmi', 'Braille', 'Buginese', 'Buhid', 'Carian', 'Chakma', 'Cham', 'Cherokee', 'Chorasmian',
  'Common', 'Coptic', 'Cuneiform', 'Cypriot', 'Cyrillic', 'Deseret', 'Devanagari', 'Dogra', 'Duployan',
  'Elbasan', 'Elymaic', 'Ethiopic', 'Georgian', 'Glagolitic', 'Gothic', 'Grantha', 'Greek', 'Gujarati',
  'Gurmukhi', 'Han', 'Hangul', 'Hanunoo', 'Hatran', 'Hebrew', 'Hiragana', 'Inherited', 'Javanese', 'Kaithi',
  'Kannada', 'Katakana', 'Kawi', 'Kharoshthi', 'Khmer', 'Khojki', 'Khudawadi', 'Lao', 'Latin', 'Lepcha',
  'Limbu', 'Lisu', 'Lycian', 'Lydian', 'Mahajani', 'Makasar', 'Malayalam', 'Mandaic', 'Manichaean', 'Marchen',
  'Medefaidrin', 'Miao', 'Modi', 'Mongolian', 'Mro', 'Multani', 'Myanmar', 'Nabataean', 'Nandinagari', 'Newa',
  'Nko', 'Nushu', 'Ogham', 'Oriya', 'Osage', 'Osmanya', 'Palmyrene', 'Phoenician', 'Rejang', 'Runic',
  'Samaritan', 'Saurashtra', 'Sharada', 'Shavian', 'Siddham', 'Sinhala', 'Sogdian', 'Soyombo', 'Sundanese',
  'Syriac', 'Tagalog', 'Tagbanwa', 'Takri', 'Tamil', 'Tangsa', 'Tangut', 'Telugu', 'Thaana', 'Thai',
  'Tibetan', 'Tifinagh', 'Tirhuta', 'Toto', 'Ugaritic', 'Vai', 'Vithkuqi', 'Wancho', 'Yezidi', 'Yi',
]);

/** `unicode.CategoryAliases`, keyed by canonical name. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Casedletter: 'LC',
  Closepunctuation: 'Pe',
  Cntrl: 'Cc',
  Combiningmark: 'M',
  Connectorpunctuation: 'Pc',
  Control: 'Cc',
  Currencysymbol: 'Sc',
  Dashpunctuation: 'Pd',
  Decimalnumber: 'Nd',
  Digit: 'Nd',
  Enclosingmark: 'Me',
  Finalpunctuation: 'Pf',
  Format: 'Cf',
  Initialpunctuation: 'Pi',
  Letter: 'L',
  Letternumber: 'Nl',
  Lineseparator: 'Zl',
  Lowercaseletter: 'Ll',
  Mark: 'M',
  Mathsymbol: 'Sm',
  Modifierletter: 'Lm',
  Modifiersymbol: 'Sk',
  Nonspacingmark: 'Mn',
  Number: 'N',
  Openpunctuation: 'Ps',
  Other: 'C',
  Otherletter: 'Lo',
  Othernumber: 'No',
  Otherpunctuation: 'Po',
  Othersymbol: 'So',
  Paragraphseparator: 'Zp',
  Privateuse: 'Co',
  Punct: 'P',
  Punctuation: 'P',
  Separator: 'Z',
  Spaceseparator: 'Zs',
  Spacingmark: 'Mc',
  Surrogate: 'Cs',
  Symbol: 'S',
  Titlecaseletter: 'Lt',
  Unassigned: 'Cn',
  Uppercaseletter: 'Lu',
};

/** Go's canonicalName: `_`, `-`, ` ` dropped, the first letter upper case, the other ASCII letters lower case. */
export function canonicalClassName(name: string): string {
  let out = '';
  let first = true;
  for (const c of name) {
    if (c === '_' || c === '-' || c === ' ') continue;
    if (first) {
      out += c >= 'a' && c <= 'z' ? c.toUpperCase() : c;
      first = false;
    } else out += c >= 'A' && c <= 'Z' ? c.toLowerCase() : c;
  }
  return out;
}

/** What a Unicode class name means to Go: a table re2js knows by that name, ASCII, or nothing. */
export type GoUnicodeClass = { readonly kind: 'table'; readonly name: string } | { readonly kind: 'ascii' };

/**
 * The class Go resolves `name` to, or undefined when Go rejects it.
 *
 * @example
 * goUnicodeClass('greek') // { kind: 'table', name: 'Greek' }
 * goUnicodeClass('Old_Italic') // undefined
 */
export function goUnicodeClass(name: string): GoUnicodeClass | undefined {
  const c = canonicalClassName(name);
  if (c === 'Any' || c === 'Assigned') return { kind: 'table', name: c };
  if (c === 'Ascii') return { kind: 'ascii' };
  if (c === 'Lc') return { kind: 'table', name: 'LC' };
  if (CATEGORIES.has(c) || SCRIPTS.has(c)) return { kind: 'table', name: c };
  const alias = CATEGORY_ALIASES[c];
  return alias === undefined ? undefined : { kind: 'table', name: alias };
}

interface Replacement {
  /** Where the escape sits in the original pattern and in the rewritten one. */
  readonly from: number;
  readonly to: number;
  readonly rewrittenFrom: number;
  readonly rewrittenTo: number;
  readonly original: string;
  readonly rewritten: string;
  /** Where the rejection marker was inserted into the escape, if it was. */
  readonly markerAt: number | undefined;
}

/** A pattern with its Unicode class names resolved as Go resolves them. */
export interface UnicodeClassRewrite {
  readonly source: string;
  /** The text Go would quote in an error, given the text re2js quoted from the rewritten pattern. */
  originalExpr(expr: string): string;
}

/** Where the name Go rejects is sent, so that re2js rejects it at the same point of its parse. */
const REJECTED = '\u0000';

const ASCII = '\\x00-\\x7f';
const NOT_ASCII = '\\x{80}-\\x{10ffff}';

/**
 * Resolve every `\pX`, `\p{Name}`, `\P{^Name}` of the pattern (outside `\Q…\E`, inside classes
 * too) the way Go does, spelled for re2js.
 *
 * @example
 * rewriteUnicodeClasses('\\p{greek}+').source // '\\p{Greek}+'
 */
export function rewriteUnicodeClasses(source: string): UnicodeClassRewrite {
  const replacements: Replacement[] = [];
  let out = '';
  let last = 0;
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (inClass && c === ']') {
      inClass = false;
      i += 1;
    } else if (!inClass && c === '[') {
      inClass = true;
      i += 1;
      if (source[i] === '^') i += 1;
      // A `]` first in a class is a literal.
      if (source[i] === ']') i += 1;
    } else if (inClass && source.startsWith('[:', i)) {
      const close = source.indexOf(':]', i + 2);
      i = close < 0 ? i + 1 : close + 2;
    } else if (c !== '\\') {
      i += 1;
    } else if (!inClass && source[i + 1] === 'Q') {
      const end = source.indexOf('\\E', i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (source[i + 1] === 'p' || source[i + 1] === 'P') {
      const escape = unicodeEscape(source, i);
      // Go takes an unclosed `\p{` and the rest of the pattern as one bad escape.
      if (escape === undefined) break;
      const rewritten = spellForRe2js(escape, inClass);
      const markerAt = rewritten.startsWith(`\\p{${REJECTED}`) ? 3 : undefined;
      if (rewritten !== escape.text) {
        out += source.slice(last, i);
        replacements.push({
          from: i,
          to: i + escape.text.length,
          rewrittenFrom: out.length,
          rewrittenTo: out.length + rewritten.length,
          original: escape.text,
          rewritten,
          markerAt,
        });
        out += rewritten;
        last = i + escape.text.length;
      }
      i += escape.text.length;
    } else i += 2;
  }
  if (replacements.length === 0) return { source, originalExpr: (expr) => expr };
  const rewritten = out + source.slice(last);
  // A position of the rewritten pattern in the original; one inside a rewritten escape goes to the
  // escape's start, or as an end, as far into the original escape (Go quotes up to the offending rune).
  const toOriginal = (at: number, asEnd: boolean): number => {
    let delta = 0;
    for (const r of replacements) {
      if (at <= r.rewrittenFrom) break;
      if (at < r.rewrittenTo) {
        if (!asEnd) return r.from;
        const into = at - r.rewrittenFrom;
        return r.from + Math.min(r.markerAt !== undefined && into > r.markerAt ? into - REJECTED.length : into, r.to - r.from);
      }
      delta = r.to - r.rewrittenTo;
    }
    return at + delta;
  };
  return {
    source: rewritten,
    originalExpr(expr) {
      if (expr === '') return expr;
      // Go quotes a stretch of the pattern (up to its end, for an unclosed class or group). A stretch
      // re2js quoted from outside the rewritten escapes reads the same in the original; one across
      // them is taken from the original at the same place, preferring the stretch at the very end.
      const across: number[] = [];
      for (let at = rewritten.indexOf(expr); at >= 0; at = rewritten.indexOf(expr, at + 1)) {
        const end = at + expr.length;
        if (!replacements.some((r) => at < r.rewrittenTo && end > r.rewrittenFrom)) return expr;
        across.push(at);
      }
      const at = across.includes(rewritten.length - expr.length) ? rewritten.length - expr.length : across[0];
      if (at !== undefined) return source.slice(toOriginal(at, false), toOriginal(at + expr.length, true));
      let local = expr;
      for (const r of replacements) local = local.split(r.rewritten).join(r.original);
      return local;
    },
  };
}

interface UnicodeEscape {
  readonly text: string;
  readonly negated: boolean;
  readonly name: string;
}

/** The escape at `at` as Go reads it, or undefined when Go would report it unclosed (left to re2js). */
function unicodeEscape(source: string, at: number): UnicodeEscape | undefined {
  let negated = source[at + 1] === 'P';
  let name: string;
  let text: string;
  if (source[at + 2] === '{') {
    const close = source.indexOf('}', at + 3);
    if (close < 0) return undefined;
    name = source.slice(at + 3, close);
    text = source.slice(at, close + 1);
  } else {
    const rune = source.codePointAt(at + 2);
    if (rune === undefined) return undefined;
    name = String.fromCodePoint(rune);
    text = source.slice(at, at + 2 + name.length);
  }
  if (name.startsWith('^')) {
    negated = !negated;
    name = name.slice(1);
  }
  return { text, negated, name };
}

function spellForRe2js(escape: UnicodeEscape, inClass: boolean): string {
  const cls = goUnicodeClass(escape.name);
  if (cls === undefined) {
    // re2js may know a braced name (Old_Italic) Go does not: make sure it refuses it too. A one-letter
    // name Go refuses re2js refuses as well.
    return escape.text.length > 2 && escape.text[2] === '{' ? `\\p{${REJECTED}${escape.text.slice(3)}` : escape.text;
  }
  if (cls.kind === 'table') return cls.name === escape.name ? escape.text : `\\${escape.negated ? 'P' : 'p'}{${cls.name}}`;
  // re2js has no ASCII table: a range says the same (inside a class, its complement as a range).
  if (inClass) return escape.negated ? NOT_ASCII : ASCII;
  return escape.negated ? `[^${ASCII}]` : `[${ASCII}]`;
}
