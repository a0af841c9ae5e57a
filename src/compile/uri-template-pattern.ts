/**
 * RFC 6570 URI template -> an anchored RE2 pattern matching every URI the template can expand to.
 *
 * Gateways decide `resources/read` at request time in Rego (`regex.match`, RE2 in OPA and in the
 * builtin engine), so matching is compiled into a pattern here rather than done by a library at
 * run time. The pattern follows the expansion rules of RFC 6570 §3.2 for levels 1-4: per
 * operator, the prefix (`first`), the separator, whether names are written (`;`, `?`, `&`), and
 * the characters a value may hold after encoding (unreserved and pct-encoded; `+` and `#` also
 * keep reserved characters). Every variable may be undefined, so an expression matches any
 * ordered subset of its variables, including none. A value's structure (string, list, map) is not
 * tracked beyond the characters and separators it can produce, so the pattern is a superset of
 * the exact expansion language, never a subset: a URI the template can produce always matches.
 */
import { ToolgateError } from '../errors.ts';

interface Operator {
  readonly first: string;
  readonly sep: string;
  readonly named: boolean;
  /** After a name whose value is empty: `;x` but `?x=`. */
  readonly ifEmpty: string;
  readonly reserved: boolean;
}

const OPERATORS: Readonly<Record<string, Operator>> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

const PCT = '%[0-9A-Fa-f]{2}';
// '-' first, so that appending other characters never makes it a range.
const UNRESERVED = '\\-A-Za-z0-9._~';
const RESERVED = ":/?#\\[\\]@!$&'()*+,;=";
// Operators that RFC 6570 reserves for future use (§2.2); a template using one is refused.
const FUTURE_OPERATORS = new Set(['=', ',', '!', '@', '|']);

const VARNAME = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;

/** Regex metacharacters of RE2 and JavaScript, escaped in literal text. */
function quote(s: string): string {
  return s.replace(/[\\^$.|?*+()[\]{}/-]/g, (c) => `\\${c}`);
}

/**
 * Characters a value may expand to, plus `extra` (separators inside one variable's value). A
 * reserved expansion also takes a `%` that starts no triplet: url-template (3.1.1) passes a value's
 * trailing `%` or `%X` through unencoded, and the pattern must match what such servers produce.
 */
function valueChars(op: Operator, extra: string): string {
  return `(?:[${UNRESERVED}${op.reserved ? `${RESERVED}%` : ''}${quote(extra)}]|${PCT})*`;
}

interface VarSpec {
  readonly name: string;
  readonly explode: boolean;
}

/** What one defined variable expands to under `op` (RFC 6570 §3.2.1, the per-variable steps). */
function itemPattern(op: Operator, v: VarSpec): string {
  if (!op.named) {
    // A list or map joins with "," unexploded, with the separator (and "=" for a map) exploded.
    return valueChars(op, v.explode ? `,=${op.sep}` : ',');
  }
  const name = quote(v.name);
  if (!v.explode) {
    const value = valueChars(op, ',');
    return op.ifEmpty === '' ? `${name}(?:=${value})?` : `${name}=${value}`;
  }
  // Exploded: each list item written name=value, each map pair key=value, joined by the separator.
  const key = `(?:[${UNRESERVED}]|${PCT})+`;
  const pair = `${key}(?:=${valueChars(op, '')})?`;
  return `${pair}(?:${quote(op.sep)}${pair})*`;
}

/** An expression: its prefix, then any ordered, non-empty subset of its variables joined by the separator; or nothing. */
function expressionPattern(op: Operator, vars: readonly VarSpec[]): string {
  const items = vars.map((v) => itemPattern(op, v));
  const sep = quote(op.sep);
  const starts = items.map((first, i) => first + items.slice(i + 1).map((it) => `(?:${sep}${it})?`).join(''));
  return `(?:${quote(op.first)}(?:${starts.join('|')}))?`;
}

function parseVarSpec(spec: string, template: string): VarSpec {
  const explode = spec.endsWith('*');
  const core = explode ? spec.slice(0, -1) : spec.replace(/:[1-9][0-9]{0,3}$/, '');
  if (!VARNAME.test(core)) {
    throw new ToolgateError('CATALOG_INVALID', `URI template ${JSON.stringify(template)}: expected a variable name, got ${JSON.stringify(spec)}`);
  }
  return { name: core, explode };
}

/**
 * The anchored pattern for `template`; a malformed template is CATALOG_INVALID.
 *
 * @example
 * new RegExp(uriTemplatePattern('file:///srv/app/{path}')).test('file:///srv/app/a%2Fb') // true
 * new RegExp(uriTemplatePattern('file:///srv/app/{path}')).test('file:///srv/app/a/b')   // false
 */
export function uriTemplatePattern(template: string): string {
  let out = '^';
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    const close = template.indexOf('}', i);
    if (close !== -1 && (open === -1 || close < open)) {
      throw new ToolgateError('CATALOG_INVALID', `URI template ${JSON.stringify(template)}: "}" at offset ${close} closes no expression`);
    }
    if (open === -1) {
      out += quote(template.slice(i));
      break;
    }
    out += quote(template.slice(i, open));
    if (close === -1) throw new ToolgateError('CATALOG_INVALID', `URI template ${JSON.stringify(template)}: "{" at offset ${open} is never closed`);
    const body = template.slice(open + 1, close);
    const opChar = body.length > 0 && !/[A-Za-z0-9_%]/.test(body[0]!) ? body[0]! : '';
    if (FUTURE_OPERATORS.has(opChar) || OPERATORS[opChar] === undefined) {
      throw new ToolgateError('CATALOG_INVALID', `URI template ${JSON.stringify(template)}: operator ${JSON.stringify(opChar)} at offset ${open + 1} is not one of RFC 6570's`);
    }
    const vars = body.slice(opChar.length).split(',').map((s) => parseVarSpec(s, template));
    out += expressionPattern(OPERATORS[opChar]!, vars);
    i = close + 1;
  }
  return `${out}$`;
}
