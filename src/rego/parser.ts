/**
 * Rego parser: modules (v1 by default; v0 on request, where `import rego.v1` switches a module to v1) and
 * queries. v0 mode is lenient: `if`, `contains`, `in` and `every` are accepted as keywords without the
 * `future.keywords` imports (those imports are accepted and have no further effect). This file reads
 * modules and rules; bodies, terms and the token cursor are the classes it extends.
 * What OPA makes of a statement that is no rule is in rule-statements.ts. A little over 400 lines:
 * the entry points, which turn a source nested past the stack into a parse error at its own place,
 * run the parser this file defines.
 */
import type { Import, Literal, Loc, Module, Rule, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import type { Token } from './lexer.ts';
import { isKeywordRef } from './keyword-refs.ts';
import { logicKeywordsOf } from './logic-parser.ts';
import { TemplateParser, templateParams } from './string-interpolation.ts';
import { isStackOverflow } from './token-cursor.ts';
import { termText } from './term-text.ts';
import { isBuiltinName, isGroundTerm, nonRuleReason, ROOT_NAMES, termKindName } from './rule-statements.ts';

export type RegoVersion = 'v0' | 'v1';

/** OPA's Rego v1 keywords, which no import path may end with (unaliased) and no rule may be named. */
const OPA_KEYWORD_NAMES: ReadonlySet<string> = new Set(['not', 'package', 'import', 'as', 'default', 'else', 'with', 'null', 'true', 'false', 'some', 'if', 'contains', 'in', 'every']);

const RULE_NAME_FOLLOWERS = [':=', '=', 'if', 'contains', '('];
/** `not` (and `and` / `or`) before `(` is a negated group or a call, not a head. */
const OPERATOR_FOLLOWERS = [':=', '=', 'if', 'contains'];
/** The keywords OPA refuses as a rule's name, each with the tokens after it that make the statement a rule. */
const KEYWORD_RULE_NAME_FOLLOWERS: Readonly<Record<string, readonly string[]>> = {
  every: RULE_NAME_FOLLOWERS,
  if: RULE_NAME_FOLLOWERS,
  in: RULE_NAME_FOLLOWERS,
  some: RULE_NAME_FOLLOWERS,
  as: RULE_NAME_FOLLOWERS,
  package: [':=', '=', '('],
  import: [':=', '=', '('],
  not: OPERATOR_FOLLOWERS,
  contains: ['if', 'contains'],
};

/** The keywords `import future.keywords.x` may name, sorted as OPA lists them. */
const FUTURE_KEYWORDS = ['and', 'contains', 'every', 'if', 'in', 'not', 'or'];

class Parser extends TemplateParser {
  constructor(src: string, file: string, version: RegoVersion) {
    super(src, file, version === 'v1');
  }

  // ------------------------------------------------------------ module
  parseModule(): Module {
    if (!this.isIdent('package')) this.fail('package expected');
    const pkgTok = this.next();
    const pkgTerm = this.parsePrimary();
    const pkg = ['data', ...this.refToStrings(pkgTerm, 'package')];
    const imports: Import[] = [];
    const rules: Rule[] = [];
    while (this.tok.type !== 'eof') {
      if (!isKeywordRef(this.tok, this.peek())) {
        this.refuseKeywordRuleName(this.tok, true);
        // as OPA: an import may follow rules
        if (this.isIdent('import')) {
          imports.push(this.parseImport());
          continue;
        }
        if (this.isIdent('package')) this.fail('unexpected package');
        // an `else` no rule body before it can take (after a `default` rule, say)
        if (this.isIdent('else')) this.fail('unexpected else keyword');
      }
      rules.push(...this.parseRule());
    }
    this.throwDeferred();
    return { file: this.file, pkg, pkgLoc: this.loc(pkgTok), imports, rules, regoV1: this.v1 };
  }


  /** One import statement, from `import` on; what it imports switches keywords and Rego v1 on from here. */
  private parseImport(): Import {
    const t = this.next();
    if (this.tokenName(this.tok) !== 'identifier' && !isKeywordRef(this.tok, this.peek())) this.unexpected();
    const path = this.parsePrimary();
    let alias: string | undefined;
    let aliasTok: Token | undefined;
    if (this.isIdent('as') && !this.tok.nl) {
      this.next();
      if (this.tokenName(this.tok) !== 'identifier') this.unexpected('expected var');
      const a = this.next();
      aliasTok = a;
      // OPA reads the alias as a term: anything longer than a name is refused at the token after it
      if (this.isOp('.', this.tok) && !this.tok.ws) {
        this.parseSuffixes({ type: 'var', name: a.text, loc: this.loc(a) });
        this.unexpected('expected var');
      }
      if (a.text === 'input' || a.text === 'data') this.fail(`unexpected import alias, must not be a reserved name, got: ${a.text}`, a);
      alias = a.text;
    }
    const segs = this.refToStrings(path, 'import');
    const last = segs[segs.length - 1] as string;
    if (alias === undefined && segs[0] !== 'future' && this.v1 && OPA_KEYWORD_NAMES.has(last)) {
      const at = path.type === 'ref' ? (path.path[path.path.length - 1] as Term).loc : path.loc;
      this.failAt(`unexpected import path, must not end with a keyword, got: ${last} (hint: import a different path or use an alias)`, at);
    }
    const kw = logicKeywordsOf(segs);
    if (kw.logic) this.logicOps = true;
    if (kw.not) this.notBodies = true;
    const isRegoV1 = segs[0] === 'rego' && segs[1] === 'v1' && segs.length === 2;
    if (isRegoV1) {
      this.v1 = true;
    } else if (segs[0] === 'rego' && segs[1] === 'v2' && segs.length === 2) {
      // OPA v1.22 reads `import rego.v2` as Rego v1 with keywords in refs and template strings allowed
      this.v1 = true;
    } else if (segs[0] === 'future') {
      this.checkFutureImport(segs, path, aliasTok);
    } else if (segs[0] === 'rego') {
      this.fail(`invalid import \`${segs.join('.')}\`, must be one of: \`rego.v1\`, \`rego.v2\``, t);
    } else if (segs[0] !== 'data' && segs[0] !== 'input') {
      this.fail(`unexpected import path, must begin with one of: {data, future, input, rego}, got: ${segs[0]} (hint: if this is unexpected, try updating OPA)`, t);
    }
    return { path, alias, loc: this.loc(t) };
  }

  /**
   * A keyword as a rule's name (`every := 1`, `default if := 1`), refused in OPA's words when the
   * token after it makes the statement a rule (after `default`, whatever follows).
   */
  private refuseKeywordRuleName(t: Token, lookAhead: boolean): void {
    if (t.type !== 'ident') return;
    const followers = t.text === 'and' || t.text === 'or' ? (this.logicOps ? OPERATOR_FOLLOWERS : undefined) : KEYWORD_RULE_NAME_FOLLOWERS[t.text];
    if (followers === undefined) return;
    if (lookAhead) {
      const n = t === this.tok ? this.peek() : this.peek(2);
      if (!followers.some((f) => (f === 'if' || f === 'contains' ? this.isIdent(f, n) : this.isOp(f, n)))) return;
    }
    this.fail(`${t.text} keyword cannot be used for rule name`, t);
  }

  /** Rego v1 (as OPA checks a parsed module): no rule is named by a keyword alone (`contains := 1`). */
  private refuseKeywordName(ref: Term[], start: Token): void {
    const only = ref.length === 1 ? ref[0] : undefined;
    if (this.v1 && only?.type === 'var' && OPA_KEYWORD_NAMES.has(only.name)) this.failLater(`${only.name} keyword cannot be used for rule name`, start, 1);
  }

  private refToStrings(t: Term, what: string): string[] {
    if (t.type === 'var') return [t.name];
    if (t.type === 'ref' && t.head.type === 'var') {
      const out = [t.head.name];
      for (const p of t.path) {
        if (p.type !== 'value' || typeof p.value !== 'string') this.failAt(`unexpected ${termKindName(p) ?? p.type} token: expecting string`, p.loc);
        out.push(p.value);
      }
      return out;
    }
    return this.fail(`invalid ${what} path`);
  }

  /** `future.keywords` alone or with one keyword OPA knows, never aliased (a longer path imports them all, as in OPA). */
  private checkFutureImport(segs: string[], path: Term, aliasTok: Token | undefined): void {
    if (segs[1] !== 'keywords') this.failAt('invalid import, must be `future.keywords`', path.loc);
    if (aliasTok !== undefined) this.fail('`future` imports cannot be aliased', aliasTok);
    if (segs.length === 3 && !FUTURE_KEYWORDS.includes(segs[2] as string)) {
      this.failAt(`unexpected keyword, must be one of [${FUTURE_KEYWORDS.join(' ')}]`, path.loc);
    }
  }

  // ------------------------------------------------------------ rules
  private parseRule(): Rule[] {
    const start = this.tok;
    let isDefault = false;
    if (this.isIdent('default') && !isKeywordRef(this.tok, this.peek())) {
      if (!isKeywordRef(this.peek(), this.peek(2))) {
        this.refuseKeywordRuleName(this.peek(), false);
        // OPA reads a `default` no rule name follows as a term, which it cannot be
        if (this.tokenName(this.peek()) !== 'identifier') this.unexpected();
      }
      isDefault = true;
      this.next();
    }
    if (this.startsNonRuleStatement() && this.refuseNonRuleStatement()) return [];
    if (this.tok.type !== 'ident') this.unexpected();
    const namePos = this.pos;
    const nameTok = this.next();
    const ref: Term[] = [{ type: 'var', name: nameTok.text, loc: this.loc(nameTok) }];
    // head ref suffixes
    while (true) {
      const t = this.tok;
      if (this.isOp('.') && !t.ws) {
        this.next();
        const id = this.next();
        // OPA's scanner sees the whitespace after the dot as a token of its own
        if (id.ws) this.fail('unexpected whitespace token: expected identifier', id);
        if (id.type !== 'ident') this.unexpected('expected identifier', id);
        const seg: Term = { type: 'value', value: id.text, loc: this.loc(id) };
        this.dotted.add(seg);
        ref.push(seg);
      } else if (this.isOp('[') && !t.ws) {
        this.next();
        ref.push(this.parseInExpr());
        if (!this.isOp(']')) this.unexpected('expected [');
        this.next();
      } else break;
    }
    let args: Term[] | undefined;
    let paramChecks: Literal[] = [];
    // as OPA: in v1 a function's parameters follow its name directly (`f (x)` is a name, then a term)
    if (this.isOp('(') && !(this.v1 ? this.tok.ws : this.tok.nl)) ({ args, checks: paramChecks } = templateParams(this.parseArgs()));
    // as OPA: a head `f()` names a rule, not a function (a function has at least one parameter)
    const emptyArgs = args?.length === 0;
    if (emptyArgs) args = undefined;
    // a ref on a call (`f(1)[0]`) is an expression, which cannot be a rule
    if ((args || emptyArgs) && (this.isOp('[') || this.isOp('.')) && !this.tok.ws && !isDefault) {
      this.pos = namePos;
      if (this.refuseNonRuleStatement()) return [];
    }
    let key: Term | undefined;
    let value: Term | undefined;
    let assign = false;
    let kind: Rule['kind'] = args ? 'func' : 'value';
    // a head's value or element may be `k, v in coll`, as in a body
    if (this.isIdent('contains') && (args || emptyArgs)) {
      this.unexpected(`the contains keyword can only be used with multi-value rule definitions (e.g., ${termText(ref.length === 1 ? (ref[0] as Term) : { type: 'ref', head: ref[0] as Term, path: ref.slice(1), loc: (ref[0] as Term).loc })} contains <VALUE> { ... })`);
    }
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
      // OPA gives a default rule named by one name alone (or a function's) the value true
      if (!value && (ref.length > 1 || kind === 'multi')) this.fail('illegal default rule (must have a value)', start);
      value ??= { type: 'value', value: true, loc: this.loc(start) };
      this.refuseWith(false, start);
      this.refuseKeywordName(ref, start);
      return [{ kind, ref, key, value, args: args ?? [], body: [], isDefault, elses: [], assign, loc }];
    }
    const bodies: Literal[][] = [];
    const hasIf = this.isIdent('if') && !isKeywordRef(this.tok, this.peek());
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
      if (this.v1) this.failLater('`if` keyword is required before rule body', this.tok, 1);
      bodies.push(this.parseBraceBody());
    }
    // as OPA: more braced bodies after a body chain rules with the same head (`p if { a } { b }`)
    // (in v0 a braced body may also start on the line after the head)
    if (bodies.length > 0 || !this.v1) while (this.isOp('{')) bodies.push(this.parseBraceBody());
    const hadBody = bodies.length > 0;
    if (bodies.length === 0) {
      // v0 (like OPA's rule-from-statement reading): a bare `p[x]` / `p.q` is a partial set with one element
      // OPA's words: a two-term ref reads as a partial set, one name as a var, a longer ref as a rule
      if (converted && this.v1) this.fail('`contains` keyword is required for partial set rules', start);
      if (emptyArgs && !value && !this.isIdent('with')) this.fail('rule argument list must take at least one argument', start);
      // a call statement OPA cannot read as a function returning true: one of a builtin's name
      if (args && !value && !this.isIdent('with') && isBuiltinName(ref)) this.failLater('rule name conflicts with built-in function', start);
      if (this.v1 && kind === 'value' && !value && !args) {
        // (a `with` after it makes this a body expression, which refuseWith below refuses)
        if (ref.length === 1 && !this.isIdent('with')) this.failLater(ROOT_NAMES.has(nameTok.text) ? 'refs cannot be used for rule head' : 'var cannot be used for rule name', start);
        else this.failLater('rule must have value assignment and/or body declaration', start, 1);
      }
      bodies.push([]);
    }
    const elses: Rule[] = [];
    // an `else` follows a body: after a head alone, or an `else` without a body, OPA finds it unexpected
    let bodyBefore = hadBody;
    while (this.isIdent('else') && !isKeywordRef(this.tok, this.peek())) {
      if (!bodyBefore) this.fail('unexpected else keyword');
      if (elses.length === 0 && ref.length > 1 && !ref.slice(1).every(isGroundTerm)) this.fail('else keyword cannot be used on rules with variables in head');
      if (elses.length === 0 && key !== undefined) this.fail('else keyword cannot be used on multi-value rules');
      const et = this.next();
      let ev: Term | undefined;
      const elseAssign = this.isOp(':=');
      if (this.isOp(':=') || this.isOp('=')) {
        this.next();
        ev = this.parseMember3(this.parseInExpr());
      } else if (!this.isIdent('if') && !this.isOp('{')) {
        this.unexpected('expected else value term or rule body');
      }
      let ebody: Literal[] = [];
      bodyBefore = true;
      if (this.isIdent('if')) {
        this.next();
        if (this.peek(0).type === 'eof') this.fail('unexpected eof token: rule body expected');
        ebody = this.parseIfBody();
      } else if (this.isOp('{')) {
        // OPA reports this at the else rule, which starts at `else`
        if (this.v1) this.failLater('`if` keyword is required before rule body', et, 1);
        ebody = this.parseBraceBody();
      } else bodyBefore = false;
      elses.push({
        kind,
        ref,
        key: undefined,
        value: ev ?? { type: 'value', value: true, loc: this.loc(et) },
        args: args ?? [],
        body: paramChecks.length ? [...ebody, ...paramChecks.map((l) => ({ ...l }))] : ebody,
        isDefault: false,
        elses: [],
        assign: elseAssign,
        loc: this.loc(et),
      });
    }
    // a head alone (`p`, `p := 1`) is what OPA reads again as a body expression
    this.refuseWith((value !== undefined || ref.length === 1) && kind !== 'multi' && !hadBody && elses.length === 0, start);
    this.refuseKeywordName(ref, start);
    const valueTerm: Term = value ?? { type: 'value', value: true, loc };
    if (paramChecks.length) bodies.forEach((b, i) => (bodies[i] = [...b, ...paramChecks.map((l) => ({ ...l }))]));
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

  /**
   * A `with` after a rule, refused in OPA's words. A head that is only `ref := value` is what OPA
   * then reads again as a body expression, which cannot carry a `with` (its modifiers parsed first,
   * so a broken one is that error); after a body, `contains` or `default` the keyword is unexpected.
   */
  private refuseWith(readAsExpression: boolean, start: Token): void {
    if (!this.isIdent('with') || isKeywordRef(this.tok, this.peek())) return;
    if (!readAsExpression) this.fail('unexpected with keyword');
    this.parseWiths();
    this.failLater('expressions using with keyword cannot be used for rule head', start);
  }

  /** A statement OPA reads as a body expression (a scalar or composite first), which it then cannot make a rule. */
  private startsNonRuleStatement(): boolean {
    const t = this.tok;
    if (isKeywordRef(t, this.peek())) return false;
    // `set()` is the empty set
    if (t.type === 'ident' && t.text === 'set' && this.isOp('(', this.peek()) && !this.peek().ws && this.isOp(')', this.peek(2))) return true;
    if (t.type === 'number' || t.type === 'string') return true;
    if (t.type === 'ident') return this.tokenName(t) !== 'identifier' && !['contains', 'default', 'else', 'import', 'package'].includes(t.text);
    return t.type === 'op' && (t.text === '[' || t.text === '{' || t.text === '(' || t.text === '.');
  }

  /**
   * OPA's refusal of such a statement as a rule, once the expression parsed (true: refused, and the
   * statement consumed); a ref or a call head keeps the token error (false, nothing consumed).
   */
  private refuseNonRuleStatement(): boolean {
    const start = this.tok;
    const save = this.pos;
    const lit = this.parseLiteral();
    const reason = nonRuleReason(lit);
    if (reason === undefined) {
      this.pos = save;
      return false;
    }
    this.failLater(reason, start);
    return true;
  }

  private wasDotted(t: Term): boolean {
    return this.dotted.has(t);
  }
}

/** How deep each parsed module's terms nest, and where first that deep: what a later stack overflow is reported at. */
const moduleNesting = new WeakMap<Module, { readonly depth: number; readonly loc: Loc }>();

export function nestingOf(module: Module): { readonly depth: number; readonly loc: Loc } | undefined {
  return moduleNesting.get(module);
}

/**
 * Runs one parse; a source nested past the JS stack is a parse error at the place it got that
 * deep (the deepest point read when the stack ran out), in its own file.
 */
function parsing<T>(parser: Parser, read: (p: Parser) => T): T {
  try {
    return read(parser);
  } catch (e) {
    if (!isStackOverflow(e)) throw e;
    throw new RegoError('rego_parse_error', 'source nested too deeply', parser.deepest?.loc ?? { file: parser.file, line: 1, col: 1 });
  }
}

export function parseModule(text: string, file: string, version: RegoVersion = 'v1'): Module {
  const parser = new Parser(text, file, version);
  const module = parsing(parser, (p) => p.parseModule());
  if (parser.deepest !== undefined) moduleNesting.set(module, parser.deepest);
  return module;
}

export function parseQuery(text: string, file = 'query', version: RegoVersion = 'v1'): Literal[] {
  return parsing(new Parser(text, file, version), (p) => p.parseQuery());
}

export function parseTerm(text: string, file = 'term'): Term {
  return parsing(new Parser(text, file, 'v1'), (p) => p.parseSingleTerm());
}
