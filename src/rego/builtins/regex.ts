/**
 * Regular-expression builtins (https://www.openpolicyagent.org/docs/policy-reference/builtins/regex)
 * with Go's `regexp` semantics, through lib/re2.ts; `regex.globs_match` through
 * lib/glob-intersection.ts. Every call is charged for its matching work before it runs.
 */
import { registerBuiltins, type BuiltinContext, type BuiltinDef } from './registry.ts';
import type { Value } from '../value.ts';
import { arg, builtinError, int, str } from './args.ts';
import { goQuote } from './lib/gofmt.ts';
import {
  RegexpSyntaxError,
  compileRegexp,
  findAllString,
  findAllStringSubmatch,
  isValidRegexp,
  matchString,
  quoteMeta,
  replaceAllString,
  splitString,
  type Regexp,
} from './lib/re2.ts';
import { GlobIntersectionSyntaxError, globsIntersect } from './lib/glob-intersection.ts';

function compileFor(name: string, pattern: string): Regexp {
  try {
    return compileRegexp(pattern);
  } catch (e) {
    if (e instanceof RegexpSyntaxError) throw builtinError(name, e.message);
    throw e;
  }
}

/** Go's int operand as a match count: any negative number means all matches. */
function count(name: string, args: Value[], i: number): number {
  const n = int(name, args, i);
  return n < 0n ? -1 : Number(n);
}

/**
 * OPA's template pattern: text outside the delimiters literal, each delimited part a capturing
 * group, the whole anchored. Delimiters nest and are single bytes, so scanning UTF-16 code units
 * for them finds the same places Go finds scanning UTF-8 bytes.
 */
function templatePattern(name: string, template: string, open: string, close: string): string {
  const parts: [number, number][] = [];
  let level = 0;
  let start = 0;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === open) {
      if (++level === 1) start = i;
    } else if (c === close) {
      if (--level === 0) parts.push([start, i + 1]);
      else if (level < 0) throw builtinError(name, `unbalanced braces in ${goQuote(template)}`);
    }
  }
  if (level !== 0) throw builtinError(name, `unbalanced braces in ${goQuote(template)}`);
  let pattern = '^';
  let end = 0;
  for (const [from, to] of parts) {
    const inner = template.slice(from + 1, to - 1);
    // OPA compiles each part alone first, so a bad part is reported as `^part$`.
    compileFor(name, `^${inner}$`);
    pattern += `${quoteMeta(template.slice(end, from))}(${inner})`;
    end = to;
  }
  return `${pattern}${quoteMeta(template.slice(end))}$`;
}

/** Go's len of a string: its UTF-8 bytes. */
function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export const REGEX_BUILTINS: BuiltinDef[] = [
  {
    name: 'regex.match',
    arity: 2,
    fn: (a) => matchString(compileFor('regex.match', str('regex.match', a, 0)), str('regex.match', a, 1)),
  },
  {
    name: 'regex.is_valid',
    arity: 1,
    fn: (a) => {
      const p = arg(a, 0);
      return typeof p === 'string' && isValidRegexp(p);
    },
  },
  {
    name: 'regex.find_n',
    arity: 3,
    fn: (a) => {
      const name = 'regex.find_n';
      const re = compileFor(name, str(name, a, 0));
      const s = str(name, a, 1);
      return findAllString(re, s, count(name, a, 2));
    },
  },
  {
    name: 'regex.find_all_string_submatch_n',
    arity: 3,
    fn: (a) => {
      const name = 'regex.find_all_string_submatch_n';
      const re = compileFor(name, str(name, a, 0));
      const s = str(name, a, 1);
      return findAllStringSubmatch(re, s, count(name, a, 2));
    },
  },
  {
    name: 'regex.split',
    arity: 2,
    fn: (a) => {
      const re = compileFor('regex.split', str('regex.split', a, 0));
      return splitString(re, str('regex.split', a, 1));
    },
  },
  {
    name: 'regex.replace',
    arity: 3,
    fn: (a) => {
      const name = 'regex.replace';
      const s = str(name, a, 0);
      const re = compileFor(name, str(name, a, 1));
      return replaceAllString(re, s, str(name, a, 2));
    },
  },
  {
    name: 'regex.template_match',
    arity: 4,
    fn: (a) => {
      const name = 'regex.template_match';
      const template = str(name, a, 0);
      const s = str(name, a, 1);
      const open = str(name, a, 2);
      const close = str(name, a, 3);
      if (byteLength(open) !== 1) {
        throw builtinError(name, `start delimiter has to be exactly one character long but is ${byteLength(open)} long`);
      }
      // OPA reports the start delimiter's length here too.
      if (byteLength(close) !== 1) {
        throw builtinError(name, `end delimiter has to be exactly one character long but is ${byteLength(open)} long`);
      }
      return matchString(compileFor(name, templatePattern(name, template, open, close)), s);
    },
  },
  {
    name: 'regex.globs_match',
    arity: 2,
    fn: (a) => {
      const name = 'regex.globs_match';
      const lhs = str(name, a, 0);
      const rhs = str(name, a, 1);
      try {
        return globsIntersect(lhs, rhs);
      } catch (e) {
        if (e instanceof GlobIntersectionSyntaxError) throw builtinError(name, e.message);
        throw e;
      }
    },
  },
];

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
