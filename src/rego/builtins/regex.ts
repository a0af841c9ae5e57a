/**
 * Regular-expression builtins with Go's RE2 semantics through the native `re2` package
 * (same engine family as Go's regexp: no backreferences, linear time). Compiled patterns are cached.
 */
import RE2 from 're2';
import { registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import type { Value } from '../value.ts';
import { arg, builtinError, int, str } from './args.ts';

const CACHE_MAX = 1000;
const cache = new Map<string, RE2>();

class PatternError extends Error {}

function compile(pattern: string): RE2 {
  let re = cache.get(pattern);
  if (re === undefined) {
    try {
      re = new RE2(pattern, 'gu');
    } catch (e) {
      throw new PatternError(`error parsing regexp: ${goSyntaxMessage((e as Error).message)}`);
    }
    if (cache.size >= CACHE_MAX) {
      const first = cache.keys().next();
      if (first.done !== true) cache.delete(first.value);
    }
    cache.set(pattern, re);
  }
  return re;
}

/** RE2's (C++) parse errors in the wording of Go's regexp/syntax, which OPA reports. */
const GO_WORDING: [string, string][] = [
  ['missing )', 'missing closing )'],
  ['missing ]', 'missing closing ]'],
  ['bad repetition operator', 'invalid nested repetition operator'],
  ['no argument for repetition operator', 'missing argument to repetition operator'],
  ['invalid repetition size', 'invalid repeat count'],
  ['invalid named capture group', 'invalid named capture'],
  ['invalid perl operator', 'invalid or unsupported Perl syntax'],
];

function goSyntaxMessage(m: string): string {
  const at = m.indexOf(': ');
  if (at < 0) return m;
  let what = m.slice(0, at);
  for (const [re2, go] of GO_WORDING) if (what === re2) what = go;
  return `${what}: \`${m.slice(at + 2)}\``;
}

function compileFor(name: string, pattern: string): RE2 {
  try {
    return compile(pattern);
  } catch (e) {
    throw builtinError(name, (e as Error).message);
  }
}

/** Go's FindAllStringSubmatchIndex: non-overlapping matches, no empty match right after a match. */
function findAll(re: RE2, s: string, n: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && pos <= s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    let accept = true;
    if (end === start) {
      if (start === prevEnd) accept = false;
      if (start >= s.length) pos = s.length + 1;
      else pos = start + (s.codePointAt(start)! > 0xffff ? 2 : 1);
    } else pos = end;
    prevEnd = end;
    if (accept) out.push(m);
  }
  return out;
}

/** Go's Regexp.Expand template syntax: $1, ${1}, $name, ${name}, $$. */
function expand(template: string, m: RegExpExecArray): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    i++;
    if (template[i] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string | undefined;
    if (template[i] === '{') {
      const close = template.indexOf('}', i);
      const inner = close < 0 ? '' : template.slice(i + 1, close);
      if (close >= 0 && /^[A-Za-z0-9_]+$/.test(inner)) {
        name = inner;
        i = close + 1;
      }
    } else {
      const mm = /^[A-Za-z0-9_]+/.exec(template.slice(i));
      if (mm !== null) {
        name = mm[0];
        i += name.length;
      }
    }
    if (name === undefined) {
      out += '$';
      continue;
    }
    if (/^[0-9]+$/.test(name)) {
      const g = m[Number(name)];
      out += g ?? '';
    } else {
      out += m.groups?.[name] ?? '';
    }
  }
  return out;
}

function goSplit(re: RE2, s: string): string[] {
  if (s === '') return [''];
  const matches = findAll(re, s, -1);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of matches) {
    end = m.index;
    const mEnd = m.index + m[0].length;
    if (mEnd !== 0) out.push(s.slice(beg, end));
    beg = mEnd;
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

export const REGEX_BUILTINS: BuiltinDef[] = [
  {
    name: 'regex.match',
    arity: 2,
    fn: (a) => {
      const re = compileFor('regex.match', str('regex.match', a, 0));
      re.lastIndex = 0;
      return re.test(str('regex.match', a, 1));
    },
  },
  {
    name: 'regex.is_valid',
    arity: 1,
    fn: (a) => {
      const p = arg(a, 0);
      if (typeof p !== 'string') return false;
      try {
        compile(p);
        return true;
      } catch {
        return false;
      }
    },
  },
  {
    name: 'regex.find_n',
    arity: 3,
    fn: (a) => {
      const name = 'regex.find_n';
      const re = compileFor(name, str(name, a, 0));
      const s = str(name, a, 1);
      const n = int(name, a, 2);
      return findAll(re, s, n < 0n ? -1 : Number(n)).map((m) => m[0]);
    },
  },
  {
    name: 'regex.find_all_string_submatch_n',
    arity: 3,
    fn: (a) => {
      const name = 'regex.find_all_string_submatch_n';
      const re = compileFor(name, str(name, a, 0));
      const s = str(name, a, 1);
      const n = int(name, a, 2);
      return findAll(re, s, n < 0n ? -1 : Number(n)).map((m) => Array.from(m, (g) => g ?? ''));
    },
  },
  {
    name: 'regex.split',
    arity: 2,
    fn: (a) => goSplit(compileFor('regex.split', str('regex.split', a, 0)), str('regex.split', a, 1)),
  },
  {
    name: 'regex.replace',
    arity: 3,
    fn: (a) => {
      const name = 'regex.replace';
      const s = str(name, a, 0);
      const re = compileFor(name, str(name, a, 1));
      const tpl = str(name, a, 2);
      let out = '';
      let last = 0;
      for (const m of findAll(re, s, -1)) {
        out += s.slice(last, m.index) + expand(tpl, m);
        last = m.index + m[0].length;
      }
      return out + s.slice(last);
    },
  },
  {
    name: 'regex.template_match',
    arity: 4,
    fn: (a) => {
      const name = 'regex.template_match';
      const tpl = str(name, a, 0);
      const s = str(name, a, 1);
      const ds = str(name, a, 2);
      const de = str(name, a, 3);
      if ([...ds].length !== 1 || [...de].length !== 1) throw builtinError(name, 'delimiters must be single characters');
      // Literal text outside delimiters, regular expressions inside them.
      let src = '^';
      let i = 0;
      while (i < tpl.length) {
        const open = tpl.indexOf(ds, i);
        if (open < 0) {
          src += RE2escape(tpl.slice(i));
          break;
        }
        src += RE2escape(tpl.slice(i, open));
        let depth = 0;
        let j = open;
        for (; j < tpl.length; j++) {
          if (tpl[j] === ds) depth++;
          else if (tpl[j] === de) {
            depth--;
            if (depth === 0) break;
          }
        }
        if (j >= tpl.length) throw builtinError(name, `unbalanced braces in template "${tpl}"`);
        src += `(?:${tpl.slice(open + ds.length, j)})`;
        i = j + de.length;
      }
      src += '$';
      const re = compileFor(name, src);
      re.lastIndex = 0;
      return re.test(s);
    },
  },
];

function RE2escape(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
}

/**
 * RE2 runs in time linear in the subject with a factor that grows with the pattern, so a call is
 * charged for pattern x subject before it runs (and the built results afterwards, by the registry).
 */
export function matchCost(args: readonly Value[]): number {
  let total = 0;
  let product = 1;
  for (const x of args) {
    if (typeof x !== 'string') continue;
    total += x.length;
    product *= x.length + 1;
  }
  return 1 + Math.floor(total / 16) + Math.floor(Math.min(product, Number.MAX_SAFE_INTEGER) / 1024);
}

registerBuiltins(
  REGEX_BUILTINS.map((d) => {
    const fn = d.fn!;
    return {
      ...d,
      fn: (a: Value[], ctx: BuiltinContext) => {
        ctx.budget?.work(matchCost(a));
        return fn(a, ctx);
      },
    };
  }),
);
