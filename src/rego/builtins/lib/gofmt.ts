/**
 * The part of Go's fmt.Sprintf that OPA's sprintf reaches: OPA hands Go an `int` (integers that fit
 * int64), a `*big.Int` (larger integers), a `float64` (other numbers) or a `string` (strings, and the
 * Rego text of every other value). Verbs, flags, width and precision follow Go.
 */

export type GoArg =
  | { kind: 'int'; v: bigint } // Go int64
  | { kind: 'bigint'; v: bigint } // *big.Int
  | { kind: 'float'; v: number }
  | { kind: 'string'; v: string };

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width?: number;
  prec?: number;
}

function goTypeName(a: GoArg): string {
  switch (a.kind) {
    // OPA hands sprintf an integer as the int64 of its json.Number, so Go names it int64.
    case 'int': return 'int64';
    case 'bigint': return '*big.Int';
    case 'float': return 'float64';
    case 'string': return 'string';
  }
}

function rawText(a: GoArg): string {
  switch (a.kind) {
    case 'int': case 'bigint': return a.v.toString();
    case 'float': return formatFloat(a.v, 'g', -1);
    case 'string': return a.v;
  }
}

function pad(s: string, spec: Spec, zeroOk = true): string {
  const w = spec.width ?? 0;
  const len = Array.from(s).length;
  if (len >= w) return s;
  if (spec.minus) return s + ' '.repeat(w - len);
  if (spec.zero && zeroOk) {
    const signLen = /^[+\- ]/.test(s) ? 1 : 0;
    return s.slice(0, signLen) + '0'.repeat(w - len) + s.slice(signLen);
  }
  return ' '.repeat(w - len) + s;
}

/** Go's strconv.Quote (close enough: printable Unicode is kept, controls escaped). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\n': out += '\\n'; continue;
      case '\t': out += '\\t'; continue;
      case '\r': out += '\\r'; continue;
      case '\u0007': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\v': out += '\\v'; continue;
      default: break;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

function expText(e: number): string {
  const sign = e < 0 ? '-' : '+';
  const a = Math.abs(e);
  return `e${sign}${a < 10 ? '0' + a : a}`;
}

/** Go's strconv.FormatFloat for verbs e, f, g (prec -1 = shortest). */
export function formatFloat(v: number, verb: 'e' | 'f' | 'g' | 'E' | 'G', prec: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  const neg = v < 0 || Object.is(v, -0);
  const a = Math.abs(v);
  let body: string;
  const lower = verb.toLowerCase();
  if (lower === 'f') {
    if (prec < 0) {
      // shortest digits in fixed notation
      const p = shortestParts(a);
      body = fixedFromParts(p.digits, p.exp);
    } else body = toFixedBig(a, prec);
  } else if (lower === 'e') {
    if (prec < 0) {
      const p = shortestParts(a);
      body = sciFromParts(p.digits, p.exp, p.digits.length - 1);
    } else {
      const s = a.toExponential(prec);
      const [m, e] = s.split('e');
      body = `${m}${expText(Number(e))}`;
    }
  } else {
    // %g
    let digits: string;
    let exp: number;
    if (prec < 0) {
      const p = shortestParts(a);
      digits = p.digits;
      exp = p.exp;
    } else {
      const pp = prec === 0 ? 1 : prec;
      const s = a.toExponential(pp - 1);
      const [m, e] = s.split('e');
      digits = m!.replace('.', '').replace(/0+$/, '') || '0';
      exp = Number(e);
    }
    let eprec = prec < 0 ? 6 : prec === 0 ? 1 : prec;
    if (prec >= 0 && eprec > digits.length && digits.length >= exp + 1) eprec = digits.length;
    if (a === 0) { digits = '0'; exp = 0; }
    if (exp < -4 || exp >= eprec) {
      body = sciFromParts(digits, exp, digits.length - 1);
    } else body = fixedFromParts(digits, exp);
  }
  if (verb === 'E' || verb === 'G') body = body.toUpperCase();
  return (neg ? '-' : '') + body;
}

function shortestParts(a: number): { digits: string; exp: number } {
  if (a === 0) return { digits: '0', exp: 0 };
  const s = a.toExponential();
  const [m, e] = s.split('e');
  return { digits: m!.replace('.', ''), exp: Number(e) };
}

function fixedFromParts(digits: string, exp: number): string {
  if (exp >= 0) {
    if (digits.length <= exp + 1) return digits + '0'.repeat(exp + 1 - digits.length);
    return `${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  return `0.${'0'.repeat(-exp - 1)}${digits}`;
}

function sciFromParts(digits: string, exp: number, _fracDigits: number): string {
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${m}${expText(exp)}`;
}

function toFixedBig(a: number, prec: number): string {
  if (a < 1e21) return a.toFixed(prec);
  // exact integer part for large doubles
  const int = BigInt(a).toString();
  return prec > 0 ? `${int}.${'0'.repeat(prec)}` : int;
}

function formatInt(v: bigint, verb: string, spec: Spec): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'd': case 'v': case 's': digits = a.toString(10); break;
    case 'b': digits = a.toString(2); if (spec.sharp) prefix = '0b'; break;
    case 'o': digits = a.toString(8); if (spec.sharp) prefix = '0'; break;
    case 'O': digits = a.toString(8); prefix = '0o'; break;
    case 'x': digits = a.toString(16); if (spec.sharp) prefix = '0x'; break;
    case 'X': digits = a.toString(16).toUpperCase(); if (spec.sharp) prefix = '0X'; break;
    default: digits = a.toString(10);
  }
  if (spec.prec !== undefined) {
    if (spec.prec === 0 && a === 0n) digits = '';
    digits = digits.padStart(spec.prec, '0');
  }
  const sign = neg ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  if (spec.zero && !spec.minus && spec.prec === undefined && spec.width !== undefined) {
    const body = prefix + digits;
    const w = spec.width - sign.length;
    return sign + (body.length < w ? '0'.repeat(w - body.length) : '') + body;
  }
  return pad(sign + prefix + digits, spec, false);
}

function formatStringVerb(s: string, verb: string, spec: Spec): string {
  let t = s;
  switch (verb) {
    case 's': case 'v':
      if (spec.prec !== undefined) t = Array.from(t).slice(0, spec.prec).join('');
      return pad(t, spec);
    case 'q':
      return pad(goQuote(t), spec);
    case 'x': case 'X': {
      let h = Buffer.from(t, 'utf8').toString('hex');
      if (verb === 'X') h = h.toUpperCase();
      return pad(h, spec);
    }
    default:
      // Go's badVerb prints the value as %v under the same flags, width and precision
      return `%!${verb}(string=${formatStringVerb(s, 'v', spec)})`;
  }
}

function formatFloatVerb(v: number, verb: string, spec: Spec): string {
  let body: string;
  switch (verb) {
    case 'v': case 'g': case 'G':
      body = formatFloat(v, verb === 'G' ? 'G' : 'g', spec.prec ?? -1);
      break;
    case 'e': case 'E':
      body = formatFloat(v, verb, spec.prec ?? 6);
      break;
    case 'f': case 'F':
      body = formatFloat(v, 'f', spec.prec ?? 6);
      break;
    default:
      return `%!${verb}(float64=${formatFloatVerb(v, 'v', spec)})`;
  }
  if (!body.startsWith('-')) {
    if (spec.plus) body = '+' + body;
    else if (spec.space) body = ' ' + body;
  }
  return pad(body, spec, Number.isFinite(v));
}

function formatArg(a: GoArg, verb: string, spec: Spec): string {
  if (verb === 'T') return pad(goTypeName(a), spec);
  switch (a.kind) {
    case 'int':
      if ('dvbOoxX'.includes(verb)) return formatInt(a.v, verb, spec);
      if (verb === 'c') return pad(String.fromCodePoint(Number(a.v)), spec);
      if (verb === 'q') return pad(`'${String.fromCodePoint(Number(a.v))}'`, spec);
      return `%!${verb}(int64=${formatInt(a.v, 'v', spec)})`;
    case 'bigint':
      if ('dvsbOoxX'.includes(verb)) return formatInt(a.v, verb, spec);
      return `%!${verb}(big.Int=${formatInt(a.v, 'v', spec)})`;
    case 'float':
      return formatFloatVerb(a.v, verb, spec);
    case 'string':
      return formatStringVerb(a.v, verb, spec);
  }
}

/** Go's fmt.Sprintf over the argument kinds OPA produces. */
/** Thrown by goSprintf when the text would pass `maxLength`. */
export class SprintfTooLong extends Error {}

/** Go's fmt refuses widths and precisions past 1e6 (`tooLarge`). */
const TOO_LARGE = 1e6;

export function goSprintf(format: string, args: readonly GoArg[], maxLength = Number.POSITIVE_INFINITY): string {
  let out = '';
  let argi = 0;
  let i = 0;
  const n = format.length;
  while (i < n) {
    const c = format[i]!;
    if (c !== '%') {
      out += c;
      i++;
      continue;
    }
    i++;
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false };
    for (; i < n; i++) {
      const f = format[i];
      if (f === '-') { spec.minus = true; spec.zero = false; }
      else if (f === '+') spec.plus = true;
      else if (f === '#') spec.sharp = true;
      else if (f === ' ') spec.space = true;
      else if (f === '0') spec.zero = !spec.minus;
      else break;
    }
    // Go's parsenum: a number that grows past 1e6 consumes the rest of the format.
    const readNum = (): number | undefined => {
      let j = i;
      let v = 0;
      while (j < n && format[j]! >= '0' && format[j]! <= '9') {
        if (v > TOO_LARGE) {
          i = n;
          return undefined;
        }
        v = v * 10 + (format.charCodeAt(j) - 48);
        j++;
      }
      if (j === i) return undefined;
      i = j;
      return v;
    };
    if (format[i] === '*') {
      i++;
      const w = args[argi++];
      if (w !== undefined && w.kind === 'int' && w.v <= TOO_LARGE && w.v >= -TOO_LARGE) {
        spec.width = Number(w.v);
        if (spec.width < 0) { spec.minus = true; spec.width = -spec.width; }
      } else out += '%!(BADWIDTH)';
    } else spec.width = readNum();
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        i++;
        const p = args[argi++];
        if (p !== undefined && p.kind === 'int' && p.v <= TOO_LARGE && p.v >= 0) spec.prec = Number(p.v);
        else out += '%!(BADPREC)';
      } else spec.prec = readNum() ?? 0;
    }
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    const a = args[argi++];
    if (a === undefined) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    if (out.length + (spec.width ?? 0) + (spec.prec ?? 0) > maxLength) throw new SprintfTooLong();
    out += formatArg(a, verb, spec);
    if (out.length > maxLength) throw new SprintfTooLong();
  }
  if (argi < args.length) {
    out += '%!(EXTRA ' + args.slice(argi).map((a) => `${goTypeName(a)}=${rawText(a)}`).join(', ') + ')';
  }
  return out;
}
