/**
 * Rego terms with OPA's operator precedence: `in`, relations, `|`, `&`, `+ -`, `* / %`, unary minus,
 * then primaries (scalars, vars, refs, calls, arrays, sets, objects and comprehensions). A
 * comprehension's body is literals, which the body parser above reads. One file at ~490 lines:
 * the precedence levels and the primaries (with the memo that reads a bracketed term once however
 * often the descent backtracks over it) are one recursive descent over one token cursor.
 */
import type { Literal, Loc, Term } from './ast.ts';
import { parseNumber, type NumberValue } from './number-value.ts';
import { isWrittenFloat, keepWrittenNumbers } from './written-numbers.ts';
import { isKeywordRef } from './keyword-refs.ts';
import { TokenCursor } from './token-cursor.ts';
import { refName } from './term-walk.ts';
import { ObjectValue, SetValue, valueEquals, type Value } from './value.ts';

/** Keywords and literals OPA's scanner does not give as names (so `-true`, `-if` stay errors). */
const NOT_NAMES: ReadonlySet<string> = new Set(['true', 'false', 'null', 'package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'every', 'if', 'in']);

const INFIX_REL: Record<string, string> = { '==': 'equal', '!=': 'neq', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
const INFIX_OR: Record<string, string> = { '|': 'or' };
const INFIX_AND: Record<string, string> = { '&': 'and' };
const INFIX_ADD: Record<string, string> = { '+': 'plus', '-': 'minus' };
const INFIX_MUL: Record<string, string> = { '*': 'mul', '/': 'div', '%': 'rem' };

export abstract class TermParser extends TokenCursor {
  /** Literals separated by `;` or newlines, until the closing token (not consumed). */
  protected abstract parseLiterals(close: string): Literal[];

  parseSingleTerm(): Term {
    const t = this.parseInExpr();
    if (this.tok.type !== 'eof') this.unexpected();
    return t;
  }

  /** `k, v in coll` at expression level (internal.member_3). */
  protected parseMember3(first: Term): Term {
    if (!this.isOp(',') || this.tok.nl) return first;
    const save = this.pos;
    this.next();
    // as OPA: a `, v in coll` that does not parse leaves the comma to whatever follows
    const read = this.attempt(() => {
      const v = this.parseRelation();
      if (!this.isIdent('in') || this.tok.nl) return undefined;
      const at = this.next();
      return { v, at, c: this.parseRelation() };
    });
    if (read === undefined) {
      this.pos = save;
      return first;
    }
    const { v: value, at: t, c: coll } = read;
    let out: Term = { type: 'call', name: 'internal.member_3', args: [first, value, coll], loc: this.loc(t) };
    // as OPA: `k, v in xs in ys` is `(k, v in xs) in ys`
    while (this.isIdent('in') && !isKeywordRef(this.tok, this.peek())) {
      const u = this.next();
      out = { type: 'call', name: 'internal.member_2', args: [out, this.parseRelation()], loc: this.loc(u) };
    }
    return out;
  }

  // ------------------------------------------------------------ terms with operators
  parseInExpr(noOr = false): Term {
    let lhs = this.parseRelation(noOr);
    while (this.isIdent('in') && !isKeywordRef(this.tok, this.peek())) {
      const t = this.next();
      const rhs = this.parseRelation(noOr);
      lhs = { type: 'call', name: 'internal.member_2', args: [lhs, rhs], loc: this.loc(t) };
    }
    // `k, v in coll` inside expressions is only supported via `some`.
    return lhs;
  }

  protected parseRelation(noOr = false): Term {
    return this.parseBinary(INFIX_REL, () => this.parseOr(noOr));
  }

  protected parseOr(noOr: boolean): Term {
    return noOr ? this.parseAnd() : this.parseBinary(INFIX_OR, () => this.parseAnd());
  }

  protected parseAnd(): Term {
    return this.parseBinary(INFIX_AND, () => this.parseArith());
  }

  protected parseArith(): Term {
    return this.parseBinary(INFIX_ADD, () => this.parseFactor());
  }

  protected parseFactor(): Term {
    return this.parseBinary(INFIX_MUL, () => this.parseUnary());
  }

  /** `operand (op operand)*` for the operators of one level, left-associative: each op becomes a call of its builtin. */
  protected parseBinary(ops: Record<string, string>, operand: () => Term): Term {
    let lhs = operand();
    for (;;) {
      const name = this.tok.type === 'op' ? ops[this.tok.text] : undefined;
      if (name === undefined) return lhs;
      this.next();
      const rhs = operand();
      lhs = { type: 'call', name, args: [lhs, rhs], loc: lhs.loc };
    }
  }

  /** A single term: OPA allows `-` only in front of a numeric literal (whitespace may separate them). */
  protected parseUnary(): Term {
    if (this.isOp('-')) {
      const t = this.next();
      // OPA v1.22: `-` before a name (a var, a ref, a call) is minus(0, term)
      if (this.tok.type === 'ident' && !NOT_NAMES.has(this.tok.text)) {
        const term = this.parsePrimary();
        return { type: 'call', name: 'minus', args: [{ type: 'value', value: 0, loc: this.loc(t) }, term], loc: this.loc(t) };
      }
      const frac = this.leadingDot();
      if (this.tok.type !== 'number') this.unexpected('expected number');
      if (frac === '') this.refuseLeadingZero();
      const n = this.next();
      const v = parseNumber(`-${frac}${n.text}`);
      if (v === undefined) this.fail(`invalid number ${n.text}`, n);
      return this.parseSuffixes(numberTerm(v, `-${frac}${n.text}`, this.loc(t)));
    }
    return this.parsePrimary();
  }

  /** OPA's numbers start with 0 only as `0`, `0.x` or `0e..` (`01`, `007` are refused). */
  private refuseLeadingZero(): void {
    const text = this.tok.text;
    if (text.length < 2 || text[0] !== '0' || text[1] === '.') return;
    if (text.length > 2 && (text[1] === 'e' || text[1] === 'E')) return;
    this.unexpected('expected number without leading zero');
  }

  /** OPA reads `.5` as a number: a `.` before a number token is its decimal point (`0.` here). */
  private leadingDot(): string {
    if (!this.isOp('.') || this.peek().type !== 'number') return '';
    this.next();
    return '0.';
  }

  // ------------------------------------------------------------ primary terms
  parsePrimary(): Term {
    this.enterNested();
    const term = this.primary();
    this.leaveNested();
    return term;
  }

  private primary(): Term {
    const t = this.tok;
    const loc = this.loc(t);
    let term: Term;
    const frac = this.leadingDot();
    if (frac === '' && this.isOp('.')) {
      // OPA reads a `.` where a term starts as a number's decimal point
      this.next();
      this.unexpected('expected number');
    }
    if (frac !== '') {
      const n = this.next();
      const v = /^\d+$/.test(n.text) ? parseNumber(frac + n.text) : undefined;
      if (v === undefined) this.fail(`invalid number .${n.text}`, n);
      return this.parseSuffixes(numberTerm(v, frac + n.text, loc));
    }
    switch (t.type) {
      case 'number': {
        this.refuseLeadingZero();
        this.next();
        const v = parseNumber(t.text);
        if (v === undefined) this.fail(`invalid number ${t.text}`, t);
        term = numberTerm(v, t.text, loc);
        break;
      }
      case 'string':
        this.next();
        term = { type: 'value', value: t.text, loc };
        break;
      case 'ident': {
        // a keyword is no term (`p := not true`, `[some]`); `true`, `false` and `null` are
        if (NOT_NAMES.has(t.text) && t.text !== 'true' && t.text !== 'false' && t.text !== 'null') this.unexpected();
        // `and(a, b)` / `or(a, b)` stay calls of the set builtins
        if (this.isKeywordToken(t) && (t.text === 'and' || t.text === 'or') && !this.isOp('(', this.peek())) this.unexpected();
        this.next();
        if (t.text === 'true' || t.text === 'false') term = { type: 'value', value: t.text === 'true', loc };
        else if (t.text === 'null') term = { type: 'value', value: null, loc };
        else if (t.text === 'set' && this.isOp('(') && !this.tok.ws && this.isOp(')', this.peek())) {
          this.next();
          this.next();
          term = { type: 'set', items: [], loc };
        } else term = { type: 'var', name: t.text, loc };
        break;
      }
      case 'op':
        if (t.text === '(') {
          this.next();
          term = this.parseMember3(this.parseInExpr());
          if (!this.isOp(')')) this.fail('non-terminated expression');
          this.next();
          break;
        }
        if (t.text === '[') {
          term = this.bracketed(() => this.parseArrayLike());
          break;
        }
        if (t.text === '{') {
          term = this.bracketed(() => this.parseBraceLike());
          break;
        }
        return this.unexpected(undefined, t);
      default:
        return this.unexpected(undefined, t);
    }
    return this.parseSuffixes(term);
  }

  /** Each `[...]` / `{...}` term read so far, by the token it opens at, and the token after it. */
  private readonly bracketTerms = new Map<number, { readonly term: Term; readonly end: number }>();

  /**
   * A bracketed term, read once however often the parser comes back to it. To tell a comprehension
   * from an array, set or object, a bracket reads its first item one way and, when that fails,
   * again another way; the terms nested in that item were read again each time, so each level of
   * `[[[...] + 1] + 1]` or `[1 | [1 | ..., 1], 1]` doubled the work (2^depth). The same tokens
   * read as a term give the same term, whatever surrounds them.
   */
  private bracketed(read: () => Term): Term {
    const at = this.pos;
    const kept = this.bracketTerms.get(at);
    if (kept !== undefined) {
      this.pos = kept.end;
      return kept.term;
    }
    const term = read();
    this.bracketTerms.set(at, { term, end: this.pos });
    return term;
  }

  protected parseSuffixes(term: Term): Term {
    // The ref this loop made, whose path it may extend in place (copying it per segment was quadratic).
    let own: (Term & { type: 'ref' }) | undefined;
    const extend = (seg: Term): Term => {
      if (own === undefined && term.type === 'value') this.refuseScalarHead(term.value, term.loc);
      if (own === undefined) own = term.type === 'ref' ? { type: 'ref', head: term.head, path: [...term.path], loc: term.loc } : { type: 'ref', head: term, path: [], loc: term.loc };
      own.path.push(seg);
      return own;
    };
    for (;;) {
      const t = this.tok;
      if (t.ws) return term;
      if (this.isOp('.')) {
        this.next();
        const id = this.next();
        // OPA's scanner sees the whitespace after the dot as a token of its own
        if (id.ws) this.fail('unexpected whitespace token: expected identifier', id);
        if (id.type !== 'ident') this.unexpected('expected identifier', id);
        const seg: Term = { type: 'value', value: id.text, loc: this.loc(id) };
        this.dotted.add(seg);
        term = extend(seg);
      } else if (this.isOp('[')) {
        this.next();
        const k = this.parseInExpr();
        // OPA names the opening bracket here
        if (!this.isOp(']')) this.unexpected('expected [');
        this.next();
        term = extend(k);
      } else if (this.isOp('(')) {
        const name = refName(term);
        if (name === undefined) this.fail('invalid function name');
        term = { type: 'call', name, args: this.parseArgs(), loc: term.loc };
        own = undefined;
      } else return term;
    }
  }

  /** OPA refs start at a name, a composite or a call: `true.x`, `null[0]`, `"a".b`, `1[0]` are refused. */
  private refuseScalarHead(v: Value, at: Loc): void {
    if (Array.isArray(v) || v instanceof SetValue || v instanceof ObjectValue) return;
    const kind = v === null ? 'null' : typeof v === 'boolean' ? 'boolean' : typeof v === 'string' ? 'string' : 'number';
    this.failAt(`illegal ref (head cannot be ${kind})`, at);
  }

  /** `(term, ...)` from the opening parenthesis on: a call's arguments or a function head's parameters. */
  protected parseArgs(): Term[] {
    this.next();
    const args: Term[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.parseInExpr());
        if (this.isOp(')')) break;
        if (!this.isOp(',')) this.unexpected('expected "," or ")"');
        this.next();
        // OPA allows a trailing comma before the closing parenthesis
        if (this.isOp(')')) break;
      }
    }
    this.next();
    return args;
  }

  /**
   * `[ ... ]` as OPA reads it: a comprehension only when the first item is a single term (no operators)
   * followed by `|`; if its body does not parse and the parser stopped at a `,`, the brackets hold an array
   * whose first item is a set union (`[a | b, c]`); otherwise (`[a - b | c]`) an array of expressions.
   */
  protected parseArrayLike(): Term {
    const open = this.next();
    const loc = this.loc(open);
    if (this.isOp(']')) {
      this.next();
      return { type: 'array', items: [], loc };
    }
    const compr = !this.skipLeadingComma();
    const startPos = this.pos;
    const head = this.parseUnary();
    if (this.isOp('|') && compr) {
      const c = this.tryComprehension(']', (body) => ({ type: 'arraycompr', term: head, body, loc }));
      if (c) return c;
    }
    this.pos = startPos;
    const items = this.parseItems(']');
    return foldConst({ type: 'array', items, loc });
  }

  /** OPA skips one comma right after an opening bracket or brace (`[, 1]`); then no comprehension follows. */
  private skipLeadingComma(): boolean {
    if (!this.isOp(',')) return false;
    this.next();
    return true;
  }

  /** After a comprehension head, at `|`: the comprehension, or undefined to fall back (OPA: only at a `,`). */
  protected tryComprehension(close: string, make: (body: Literal[]) => Term, anyFailure = false): Term | undefined {
    this.next();
    if (anyFailure) {
      return this.attempt(() => {
        const body = this.parseLiterals(close);
        if (body.length === 0) this.fail('found empty body');
        this.closeComprehension(close);
        return make(body);
      });
    }
    try {
      const body = this.parseLiterals(close);
      if (body.length === 0) this.fail('found empty body');
      this.closeComprehension(close);
      return make(body);
    } catch (e) {
      // Inside an outer attempt the failure is AttemptFailed, which the outer attempt catches.
      if (this.isOp(',')) return undefined;
      throw e;
    }
  }

  /** A comprehension's body ends at its closing token; else it ran to the end of input, where OPA wanted a literal. */
  private closeComprehension(close: string): void {
    if (!this.isOp(close)) this.unexpected();
    this.next();
  }

  /** Comma-separated expressions up to the closing token (consumed); a trailing comma is allowed. */
  protected parseItems(close: string, first?: Term): Term[] {
    const items = [first ?? this.parseInExpr()];
    for (;;) {
      if (this.isOp(close)) break;
      if (!this.isOp(',')) this.unexpected(`expected "," or "${close}"`);
      this.next();
      if (this.isOp(close)) break;
      items.push(this.parseInExpr());
    }
    this.next();
    return items;
  }

  /** `{ ... }`: object, set, or a comprehension, with OPA's preference rules (see parseArrayLike). */
  protected parseBraceLike(): Term {
    const open = this.next();
    const loc = this.loc(open);
    if (this.isOp('}')) {
      this.next();
      return { type: 'value', value: new ObjectValue(), loc };
    }
    const compr = !this.skipLeadingComma();
    const startPos = this.pos;
    let head = this.parseUnary();
    if (this.isOp('|') && compr) {
      const c = this.tryComprehension('}', (body) => ({ type: 'setcompr', term: head, body, loc }));
      if (c) return c;
      this.pos = startPos;
      return foldConst({ type: 'set', items: this.parseItems('}'), loc });
    }
    if (this.isOp('}') || this.isOp(',')) return foldConst({ type: 'set', items: this.parseItems('}', head), loc });
    if (this.isOp(':')) return this.parseObjectRest(head, loc, compr);
    this.pos = startPos;
    head = this.parseInExpr();
    if (this.isOp(':')) return this.parseObjectRest(head, loc, compr);
    if (!this.isOp('}') && !this.isOp(',')) this.unexpected('non-terminated set');
    return foldConst({ type: 'set', items: this.parseItems('}', head), loc });
  }

  /** At the `:` after an object's first key: an object comprehension (single-term value then `|`) or an object. */
  protected parseObjectRest(key: Term, loc: Loc, compr: boolean): Term {
    this.expectOp(':');
    const s = this.pos;
    const v = this.parseUnary();
    if (this.isOp('|') && compr) {
      const c = this.tryComprehension('}', (body) => ({ type: 'objectcompr', key, value: v, body, loc }), true);
      if (c) return c;
    } else if (this.isOp('}') || this.isOp(',')) {
      return this.parseObjectEntries(key, v, loc);
    }
    this.pos = s;
    const v2 = this.parseInExpr();
    if (!this.isOp('}') && !this.isOp(',')) this.unexpected('non-terminated object');
    return this.parseObjectEntries(key, v2, loc);
  }

  protected parseObjectEntries(key: Term, value: Term, loc: Loc): Term {
    const entries: [Term, Term][] = [[key, value]];
    for (;;) {
      if (this.isOp('}')) break;
      if (!this.isOp(',')) this.unexpected('expected "," or "}"');
      this.next();
      if (this.isOp('}')) break;
      const k = this.parseInExpr();
      if (!this.isOp(':')) this.unexpected('expected ":"');
      this.next();
      const v = this.parseInExpr();
      // as OPA's parser (ast.Object.Insert): a repeated key term keeps the last value, `{x: 1, x: 2}` is `{x: 2}`
      const same = entries.find(([k0]) => sameTerm(k0, k));
      if (same) same[1] = v;
      else entries.push([k, v]);
    }
    this.next();
    return foldConst({ type: 'object', entries, loc });
  }
}

/** Two terms written the same (locations aside); comprehensions and `_` never are. */
function sameTerm(a: Term, b: Term): boolean {
  switch (a.type) {
    case 'value':
      return b.type === 'value' && valueEquals(a.value, b.value);
    case 'var':
      return b.type === 'var' && a.name === b.name && a.name !== '_';
    case 'ref':
      return b.type === 'ref' && sameTerm(a.head, b.head) && a.path.length === b.path.length && a.path.every((p, i) => sameTerm(p, b.path[i] as Term));
    case 'array':
    case 'set':
      return b.type === a.type && a.items.length === b.items.length && a.items.every((x, i) => sameTerm(x, b.items[i] as Term));
    case 'object':
      return (
        b.type === 'object' &&
        a.entries.length === b.entries.length &&
        a.entries.every(([k, v], i) => sameTerm(k, (b.entries[i] as [Term, Term])[0]) && sameTerm(v, (b.entries[i] as [Term, Term])[1]))
      );
    case 'call':
      return b.type === 'call' && a.name === b.name && a.args.length === b.args.length && a.args.every((x, i) => sameTerm(x, b.args[i] as Term));
    default:
      return false;
  }
}

/** Turns composite literals whose parts are all constants into a single value term. */
/** Number literal terms written as floats that hold integers, with their text (written-numbers.ts). */
const writtenTexts = new WeakMap<Term, string>();

function numberTerm(value: NumberValue, text: string, loc: Loc): Term {
  const t: Term = { type: 'value', value, loc };
  if (isWrittenFloat(text, value)) writtenTexts.set(t, text);
  return t;
}

function foldConst(t: Term): Term {
  if (t.type === 'array') {
    if (!t.items.every((i) => i.type === 'value')) return t;
    const value = t.items.map((i) => (i as { value: Value }).value);
    keepWrittenNumbers(value, t.items.map((i) => writtenTexts.get(i)));
    return { type: 'value', value, loc: t.loc };
  }
  if (t.type === 'set') {
    if (!t.items.every((i) => i.type === 'value')) return t;
    return { type: 'value', value: new SetValue(t.items.map((i) => (i as { value: Value }).value)), loc: t.loc };
  }
  if (t.type === 'object') {
    if (!t.entries.every(([k, v]) => k.type === 'value' && v.type === 'value')) return t;
    const o = new ObjectValue();
    for (const [k, v] of t.entries) o.set((k as { value: Value }).value, (v as { value: Value }).value);
    return { type: 'value', value: o, loc: t.loc };
  }
  return t;
}
