/**
 * Rego parser: modules (v1 by default; v0 on request, where `import rego.v1` switches a module to v1) and
 * queries. v0 mode is lenient: `if`, `contains`, `in` and `every` are accepted as keywords without the
 * `future.keywords` imports (those imports are accepted and have no further effect).
 */
import type { Expr, Import, Literal, Loc, Module, Rule, Term, With } from './ast.ts';
import { RegoError } from './errors.ts';
import { tokenize, type Token } from './lexer.ts';
import { SetValue, ObjectValue, valueEquals, type Value } from './value.ts';
import { parseNumber } from './number-value.ts';

export type RegoVersion = 'v0' | 'v1';

const OPA_KEYWORDS: ReadonlySet<string> = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false', 'every', 'contains', 'if', 'in']);

/** OPA's names of operator tokens (its scanner's token strings). */
const OPA_OPERATOR_NAMES: ReadonlyMap<string, string> = new Map([
  ['+', 'plus'], ['-', 'minus'], ['*', 'mul'], ['/', 'div'], ['%', 'rem'], ['&', 'and'], ['|', 'or'],
  ['=', 'eq'], ['==', 'equal'], [':=', 'assign'], ['!=', 'neq'], ['>', 'gt'], ['<', 'lt'], ['>=', 'gte'], ['<=', 'lte'],
]);

const INFIX_REL: Record<string, string> = { '==': 'equal', '!=': 'neq', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
const INFIX_OR: Record<string, string> = { '|': 'or' };
const INFIX_AND: Record<string, string> = { '&': 'and' };
const INFIX_ADD: Record<string, string> = { '+': 'plus', '-': 'minus' };
const INFIX_MUL: Record<string, string> = { '*': 'mul', '/': 'div', '%': 'rem' };

/**
 * A failed attempt at one reading of ambiguous syntax, thrown only while the parser is trying an
 * alternative it will fall back from. It is not an Error: it never escapes the parser, and capturing a
 * stack for every `if {` body that turns out not to be a set literal dominated parsing.
 */
class AttemptFailed {
  static readonly instance = new AttemptFailed();
}

class Parser {
  private pos = 0;
  /** Depth of alternatives being tried; while above 0, a parse failure is the cheap AttemptFailed. */
  private attempting = 0;
  private readonly dotted = new WeakSet<Term>();
  private readonly toks: Token[];
  v1: boolean;

  constructor(
    src: string,
    readonly file: string,
    version: RegoVersion,
  ) {
    this.toks = tokenize(src, file);
    this.v1 = version === 'v1';
  }

  // ------------------------------------------------------------ token helpers
  private get tok(): Token {
    return this.toks[this.pos] as Token;
  }
  private peek(k = 1): Token {
    return (this.toks[this.pos + k] ?? this.toks[this.toks.length - 1]) as Token;
  }
  private next(): Token {
    const t = this.tok;
    if (t.type !== 'eof') this.pos++;
    return t;
  }
  private loc(t: Token = this.tok): Loc {
    return { file: this.file, line: t.line, col: t.col };
  }
  fail(msg: string, t: Token = this.tok): never {
    if (this.attempting > 0) throw AttemptFailed.instance;
    throw new RegoError('rego_parse_error', msg, this.loc(t));
  }
  private isOp(text: string, t: Token = this.tok): boolean {
    return t.type === 'op' && t.text === text;
  }
  private isIdent(text: string, t: Token = this.tok): boolean {
    return t.type === 'ident' && t.text === text;
  }
  private expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail(`expected ${text} but found ${this.describe(this.tok)}`);
    return this.next();
  }
  /** A token as OPA's parser names it in "unexpected X token". */
  private tokenName(t: Token): string {
    if (t.type === 'eof') return 'eof';
    if (t.type === 'string') return 'string';
    if (t.type === 'number') return 'number';
    if (t.type === 'ident') return OPA_KEYWORDS.has(t.text) ? t.text : 'identifier';
    return OPA_OPERATOR_NAMES.get(t.text) ?? t.text;
  }
  private describe(t: Token): string {
    if (t.type === 'eof') return 'end of input';
    if (t.type === 'string') return 'string';
    return JSON.stringify(t.text);
  }

  // ------------------------------------------------------------ module
  parseModule(): Module {
    if (!this.isIdent('package')) this.fail('package expected');
    const pkgTok = this.next();
    const pkgTerm = this.parsePrimary();
    const pkg = ['data', ...this.refToStrings(pkgTerm, 'package')];
    const imports: Import[] = [];
    let sawRegoV1 = false;
    let sawFuture = false;
    while (this.isIdent('import')) {
      const t = this.next();
      const path = this.parsePrimary();
      let alias: string | undefined;
      if (this.isIdent('as') && !this.tok.nl) {
        this.next();
        const a = this.next();
        if (a.type !== 'ident') this.fail('import alias must be a variable', a);
        alias = a.text;
      }
      const segs = this.refToStrings(path, 'import');
      const isRegoV1 = segs[0] === 'rego' && segs[1] === 'v1' && segs.length === 2;
      if ((isRegoV1 && (sawRegoV1 || sawFuture)) || (segs[0] === 'future' && sawRegoV1)) {
        this.fail(`this import shadows previous import of ${isRegoV1 ? 'rego.v1' : segs.join('.')}`, t);
      }
      if (isRegoV1) {
        this.v1 = true;
        sawRegoV1 = true;
      } else if (segs[0] === 'rego' && segs[1] === 'v2' && segs.length === 2) {
        // OPA v1.22 reads `import rego.v2` as Rego v1 with keywords in refs and template strings allowed
        this.v1 = true;
      } else if (segs[0] === 'future') {
        sawFuture = true;
        if (segs[1] !== 'keywords') this.fail(`invalid import ${segs.join('.')}`, t);
      } else if (segs[0] === 'rego') {
        this.fail(`invalid import \`${segs.join('.')}\`, must be one of: \`rego.v1\`, \`rego.v2\``, t);
      } else if (segs[0] !== 'data' && segs[0] !== 'input') {
        this.fail(`unexpected import path, must begin with one of: {data, future, input, rego}, got: ${segs[0]} (hint: if this is unexpected, try updating OPA)`, t);
      }
      imports.push({ path, alias, loc: this.loc(t) });
    }
    const rules: Rule[] = [];
    while (this.tok.type !== 'eof') {
      if (this.isIdent('import')) this.fail('imports must appear before rules');
      if (this.isIdent('package')) this.fail('unexpected package');
      rules.push(...this.parseRule());
    }
    return { file: this.file, pkg, pkgLoc: this.loc(pkgTok), imports, rules, regoV1: this.v1 };
  }

  private refToStrings(t: Term, what: string): string[] {
    if (t.type === 'var') return [t.name];
    if (t.type === 'ref' && t.head.type === 'var') {
      const out = [t.head.name];
      for (const p of t.path) {
        if (p.type !== 'value' || typeof p.value !== 'string') this.fail(`invalid ${what} path`);
        out.push(p.value);
      }
      return out;
    }
    return this.fail(`invalid ${what} path`);
  }

  // ------------------------------------------------------------ rules
  private parseRule(): Rule[] {
    const start = this.tok;
    let isDefault = false;
    if (this.isIdent('default') && this.peek().type === 'ident') {
      isDefault = true;
      this.next();
    }
    if (this.tok.type !== 'ident') this.fail(`unexpected ${this.tokenName(this.tok)} token`);
    const nameTok = this.next();
    const ref: Term[] = [{ type: 'var', name: nameTok.text, loc: this.loc(nameTok) }];
    // head ref suffixes
    while (true) {
      const t = this.tok;
      if (this.isOp('.') && !t.ws) {
        this.next();
        const id = this.next();
        if (id.type !== 'ident') this.fail('expected name after .', id);
        const seg: Term = { type: 'value', value: id.text, loc: this.loc(id) };
        this.dotted.add(seg);
        ref.push(seg);
      } else if (this.isOp('[') && !t.ws) {
        this.next();
        ref.push(this.parseInExpr());
        this.expectOp(']');
      } else break;
    }
    let args: Term[] | undefined;
    if (this.isOp('(') && !this.tok.nl) args = this.parseArgs();
    let key: Term | undefined;
    let value: Term | undefined;
    let assign = false;
    let kind: Rule['kind'] = args ? 'func' : 'value';
    // a head's value or element may be `k, v in coll`, as in a body
    if (this.isIdent('contains') && !args) {
      this.next();
      key = this.parseMember3(this.parseInExpr());
      kind = 'multi';
    } else if (this.isOp(':=') || this.isOp('=')) {
      assign = this.next().text === ':=';
      value = this.parseMember3(this.parseInExpr());
    }
    const loc = this.loc(start);
    if (isDefault) {
      if (!value) this.fail('default rules must have a value assigned', start);
      return [{ kind, ref, key, value, args: args ?? [], body: [], isDefault, elses: [], assign, loc }];
    }
    const bodies: Literal[][] = [];
    const hasIf = this.isIdent('if');
    // OPA's head forms for a two-term ref without `contains` and without arguments:
    //  `p[x] if ...` is a single-value rule (key x) when x is not ground (or is a ref);
    //  `p[x] { ... }` / `p.q { ... }` (no `if`, no value) is a multi-value rule p containing x / "q".
    // Any other head without a value has the value true.
    let converted = false;
    if (kind === 'value' && ref.length === 2 && !hasIf && !value && !args) {
      if (this.v1 && this.isOp('{') && !this.tok.nl) this.fail('`if` keyword is required before rule body');
      if (this.v1 && !this.wasDotted(ref[1] as Term)) this.fail('`contains` keyword is required for partial set rules', start);
      kind = 'multi';
      key = ref.pop();
      converted = true;
    }
    if (hasIf) {
      this.next();
      bodies.push(this.parseIfBody());
    } else if (this.isOp('{') && !this.tok.nl) {
      if (this.v1) this.fail('`if` keyword is required before rule body');
      bodies.push(this.parseBraceBody());
    }
    if (!this.v1 || hasIf) {
      while (this.isOp('{') && !hasIf) bodies.push(this.parseBraceBody());
    }
    if (bodies.length === 0) {
      // v0 (like OPA's rule-from-statement reading): a bare `p[x]` / `p.q` is a partial set with one element
      if (converted && this.v1) this.fail('rule must have a body or assignment', start);
      if (this.v1 && kind === 'value' && !value && !args) {
        this.fail(ref.length > 1 && !this.wasDotted(ref[ref.length - 1] as Term) ? '`contains` keyword is required for partial set rules' : 'rule must have a body or assignment', start);
      }
      bodies.push([]);
    }
    const elses: Rule[] = [];
    while (this.isIdent('else')) {
      const et = this.next();
      let ev: Term | undefined;
      const elseAssign = this.isOp(':=');
      if (this.isOp(':=') || this.isOp('=')) {
        this.next();
        ev = this.parseMember3(this.parseInExpr());
      }
      let ebody: Literal[] = [];
      if (this.isIdent('if')) {
        this.next();
        ebody = this.parseIfBody();
      } else if (this.isOp('{') && !this.tok.nl) {
        if (this.v1) this.fail('`if` keyword is required before rule body');
        ebody = this.parseBraceBody();
      }
      elses.push({
        kind,
        ref,
        key: undefined,
        value: ev ?? { type: 'value', value: true, loc: this.loc(et) },
        args: args ?? [],
        body: ebody,
        isDefault: false,
        elses: [],
        assign: elseAssign,
        loc: this.loc(et),
      });
    }
    const valueTerm: Term = value ?? { type: 'value', value: true, loc };
    return bodies.map((body, i) => ({
      kind,
      ref,
      key,
      value: valueTerm,
      args: args ?? [],
      body,
      isDefault: false,
      elses: i === 0 ? elses : [],
      assign,
      loc,
    }));
  }

  private wasDotted(t: Term): boolean {
    return this.dotted.has(t);
  }

  /**
   * Body after `if`, as OPA reads it: first a single literal; if that fails or is a set literal
   * (`p if { true }`), a braced body. So `p if { 1 | 1 }` has one literal, a set comprehension.
   */
  private parseIfBody(): Literal[] {
    if (!this.isOp('{')) return [this.parseLiteral()];
    const save = this.pos;
    const lit = this.attempt(() => this.parseLiteral());
    if (lit !== undefined) {
      const t = lit.expr.kind === 'term' ? lit.expr.term : undefined;
      const isSet = t !== undefined && (t.type === 'set' || (t.type === 'value' && t.value instanceof SetValue));
      if (!isSet) return [lit];
    }
    this.pos = save;
    return this.parseBraceBody();
  }

  /** One reading of ambiguous syntax, or undefined when it does not parse (whatever was thrown). */
  private attempt<T>(read: () => T): T | undefined {
    this.attempting++;
    try {
      return read();
    } catch {
      return undefined;
    } finally {
      this.attempting--;
    }
  }

  private parseBraceBody(): Literal[] {
    this.expectOp('{');
    const body = this.parseLiterals('}');
    this.expectOp('}');
    if (body.length === 0) this.fail('found empty body');
    return body;
  }

  /** Literals separated by `;` or newlines, until the closing token (not consumed). */
  private parseLiterals(close: string): Literal[] {
    const out: Literal[] = [];
    while (!this.atEnd(close)) {
      out.push(this.parseLiteral());
      if (this.isOp(';')) {
        this.next();
        continue;
      }
      if (this.atEnd(close)) break;
      if (!this.tok.nl) this.fail(`unexpected ${this.tokenName(this.tok)} token`);
    }
    return out;
  }

  private atEnd(close: string): boolean {
    return this.isOp(close) || this.tok.type === 'eof';
  }

  parseQuery(): Literal[] {
    const body = this.parseLiterals('\u0000');
    if (this.tok.type !== 'eof') this.fail(`unexpected ${this.tokenName(this.tok)} token`);
    if (body.length === 0) this.fail('empty query');
    return body;
  }

  parseSingleTerm(): Term {
    const t = this.parseInExpr();
    if (this.tok.type !== 'eof') this.fail(`unexpected ${this.tokenName(this.tok)} token`);
    return t;
  }

  // ------------------------------------------------------------ literals
  private parseLiteral(): Literal {
    const start = this.tok;
    const loc = this.loc(start);
    if (this.isIdent('some') && this.peek().type !== 'eof' && !this.peek().nl && !(this.peek().type === 'op' && !['[', '{', '-'].includes(this.peek().text))) {
      this.next();
      const terms: Term[] = [this.parseRelation()];
      while (this.isOp(',')) {
        this.next();
        terms.push(this.parseRelation());
      }
      if (this.isIdent('in')) {
        this.next();
        if (terms.length > 2) this.fail('unexpected , in some ... in');
        let coll = this.parseRelation();
        // as OPA's parser: `some x in a in b` is `some (x in a) in b` (a line starting with `-`
        // continues the one before: `some x in {"a"}` then `-2.5 in set()` is one literal)
        while (terms.length === 1 && this.isIdent('in')) {
          const t = this.tok;
          this.next();
          terms[0] = { type: 'call', name: 'internal.member_2', args: [terms[0] as Term, coll], loc: this.loc(t) };
          coll = this.parseRelation();
        }
        const expr: Expr =
          terms.length === 2
            ? { kind: 'somein', key: terms[0], value: terms[1] as Term, coll }
            : { kind: 'somein', key: undefined, value: terms[0] as Term, coll };
        return { negated: false, expr, withs: this.parseWiths(), loc };
      }
      for (const t of terms) if (t.type !== 'var') this.fail('expected var in some declaration', start);
      return { negated: false, expr: { kind: 'some', vars: terms }, withs: [], loc };
    }
    if (this.isIdent('every') && this.peek().type === 'ident') {
      this.next();
      const a = this.parsePrimary();
      let key: Term | undefined;
      let value = a;
      if (this.isOp(',')) {
        this.next();
        key = a;
        value = this.parsePrimary();
      }
      if (!this.isIdent('in')) this.fail('expected in after every');
      this.next();
      const domain = this.parseRelation();
      const body = this.parseBraceBody();
      for (const v of key ? [key, value] : [value]) if (v.type !== 'var') this.fail('expected var in every', start);
      return { negated: false, expr: { kind: 'every', key, value, domain, body }, withs: this.parseWiths(), loc };
    }
    let negated = false;
    if (this.isIdent('not')) {
      this.next();
      negated = true;
    }
    const expr = this.parseExpr();
    return { negated, expr, withs: this.parseWiths(), loc };
  }

  private parseWiths(): With[] {
    const out: With[] = [];
    while (this.isIdent('with')) {
      const t = this.next();
      const target = this.parsePrimary();
      if (!this.isIdent('as')) this.fail('expected as in with');
      this.next();
      const value = this.parseInExpr();
      out.push({ target, value, loc: this.loc(t) });
    }
    return out;
  }

  private parseExpr(): Expr {
    const left = this.parseMember3(this.parseInExpr());
    if (this.isOp(':=')) {
      this.next();
      return { kind: 'assign', left, right: this.parseMember3(this.parseInExpr()) };
    }
    if (this.isOp('=')) {
      this.next();
      return { kind: 'unify', left, right: this.parseMember3(this.parseInExpr()) };
    }
    return { kind: 'term', term: left };
  }

  /** `k, v in coll` at expression level (internal.member_3). */
  private parseMember3(first: Term): Term {
    if (!this.isOp(',') || this.tok.nl) return first;
    const save = this.pos;
    this.next();
    const value = this.parseRelation();
    if (!this.isIdent('in') || this.tok.nl) {
      this.pos = save;
      return first;
    }
    const t = this.next();
    const coll = this.parseRelation();
    return { type: 'call', name: 'internal.member_3', args: [first, value, coll], loc: this.loc(t) };
  }

  // ------------------------------------------------------------ terms with operators
  parseInExpr(noOr = false): Term {
    let lhs = this.parseRelation(noOr);
    while (this.isIdent('in')) {
      const t = this.next();
      const rhs = this.parseRelation(noOr);
      lhs = { type: 'call', name: 'internal.member_2', args: [lhs, rhs], loc: this.loc(t) };
    }
    // `k, v in coll` inside expressions is only supported via `some`.
    return lhs;
  }

  private parseRelation(noOr = false): Term {
    return this.parseBinary(INFIX_REL, () => this.parseOr(noOr));
  }

  private parseOr(noOr: boolean): Term {
    return noOr ? this.parseAnd() : this.parseBinary(INFIX_OR, () => this.parseAnd());
  }

  private parseAnd(): Term {
    return this.parseBinary(INFIX_AND, () => this.parseArith());
  }

  private parseArith(): Term {
    return this.parseBinary(INFIX_ADD, () => this.parseFactor());
  }

  private parseFactor(): Term {
    return this.parseBinary(INFIX_MUL, () => this.parseUnary());
  }

  /** `operand (op operand)*` for the operators of one level, left-associative: each op becomes a call of its builtin. */
  private parseBinary(ops: Record<string, string>, operand: () => Term): Term {
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
  private parseUnary(): Term {
    if (this.isOp('-')) {
      const t = this.next();
      if (this.tok.type !== 'number') this.fail(`unexpected ${this.tokenName(this.tok)} token: expected number`);
      const n = this.next();
      const v = parseNumber(`-${n.text}`);
      if (v === undefined) this.fail(`invalid number ${n.text}`, n);
      return this.parseSuffixes({ type: 'value', value: v, loc: this.loc(t) });
    }
    return this.parsePrimary();
  }

  // ------------------------------------------------------------ primary terms
  parsePrimary(): Term {
    const t = this.tok;
    const loc = this.loc(t);
    let term: Term;
    switch (t.type) {
      case 'number': {
        this.next();
        const v = parseNumber(t.text);
        if (v === undefined) this.fail(`invalid number ${t.text}`, t);
        term = { type: 'value', value: v, loc };
        break;
      }
      case 'string':
        this.next();
        term = { type: 'value', value: t.text, loc };
        break;
      case 'ident': {
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
          term = this.parseInExpr();
          this.expectOp(')');
          break;
        }
        if (t.text === '[') {
          term = this.parseArrayLike();
          break;
        }
        if (t.text === '{') {
          term = this.parseBraceLike();
          break;
        }
        return this.fail(`unexpected ${this.tokenName(t)} token`);
      default:
        return this.fail(`unexpected ${this.tokenName(t)} token`);
    }
    return this.parseSuffixes(term);
  }

  private parseSuffixes(term: Term): Term {
    // The ref this loop made, whose path it may extend in place (copying it per segment was quadratic).
    let own: (Term & { type: 'ref' }) | undefined;
    const extend = (seg: Term): Term => {
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
        if (id.type !== 'ident') this.fail('expected name after .', id);
        if (id.ws) this.fail('invalid whitespace between . and identifier', id);
        const seg: Term = { type: 'value', value: id.text, loc: this.loc(id) };
        this.dotted.add(seg);
        term = extend(seg);
      } else if (this.isOp('[')) {
        this.next();
        const k = this.parseInExpr();
        this.expectOp(']');
        term = extend(k);
      } else if (this.isOp('(')) {
        const name = callName(term);
        if (name === undefined) this.fail('invalid function name');
        term = { type: 'call', name, args: this.parseArgs(), loc: term.loc };
        own = undefined;
      } else return term;
    }
  }

  /** `(term, ...)` from the opening parenthesis on: a call's arguments or a function head's parameters. */
  private parseArgs(): Term[] {
    this.next();
    const args: Term[] = [];
    if (!this.isOp(')')) {
      for (;;) {
        args.push(this.parseInExpr());
        if (!this.isOp(',')) break;
        this.next();
        // OPA allows a trailing comma before the closing parenthesis
        if (this.isOp(')')) break;
      }
    }
    this.expectOp(')');
    return args;
  }

  /**
   * `[ ... ]` as OPA reads it: a comprehension only when the first item is a single term (no operators)
   * followed by `|`; if its body does not parse and the parser stopped at a `,`, the brackets hold an array
   * whose first item is a set union (`[a | b, c]`); otherwise (`[a - b | c]`) an array of expressions.
   */
  private parseArrayLike(): Term {
    const open = this.next();
    const loc = this.loc(open);
    if (this.isOp(']')) {
      this.next();
      return { type: 'array', items: [], loc };
    }
    const startPos = this.pos;
    const head = this.parseUnary();
    if (this.isOp('|')) {
      const c = this.tryComprehension(']', (body) => ({ type: 'arraycompr', term: head, body, loc }));
      if (c) return c;
    }
    this.pos = startPos;
    const items = this.parseItems(']');
    return foldConst({ type: 'array', items, loc });
  }

  /** After a comprehension head, at `|`: the comprehension, or undefined to fall back (OPA: only at a `,`). */
  private tryComprehension(close: string, make: (body: Literal[]) => Term, anyFailure = false): Term | undefined {
    this.next();
    if (anyFailure) {
      return this.attempt(() => {
        const body = this.parseLiterals(close);
        if (body.length === 0) this.fail('found empty body');
        this.expectOp(close);
        return make(body);
      });
    }
    try {
      const body = this.parseLiterals(close);
      if (body.length === 0) this.fail('found empty body');
      this.expectOp(close);
      return make(body);
    } catch (e) {
      // Inside an outer attempt the failure is AttemptFailed, which the outer attempt catches.
      if (this.isOp(',')) return undefined;
      throw e;
    }
  }

  /** Comma-separated expressions up to the closing token (consumed); a trailing comma is allowed. */
  private parseItems(close: string, first?: Term): Term[] {
    const items = [first ?? this.parseInExpr()];
    while (this.isOp(',')) {
      this.next();
      if (this.isOp(close)) break;
      items.push(this.parseInExpr());
    }
    this.expectOp(close);
    return items;
  }

  /** `{ ... }`: object, set, or a comprehension, with OPA's preference rules (see parseArrayLike). */
  private parseBraceLike(): Term {
    const open = this.next();
    const loc = this.loc(open);
    if (this.isOp('}')) {
      this.next();
      return { type: 'value', value: new ObjectValue(), loc };
    }
    const startPos = this.pos;
    let head = this.parseUnary();
    if (this.isOp('|')) {
      const c = this.tryComprehension('}', (body) => ({ type: 'setcompr', term: head, body, loc }));
      if (c) return c;
      this.pos = startPos;
      return foldConst({ type: 'set', items: this.parseItems('}'), loc });
    }
    if (this.isOp('}') || this.isOp(',')) return foldConst({ type: 'set', items: this.parseItems('}', head), loc });
    if (this.isOp(':')) return this.parseObjectRest(head, loc);
    this.pos = startPos;
    head = this.parseInExpr();
    if (this.isOp(':')) return this.parseObjectRest(head, loc);
    if (!this.isOp('}') && !this.isOp(',')) this.fail('non-terminated set');
    return foldConst({ type: 'set', items: this.parseItems('}', head), loc });
  }

  /** At the `:` after an object's first key: an object comprehension (single-term value then `|`) or an object. */
  private parseObjectRest(key: Term, loc: Loc): Term {
    this.expectOp(':');
    const s = this.pos;
    const v = this.parseUnary();
    if (this.isOp('|')) {
      const c = this.tryComprehension('}', (body) => ({ type: 'objectcompr', key, value: v, body, loc }), true);
      if (c) return c;
    } else if (this.isOp('}') || this.isOp(',')) {
      return this.parseObjectEntries(key, v, loc);
    }
    this.pos = s;
    const v2 = this.parseInExpr();
    if (!this.isOp('}') && !this.isOp(',')) this.fail('non-terminated object');
    return this.parseObjectEntries(key, v2, loc);
  }

  private parseObjectEntries(key: Term, value: Term, loc: Loc): Term {
    const entries: [Term, Term][] = [[key, value]];
    while (this.isOp(',')) {
      this.next();
      if (this.isOp('}')) break;
      const k = this.parseInExpr();
      this.expectOp(':');
      const v = this.parseInExpr();
      // as OPA's parser (ast.Object.Insert): a repeated key term keeps the last value, `{x: 1, x: 2}` is `{x: 2}`
      const same = entries.find(([k0]) => sameTerm(k0, k));
      if (same) same[1] = v;
      else entries.push([k, v]);
    }
    this.expectOp('}');
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

function callName(term: Term): string | undefined {
  if (term.type === 'var') return term.name;
  if (term.type === 'ref' && term.head.type === 'var') {
    const parts = [term.head.name];
    for (const p of term.path) {
      if (p.type !== 'value' || typeof p.value !== 'string') return undefined;
      parts.push(p.value);
    }
    return parts.join('.');
  }
  return undefined;
}

/** Turns composite literals whose parts are all constants into a single value term. */
function foldConst(t: Term): Term {
  if (t.type === 'array') {
    if (!t.items.every((i) => i.type === 'value')) return t;
    return { type: 'value', value: t.items.map((i) => (i as { value: Value }).value), loc: t.loc };
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

export function parseModule(text: string, file: string, version: RegoVersion = 'v1'): Module {
  return new Parser(text, file, version).parseModule();
}

export function parseQuery(text: string, file = 'query', version: RegoVersion = 'v1'): Literal[] {
  return new Parser(text, file, version).parseQuery();
}

export function parseTerm(text: string, file = 'term'): Term {
  return new Parser(text, file, 'v1').parseSingleTerm();
}
