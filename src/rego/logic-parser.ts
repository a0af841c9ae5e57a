/**
 * OPA's logical operators and explicit negated bodies: `a and b`, `a or b`, `{ body } or ...`,
 * `(a or b) and c`, `not { body }` (`import future.keywords.and` / `or` / `not`, `future.keywords`,
 * `rego.v2`). Each operand is a closed scope that only has to hold once: its bindings stay inside,
 * `and` tries the right side only when the left held, `or` only when it did not.
 *
 * The operators become literals the rest of the engine already knows, so the compiler and the
 * evaluator need nothing new: a closed operand is `every _ in [1] { body }` (true when the body has
 * a solution, its locals its own), `a and b` is that over both operands in turn, `a or b` is
 * `not every _ in [1] { not a; not b }`, and `not { body }` the negation of a closed body.
 */
import type { Literal, Loc } from './ast.ts';
import { KeywordRefParser } from './keyword-ref-parser.ts';

/** An operand as written: an explicit `{ body }`, or one literal (negated, a group, a plain expression). */
interface Operand {
  readonly body: Literal[];
  readonly explicit: boolean;
  readonly loc: Loc;
}

/** Literals this file builds, which already hold at most once and bind nothing outside. */
const CLOSED = new WeakSet<Literal>();

function closedBody(body: Literal[], loc: Loc, negated = false): Literal {
  const lit: Literal = {
    negated,
    expr: { kind: 'every', key: undefined, value: { type: 'var', name: '_', loc }, domain: { type: 'value', value: [1], loc }, body },
    withs: [],
    loc,
  };
  CLOSED.add(lit);
  return lit;
}

/** The operand as a literal that holds at most once and binds nothing outside. */
function closed(o: Operand): Literal {
  const only = o.body.length === 1 ? (o.body[0] as Literal) : undefined;
  if (!o.explicit && only !== undefined && (CLOSED.has(only) || (only.negated && only.withs.length === 0))) return only;
  return closedBody(o.body, o.loc);
}

/** The negation of a closed literal (a flipped existence test). */
function negate(l: Literal): Literal {
  const out: Literal = { ...l, negated: !l.negated };
  if (CLOSED.has(l)) CLOSED.add(out);
  return out;
}

function andOf(a: Operand, b: Operand, loc: Loc): Operand {
  return { body: [closedBody([closed(a), closed(b)], loc)], explicit: false, loc };
}

function orOf(a: Operand, b: Operand, loc: Loc): Operand {
  return { body: [closedBody([negate(closed(a)), negate(closed(b))], loc, true)], explicit: false, loc };
}

export abstract class LogicParser extends KeywordRefParser {
  /** `and` / `or` are keywords in this module. */
  protected logicOps = false;
  /** `not { body }` and `not (group)` are read (future.keywords.not, rego.v2). */
  protected notBodies = false;

  protected override logicKeywords(): boolean {
    return this.logicOps;
  }

  private isLogicOp(): boolean {
    return this.logicOps && (this.isIdent('and') || this.isIdent('or'));
  }

  /** `not` as the keyword, not the head of a ref `not.x` / `not[0]`. */
  private atNot(): boolean {
    if (!this.isIdent('not')) return false;
    const n = this.peek();
    return !(n.type === 'op' && !n.ws && (n.text === '.' || n.text === '['));
  }

  protected override parseLiteral(): Literal {
    if (!this.logicOps && !this.notBodies) return super.parseLiteral();
    const start = this.tok;
    const loc = this.loc(start);
    if (this.logicOps && this.isOp('{')) {
      // `{ } or ...`: an explicit operand's braces hold a body
      const after = this.peek(2);
      if (this.isOp('}', this.peek()) && after.type === 'ident' && (after.text === 'and' || after.text === 'or')) this.fail('found empty body', this.peek());
      const save = this.pos;
      const body = this.attempt(() => this.parseBraceBody());
      if (body !== undefined && this.isLogicOp()) return this.withTail(this.chain({ body, explicit: true, loc }));
      this.pos = save;
    }
    if (this.logicOps && this.isOp('(')) {
      const g = this.tryGroup(false);
      if (g !== undefined) return this.withTail(this.isLogicOp() ? this.chain(g) : g);
    }
    if (this.notBodies && this.atNot() && (this.isOp('{', this.peek()) || (this.logicOps && this.isOp('(', this.peek())))) {
      const save = this.pos;
      this.next();
      const neg = this.negatedOperand(loc);
      if (neg !== undefined) return this.withTail(this.isLogicOp() ? this.chain(neg) : neg);
      this.pos = save;
    }
    const lit = super.parseLiteral();
    if (!this.isLogicOp()) return lit;
    if (lit.expr.kind === 'some' || lit.expr.kind === 'somein' || lit.expr.kind === 'every') return lit;
    if (lit.withs.length > 0) this.fail(withOnOperand(this.tok.text), start);
    return this.withTail(this.chain({ body: [lit], explicit: false, loc }));
  }

  /** After `not`: `{ body }` or `(group)` as one negated operand, or undefined when it is neither. */
  private negatedOperand(loc: Loc): Operand | undefined {
    if (this.isOp('{')) {
      const body = this.parseBraceBody();
      return { body: [closedBody(body, loc, true)], explicit: false, loc };
    }
    const g = this.tryGroup(true);
    if (g === undefined) return undefined;
    return { body: [negate(closed(g))], explicit: false, loc };
  }

  /** A literal built from operands, with the `with` modifiers that follow it. */
  private withTail(o: Operand): Literal {
    const lit = { ...closed(o) };
    const withs = this.parseWiths();
    if (withs.length > 0) lit.withs = [...lit.withs, ...withs];
    return lit;
  }

  /** `lhs (and|or) ...`: `and` binds tighter than `or`, both left-associative. */
  private chain(lhs: Operand): Operand {
    let left = this.logicOps && this.isIdent('and') ? this.andChain(lhs) : lhs;
    while (this.logicOps && this.isIdent('or')) {
      this.next();
      let right = this.operand('or');
      if (this.logicOps && this.isIdent('and')) right = this.andChain(right);
      left = orOf(left, right, left.loc);
    }
    return left;
  }

  private andChain(lhs: Operand): Operand {
    let left = lhs;
    while (this.logicOps && this.isIdent('and')) {
      this.next();
      const right = this.operand('and');
      left = andOf(left, right, left.loc);
    }
    return left;
  }

  /** One operand of `and` / `or`. */
  private operand(op: string): Operand {
    const start = this.tok;
    const loc = this.loc(start);
    if (this.isOp('{')) {
      const save = this.pos;
      const body = this.attempt(() => this.parseBraceBody());
      if (body !== undefined) return { body, explicit: true, loc };
      this.pos = save;
      if (this.isOp('}', this.peek())) this.fail('found empty body');
      this.fail(`operand of \`${op}\` cannot begin with \`{\` unless the braces hold a body`);
    }
    let negated = false;
    if (this.atNot()) {
      this.next();
      negated = true;
      if (this.notBodies && (this.isOp('{') || this.isOp('('))) {
        const save = this.pos;
        const neg = this.negatedOperand(loc);
        if (neg !== undefined) return neg;
        this.pos = save;
      }
    } else if (this.isOp('(')) {
      const g = this.tryGroup(true);
      if (g !== undefined) return g;
    }
    const expr = this.parseExpr();
    return { body: [{ negated, expr, withs: [], loc }], explicit: false, loc };
  }

  /**
   * `( ... )` holding a logical group (`(a or b)`, `(not a)`, `(a with x)` as an operand), or
   * undefined with the cursor restored when the parentheses hold a term (`(a == b)`, `({})`).
   */
  private tryGroup(operandContext: boolean): Operand | undefined {
    this.enterNested();
    try {
      return this.group(operandContext);
    } finally {
      this.leaveNested();
    }
  }

  private group(operandContext: boolean): Operand | undefined {
    const save = this.pos;
    const open = this.next();
    const loc = this.loc(open);
    if (this.isOp(')')) {
      if (operandContext) this.fail('empty parenthesized group', open);
      this.pos = save;
      return undefined;
    }
    const first = this.attempt(() => this.operand(''));
    if (first === undefined) {
      this.pos = save;
      return undefined;
    }
    const closeGroup = (o: Operand): Operand => {
      if (!this.isOp(')')) this.fail('expected ) to close parenthesized group');
      this.next();
      return { body: o.body, explicit: o.explicit, loc };
    };
    if (this.isLogicOp()) {
      const g = this.chain(first);
      const withs = this.parseWiths();
      if (withs.length === 0) return closeGroup(g);
      const lit = { ...closed(g), withs };
      return closeGroup({ body: [lit], explicit: false, loc });
    }
    if (this.isIdent('with') && !first.explicit && first.body.length === 1) {
      const lit = { ...(first.body[0] as Literal), withs: this.parseWiths() };
      if (this.isLogicOp()) this.fail(withOnOperand(this.tok.text));
      if (!this.isOp(')')) this.fail('expected ) to close parenthesized group');
      this.next();
      if (operandContext || this.isLogicOp()) return { body: [lit], explicit: false, loc };
      this.pos = save;
      return undefined;
    }
    const only = first.body.length === 1 && !first.explicit ? (first.body[0] as Literal) : undefined;
    if (only !== undefined && (CLOSED.has(only) || only.negated)) return closeGroup(first);
    this.pos = save;
    return undefined;
  }
}

/** OPA's refusal of a `with` on one operand, with its hint. */
function withOnOperand(op: string): string {
  return `\`with\` modifier is not allowed on operand of \`${op}\` (hint: Wrap the operand in \`(...)\` or \`{...}\` to scope, or move \`with\` after the \`${op}\` expression to apply it to the whole expression)`;
}

/** The keywords an import turns on, for `parser.ts`: `future.keywords[.x]` and `rego.v2`. */
export function logicKeywordsOf(segs: readonly string[]): { logic: boolean; not: boolean } {
  if (segs[0] === 'rego' && segs[1] === 'v2' && segs.length === 2) return { logic: true, not: true };
  if (segs[0] !== 'future' || segs[1] !== 'keywords') return { logic: false, not: false };
  // as OPA: only a path of three names picks one keyword; a longer one imports them all
  if (segs.length !== 3) return { logic: true, not: true };
  return { logic: segs[2] === 'and' || segs[2] === 'or', not: segs[2] === 'not' };
}
