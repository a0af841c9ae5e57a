/**
 * Template strings, `$"text {expr} text"` and `` $`...` `` (multi-line): read from the lexer's
 * `tmpl` parts with the expression tokens between them, and turned into a call of
 * `internal.template_string` over an array of the parts (builtins/template.ts). Text parts
 * and scalar literals are kept as they are; any other expression becomes the set comprehension of
 * its values, `{v | v = expr with ...}`, so an undefined expression shows as `<undefined>` instead
 * of making the string undefined, and a `with` inside the braces applies to that expression alone.
 */
import type { Literal, Term } from './ast.ts';
import { LogicParser } from './logic-parser.ts';

const NOT_ALLOWED: Readonly<Record<string, string>> = {
  unify: "unexpected unification ('=') in template-string expression",
  assign: "unexpected assignment (':=') in template-string expression",
  every: "unexpected 'every' in template-string expression",
  some: "unexpected 'some' in template-string expression",
  somein: "unexpected 'some' in template-string expression",
};

export abstract class TemplateParser extends LogicParser {
  override parsePrimary(): Term {
    if (this.tok.type !== 'tmpl') return super.parsePrimary();
    const first = this.tok;
    // OPA's v0 capabilities have no template strings, whatever the module imports
    if (this.parsedAsV0) this.fail('template strings are not supported by current capabilities', first);
    if (!first.tmplStart) this.fail(`unexpected ${this.tokenName(first)} token`);
    const loc = this.loc(first);
    const items: Term[] = [];
    let part = this.next();
    for (;;) {
      if (part.text !== '') items.push({ type: 'value', value: part.text, loc: this.loc(part) });
      if (part.tmplEnd) break;
      items.push(this.templateExpression());
      if (this.tok.type !== 'tmpl' || this.tok.tmplStart) this.fail('expected } to end template string expression');
      part = this.next();
    }
    // OPA reads a ref on it, and refuses it
    if ((this.isOp('[') || this.isOp('.')) && !this.tok.ws) this.failAt('illegal ref (head cannot be templatestring)', loc);
    return { type: 'call', name: 'internal.template_string', args: [{ type: 'array', items, loc }], loc };
  }

  /** The expression between `{` and `}`: a term with optional `with` modifiers. */
  private templateExpression(): Term {
    this.enterNested();
    try {
      return this.templateTerm();
    } finally {
      this.leaveNested();
    }
  }

  private templateTerm(): Term {
    const start = this.tok;
    if (start.type === 'tmpl' && !start.tmplStart) this.fail('unexpected } token');
    const lit: Literal = this.parseLiteral();
    if (lit.negated) this.fail("unexpected negation ('not') in template-string expression", start);
    const bad = NOT_ALLOWED[lit.expr.kind];
    if (bad !== undefined) this.fail(bad, start);
    if (lit.expr.kind !== 'term') this.fail('invalid template-string expression', start);
    const t = lit.expr.term;
    if (lit.withs.length === 0 && t.type === 'value' && (t.value === null || typeof t.value !== 'object')) return t;
    const v: Term = { type: 'var', name: `__template_${lit.loc.line}_${lit.loc.col}`, loc: lit.loc };
    const capture: Literal = { negated: false, expr: { kind: 'unify', left: v, right: t }, withs: lit.withs, loc: lit.loc };
    return { type: 'setcompr', term: v, body: [capture], loc: lit.loc };
  }
}

/**
 * A function parameter written as a template string (`f($"{x}-{y}") := ...`): OPA builds that
 * string from the vars the body binds, so the parameter becomes a var and each body ends by
 * unifying it with the string. Returns the parameters and the literals to append.
 */
export function templateParams(args: readonly Term[]): { args: Term[]; checks: Literal[] } {
  const checks: Literal[] = [];
  const out = args.map((a, i) => {
    if (a.type !== 'call' || a.name !== 'internal.template_string') return a;
    const v: Term = { type: 'var', name: `__template_param_${a.loc.line}_${a.loc.col}_${i}`, loc: a.loc };
    checks.push({ negated: false, expr: { kind: 'unify', left: v, right: a }, withs: [], loc: a.loc });
    return v;
  });
  return { args: out, checks };
}
