/**
 * Literals that start with a keyword used as a ref head (`true.foo == 1`, `not.x`, `with.a.b`):
 * read as plain expressions whose first term is a variable of that name (keyword-refs.ts).
 */
import type { Literal, Term } from './ast.ts';
import { BodyParser } from './body-parser.ts';
import { isKeywordRef } from './keyword-refs.ts';

export abstract class KeywordRefParser extends BodyParser {
  /** Position of a keyword token to be read as a variable (the head of a ref). */
  private keywordHeadAt = -1;

  protected override parseLiteral(): Literal {
    if (!isKeywordRef(this.tok, this.peek())) return super.parseLiteral();
    const loc = this.loc();
    this.keywordHeadAt = this.pos;
    const expr = this.parseExpr();
    return { negated: false, expr, withs: this.parseWiths(), loc };
  }

  override parsePrimary(): Term {
    if (this.pos !== this.keywordHeadAt) return super.parsePrimary();
    this.keywordHeadAt = -1;
    const t = this.next();
    return this.parseSuffixes({ type: 'var', name: t.text, loc: this.loc(t) });
  }
}
