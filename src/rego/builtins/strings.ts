/** String builtins (OPA topdown/strings.go semantics; indices and lengths count code points). */
import { type Value, SetValue, isNumber } from '../value.ts';
import { toBigInt } from '../number-value.ts';
import { writtenNumber } from '../written-numbers.ts';
import { registerBuiltins, type BuiltinDef } from './registry.ts';
import {
  BuiltinError, arg, arr, builtinError, elementError, int, num, obj, oneOfError, runeCount, runes, str,
} from './args.ts';
import { goSprintf, SprintfTooLong, type GoArg } from './lib/gofmt.ts';
import { regoText } from './text.ts';
import { renderGoTemplate, TemplateError } from './lib/gotemplate.ts';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * `written`: the text of a float-written integer literal (written-numbers.ts), which OPA formats as
 * a float, or as that text where it is beyond a float64 (`2e308`).
 */
function toGoArg(v: Value, written?: string): GoArg {
  if (typeof v === 'string') return { kind: 'string', v };
  if (written !== undefined) {
    const d = Number(written);
    return Number.isFinite(d) ? { kind: 'float', v: d } : { kind: 'string', v: written };
  }
  if (isNumber(v)) {
    const b = toBigInt(v);
    if (b !== undefined) return b >= INT64_MIN && b <= INT64_MAX ? { kind: 'int', v: b } : { kind: 'bigint', v: b };
    return { kind: 'float', v: Number(String(v)) };
  }
  return { kind: 'string', v: regoText(v) };
}

/** Go's unicode.IsSpace. */
function isSpace(c: string): boolean {
  return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u.test(c);
}

function indexOfRunes(hay: string[], needle: string[], from: number): number {
  outer: for (let i = from; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

/** Go's strings.Split (empty separator splits into code points). */
export function goSplit(s: string, sep: string): string[] {
  if (sep === '') return runes(s);
  return s.split(sep);
}

/** Go's strings.SplitN. */
function goSplitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (n < 0) return goSplit(s, sep);
  if (sep === '') {
    const r = runes(s);
    if (r.length <= n) return r;
    return [...r.slice(0, n - 1), r.slice(n - 1).join('')];
  }
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

function trimLeftSet(s: string, cut: Set<string>): string {
  const r = runes(s);
  let i = 0;
  while (i < r.length && cut.has(r[i]!)) i++;
  return r.slice(i).join('');
}
function trimRightSet(s: string, cut: Set<string>): string {
  const r = runes(s);
  let j = r.length;
  while (j > 0 && cut.has(r[j - 1]!)) j--;
  return r.slice(0, j).join('');
}

/**
 * Go's strings.NewReplacer(pairs...).Replace(s): at each position the first pair (in argument order)
 * whose key matches wins; an empty key matches at every position, but not twice in a row.
 */
function replaceMany(s: string, pairs: [string, string][]): string {
  let out = '';
  let i = 0;
  let prevEmpty = false;
  while (i <= s.length) {
    let hit: [string, string] | undefined;
    for (const p of pairs) {
      if (p[0] === '' && prevEmpty) continue;
      if (s.startsWith(p[0], i)) {
        hit = p;
        break;
      }
    }
    if (hit !== undefined) {
      out += hit[1];
      i += hit[0].length;
      prevEmpty = hit[0] === '';
      continue;
    }
    prevEmpty = false;
    if (i === s.length) break;
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    out += ch;
    i += ch.length;
  }
  return out;
}

function prefixCandidates(name: string, args: Value[], i: number): string[] {
  const v = arg(args, i);
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) || v instanceof SetValue) {
    const items = Array.isArray(v) ? v : v.values();
    return items.map((x) => {
      if (typeof x !== 'string') throw elementError(name, i + 1, v, 'string', x);
      return x;
    });
  }
  throw oneOfError(name, i + 1, ['string', 'set', 'array'], v);
}

function formatInt(args: Value[]): Value {
  const name = 'format_int';
  const n = num(name, args, 0);
  const base = num(name, args, 1);
  const b = toBigInt(base);
  if (b !== 2n && b !== 8n && b !== 10n && b !== 16n) {
    throw new BuiltinError('eval_type_error', `${name}: operand 2 must be one of {2, 8, 10, 16}`);
  }
  let i = toBigInt(n);
  if (i === undefined) {
    // truncate toward zero
    const t = String(n);
    const m = /^(-?)(\d*)/.exec(t)!;
    i = BigInt((m[1] ?? '') + ((m[2] ?? '') || '0'));
  }
  return i.toString(Number(b));
}

export const STRING_BUILTINS: BuiltinDef[] = [
  {
    name: 'concat',
    arity: 2,
    fn: (a, ctx) => {
      const delim = str('concat', a, 0);
      const v = arg(a, 1);
      let items: readonly Value[];
      if (Array.isArray(v)) items = v;
      else if (v instanceof SetValue) items = v.values();
      else throw oneOfError('concat', 2, ['set', 'array'], v);
      if (ctx.budget) {
        let total = delim.length * Math.max(0, items.length - 1);
        for (const x of items) if (typeof x === 'string') total += x.length;
        ctx.budget.ensure(total);
      }
      return items
        .map((x) => {
          if (typeof x !== 'string') throw elementError('concat', 2, v, 'string', x);
          return x;
        })
        .join(delim);
    },
  },
  { name: 'contains', arity: 2, fn: (a) => str('contains', a, 0).includes(str('contains', a, 1)) },
  { name: 'startswith', arity: 2, fn: (a) => str('startswith', a, 0).startsWith(str('startswith', a, 1)) },
  { name: 'endswith', arity: 2, fn: (a) => str('endswith', a, 0).endsWith(str('endswith', a, 1)) },
  { name: 'format_int', arity: 2, fn: formatInt },
  {
    name: 'indexof',
    arity: 2,
    fn: (a) => {
      const s = str('indexof', a, 0);
      const sub = str('indexof', a, 1);
      if (sub === '') throw builtinError('indexof', 'empty search character');
      return indexOfRunes(runes(s), runes(sub), 0);
    },
  },
  {
    name: 'indexof_n',
    arity: 2,
    fn: (a) => {
      const s = runes(str('indexof_n', a, 0));
      const sub = runes(str('indexof_n', a, 1));
      if (sub.length === 0) throw builtinError('indexof_n', 'empty search character');
      const out: Value[] = [];
      let i = indexOfRunes(s, sub, 0);
      while (i >= 0) {
        out.push(i);
        i = indexOfRunes(s, sub, i + 1);
      }
      return out;
    },
  },
  { name: 'lower', arity: 1, fn: (a) => str('lower', a, 0).toLowerCase() },
  { name: 'upper', arity: 1, fn: (a) => str('upper', a, 0).toUpperCase() },
  {
    name: 'replace',
    arity: 3,
    fn: (a, ctx) => {
      const s = str('replace', a, 0);
      const o = str('replace', a, 1);
      const n = str('replace', a, 2);
      if (o === '') {
        const r = runes(s);
        ctx.budget?.ensure(s.length + (r.length + 1) * n.length);
        return n + r.map((c) => c + n).join('');
      }
      const parts = s.split(o);
      ctx.budget?.ensure(s.length + (parts.length - 1) * n.length);
      return parts.join(n);
    },
  },
  {
    name: 'strings.replace_n',
    arity: 2,
    fn: (a) => {
      const name = 'strings.replace_n';
      const patterns = obj(name, a, 0);
      const s = str(name, a, 1);
      const pairs: [string, string][] = [];
      for (const [k, v] of patterns.entries()) {
        if (typeof k !== 'string') throw new BuiltinError('eval_type_error', `${name}: operand 1 non-string key found in pattern object`);
        if (typeof v !== 'string') throw new BuiltinError('eval_type_error', `${name}: operand 1 non-string value found in pattern object`);
        pairs.push([k, v]);
      }
      return replaceMany(s, pairs);
    },
  },
  { name: 'split', arity: 2, fn: (a) => goSplit(str('split', a, 0), str('split', a, 1)) },
  {
    name: 'strings.split_n',
    arity: 3,
    fn: (a) => {
      const name = 'strings.split_n';
      const s = str(name, a, 0);
      const sep = str(name, a, 1);
      const n = int(name, a, 2);
      if (n >= 0n) return goSplitN(s, sep, n > 1_000_000_000n ? 1_000_000_000 : Number(n));
      const all = goSplit(s, sep);
      const k = -n > BigInt(all.length) ? all.length : Number(-n);
      return all.slice(all.length - k);
    },
  },
  {
    name: 'substring',
    arity: 3,
    fn: (a) => {
      const name = 'substring';
      const s = runes(str(name, a, 0));
      const start = int(name, a, 1);
      const len = int(name, a, 2);
      if (start < 0n) throw builtinError(name, 'negative offset');
      if (start >= BigInt(s.length)) return '';
      const st = Number(start);
      if (len < 0n) return s.slice(st).join('');
      const end = BigInt(st) + len > BigInt(s.length) ? s.length : st + Number(len);
      return s.slice(st, end).join('');
    },
  },
  {
    name: 'trim',
    arity: 2,
    fn: (a) => {
      const cut = new Set(runes(str('trim', a, 1)));
      return trimRightSet(trimLeftSet(str('trim', a, 0), cut), cut);
    },
  },
  { name: 'trim_left', arity: 2, fn: (a) => trimLeftSet(str('trim_left', a, 0), new Set(runes(str('trim_left', a, 1)))) },
  { name: 'trim_right', arity: 2, fn: (a) => trimRightSet(str('trim_right', a, 0), new Set(runes(str('trim_right', a, 1)))) },
  {
    name: 'trim_prefix',
    arity: 2,
    fn: (a) => {
      const s = str('trim_prefix', a, 0);
      const p = str('trim_prefix', a, 1);
      return s.startsWith(p) ? s.slice(p.length) : s;
    },
  },
  {
    name: 'trim_suffix',
    arity: 2,
    fn: (a) => {
      const s = str('trim_suffix', a, 0);
      const p = str('trim_suffix', a, 1);
      return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
    },
  },
  {
    name: 'trim_space',
    arity: 1,
    fn: (a) => {
      const r = runes(str('trim_space', a, 0));
      let i = 0;
      let j = r.length;
      while (i < j && isSpace(r[i]!)) i++;
      while (j > i && isSpace(r[j - 1]!)) j--;
      return r.slice(i, j).join('');
    },
  },
  {
    name: 'sprintf',
    arity: 2,
    fn: (a, ctx) => {
      const f = str('sprintf', a, 0);
      const xs = arr('sprintf', a, 1);
      const b = ctx.budget;
      try {
        return goSprintf(f, xs.map((x, i) => toGoArg(x, writtenNumber(xs, i))), b ? b.maxBytes - b.bytes : undefined);
      } catch (e) {
        if (e instanceof SprintfTooLong && b) b.exceeded('bytes');
        throw e;
      }
    },
  },
  {
    name: 'strings.any_prefix_match',
    arity: 2,
    fn: (a) => {
      const ss = prefixCandidates('strings.any_prefix_match', a, 0);
      const ps = prefixCandidates('strings.any_prefix_match', a, 1);
      return ss.some((s) => ps.some((p) => s.startsWith(p)));
    },
  },
  {
    name: 'strings.any_suffix_match',
    arity: 2,
    fn: (a) => {
      const ss = prefixCandidates('strings.any_suffix_match', a, 0);
      const ps = prefixCandidates('strings.any_suffix_match', a, 1);
      return ss.some((s) => ps.some((p) => s.endsWith(p)));
    },
  },
  { name: 'strings.reverse', arity: 1, fn: (a) => runes(str('strings.reverse', a, 0)).reverse().join('') },
  {
    name: 'strings.count',
    arity: 2,
    fn: (a) => {
      const s = str('strings.count', a, 0);
      const sub = str('strings.count', a, 1);
      if (sub === '') return runeCount(s) + 1;
      return s.split(sub).length - 1;
    },
  },
  {
    name: 'strings.render_template',
    arity: 2,
    fn: (a) => {
      const name = 'strings.render_template';
      const tpl = str(name, a, 0);
      const vars = obj(name, a, 1);
      let out: string;
      try {
        out = renderGoTemplate(tpl, vars);
      } catch (e) {
        if (e instanceof TemplateError) throw builtinError(name, `template: template: ${e.message}`);
        throw e;
      }
      // as OPA: Go's text for a missing value is shown as <undefined>
      return out.replaceAll('<no value>', '<undefined>');
    },
  },
];

registerBuiltins(STRING_BUILTINS);
