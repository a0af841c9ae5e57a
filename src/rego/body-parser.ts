/**
 * Rego bodies and queries: literals (`some`, `every`, `not`, `with`), expressions (`:=`, `=`, a term),
 * and a rule body after `if` or in braces, read as OPA reads the ambiguous `if {` forms.
 */
import type { Expr, Literal, Term, With } from './ast.ts';
import { isKeywordRef } from './keyword-refs.ts';
import { TermParser } from './term-parser.ts';
import { SetValue } from './value.ts';

export abstract class BodyParser extends TermParser {
  /**
   * Body after `if`, as OPA reads it: first a single literal; if that fails or is a set literal
   * (`p if { true }`), a braced body. So `p if { 1 | 1 }` has one literal, a set comprehension.
   */
  protected parseIfBody(): Literal[] {
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

  protected parseBraceBody(): Literal[] {
    this.expectOp('{');
    const body = this.parseLiterals('}');
    // the literals stop at the brace or at the end of input, where OPA expected one more literal
    if (!this.isOp('}')) this.unexpected();
    this.next();
    if (body.length === 0) this.fail('found empty body');
    return body;
  }


  protected parseLiterals(close: string): Literal[] {
    const out: Literal[] = [];
    while (!this.atEnd(close)) {
      out.push(this.parseLiteral());
      if (this.isOp(';')) {
        this.next();
        // as OPA: a `;` is followed by one more literal
        if (this.atEnd(close)) this.unexpected();
        continue;
      }
      if (this.atEnd(close)) break;
      if (this.tok.nl) continue;
      if (close === '\u0000') this.unexpected();
      this.unexpected(`expected \\n or ; or ${close}${this.missingImportHint()}`);
    }
    return out;
  }

  /** OPA's hint when a body literal is followed by `and` / `or` written without their import. */
  private missingImportHint(): string {
    const t = this.tok;
    if (t.type !== 'ident' || (t.text !== 'and' && t.text !== 'or') || this.isKeywordToken(t)) return '';
    return ` (hint: \`import future.keywords.${t.text}\` for \`x ${t.text} y\` expressions)`;
  }

  protected atEnd(close: string): boolean {
    return this.isOp(close) || this.tok.type === 'eof';
  }

  parseQuery(): Literal[] {
    const body = this.parseLiterals('\u0000');
    if (this.tok.type !== 'eof') this.unexpected();
    if (body.length === 0) this.fail('empty query');
    return body;
  }


  // ------------------------------------------------------------ literals
  protected parseLiteral(): Literal {
    const start = this.tok;
    const loc = this.loc(start);
    if (this.isIdent('some')) {
      this.next();
      const afterSome = this.pos;
      // as OPA: first a `x in xs` / `k, v in xs` reading (its errors dropped), then a list of vars
      const read = this.attempt(() => this.readSomeIn());
      if (read === 'call') this.unexpected('expected `x in xs` or `x, y in xs` expression');
      if (read !== undefined) return { negated: false, expr: read, withs: this.parseWiths(), loc };
      this.pos = afterSome;
      const vars: Term[] = [];
      for (;;) {
        if (this.tokenName(this.tok) !== 'identifier') this.unexpected('expected var');
        const v = this.next();
        vars.push({ type: 'var', name: v.text, loc: this.loc(v) });
        if (!this.isOp(',')) break;
        this.next();
      }
      return { negated: false, expr: { kind: 'some', vars }, withs: [], loc };
    }
    if (this.isIdent('every')) {
      this.next();
      // as OPA: one term, which must be `x in xs` or `k, v in xs` over vars, then the body
      const term = this.parseMember3(this.parseInExpr());
      const member = term.type === 'call' && (term.name === 'internal.member_2' || term.name === 'internal.member_3') ? term.args : undefined;
      if (member === undefined) this.unexpected('expected `x[, y] in xs { ... }` expression');
      const [key, value, domain] = member.length === 3 ? (member as [Term, Term, Term]) : [undefined, ...(member as [Term, Term])];
      if (key !== undefined && key.type !== 'var') this.unexpected('expected key to be a variable');
      if (value.type !== 'var') this.unexpected('expected value to be a variable');
      if (!this.isOp('{')) this.unexpected('missing body');
      const body = this.parseBraceBody();
      return { negated: false, expr: { kind: 'every', key, value, domain, body }, withs: this.parseWiths(), loc };
    }
    let negated = false;
    if (this.isIdent('not')) {
      this.next();
      negated = true;
      if (this.isIdent('some') && !isKeywordRef(this.tok, this.peek())) this.unexpected("illegal negation of 'some'");
    }
    const expr = this.parseExpr();
    return { negated, expr, withs: this.parseWiths(), loc };
  }

  /** After `some`: the `in` form, 'call' for a call that is no membership, undefined for anything else. */
  private readSomeIn(): Expr | 'call' | undefined {
    const terms: Term[] = [this.parseRelation()];
    while (this.isOp(',')) {
      this.next();
      terms.push(this.parseRelation());
    }
    if (!this.isIdent('in')) return terms.length === 1 && terms[0]?.type === 'call' ? 'call' : undefined;
    if (terms.length > 2) return undefined;
    this.next();
    let coll = this.parseRelation();
    // as OPA's parser: `some x in a in b` is `some (x in a) in b` (a line starting with `-`
    // continues the one before: `some x in {"a"}` then `-2.5 in set()` is one literal)
    while (terms.length === 1 && this.isIdent('in')) {
      const t = this.tok;
      this.next();
      terms[0] = { type: 'call', name: 'internal.member_2', args: [terms[0] as Term, coll], loc: this.loc(t) };
      coll = this.parseRelation();
    }
    return terms.length === 2
      ? { kind: 'somein', key: terms[0], value: terms[1] as Term, coll }
      : { kind: 'somein', key: undefined, value: terms[0] as Term, coll };
  }

  protected parseWiths(): With[] {
    const out: With[] = [];
    while (this.isIdent('with') && !isKeywordRef(this.tok, this.peek())) {
      const t = this.next();
      if (this.tokenName(this.tok) !== 'identifier') this.unexpected('expected ident');
      const target = this.parsePrimary();
      if (target.type !== 'ref' && target.type !== 'var') this.unexpected('expected with target path');
      if (!this.isIdent('as')) this.unexpected('expected as keyword');
      this.next();
      const value = this.parseInExpr();
      out.push({ target, value, loc: this.loc(t) });
    }
    return out;
  }

  protected parseExpr(): Expr {
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
}
