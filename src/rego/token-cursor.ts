/**
 * The token cursor under the Rego parser: where it is in the token stream, how it names a token in an
 * error as OPA's parser does, and trying one reading of ambiguous syntax with a cheap failure.
 */
import type { Loc, Term } from './ast.ts';
import { RegoError } from './errors.ts';
import { tokenize, type Token } from './lexer.ts';

const OPA_KEYWORDS: ReadonlySet<string> = new Set(['package', 'import', 'as', 'default', 'else', 'not', 'some', 'with', 'null', 'true', 'false', 'every', 'contains', 'if', 'in']);

/** OPA's names of operator tokens (its scanner's token strings). */
const OPA_OPERATOR_NAMES: ReadonlyMap<string, string> = new Map([
  ['+', 'plus'], ['-', 'minus'], ['*', 'mul'], ['/', 'div'], ['%', 'rem'], ['&', 'and'], ['|', 'or'],
  ['=', 'eq'], ['==', 'equal'], [':=', 'assign'], ['!=', 'neq'], ['>', 'gt'], ['<', 'lt'], ['>=', 'gte'], ['<=', 'lte'],
]);

/**
 * A failed attempt at one reading of ambiguous syntax, thrown only while the parser is trying an
 * alternative it will fall back from. It is not an Error: it never escapes the parser, and capturing a
 * stack for every `if {` body that turns out not to be a set literal dominated parsing.
 */
class AttemptFailed {
  static readonly instance = new AttemptFailed();
}

export class TokenCursor {
  protected pos = 0;
  /** Depth of alternatives being tried; while above 0, a parse failure is the cheap AttemptFailed. */
  private attempting = 0;
  /** Ref segments written `.name` (as opposed to `["name"]`), which some rule heads tell apart. */
  protected readonly dotted = new WeakSet<Term>();
  private readonly toks: Token[];
  /** How many terms (and groups) enclose the one being read. */
  protected nesting = 0;
  /** Where nesting was deepest so far: a source nested past the JS stack is reported there. */
  private deepestAt: { readonly depth: number; readonly loc: Loc } | undefined;

  /** The text is read as Rego v0 (`import rego.v1` in it does not change this). */
  protected readonly parsedAsV0: boolean;
  constructor(
    src: string,
    readonly file: string,
    /** Rego v1 rules apply (a module's `import rego.v1` switches it on). */
    public v1: boolean,
  ) {
    this.parsedAsV0 = !v1;
    this.toks = tokenize(src, file);
  }

  protected get tok(): Token {
    return this.toks[this.pos] as Token;
  }
  protected peek(k = 1): Token {
    return (this.toks[this.pos + k] ?? this.toks[this.toks.length - 1]) as Token;
  }
  protected next(): Token {
    const t = this.tok;
    if (t.type !== 'eof') this.pos++;
    return t;
  }
  protected loc(t: Token = this.tok): Loc {
    return { file: this.file, line: t.line, col: t.col };
  }
  fail(msg: string, t: Token = this.tok): never {
    if (this.attempting > 0) throw AttemptFailed.instance;
    throw new RegoError('rego_parse_error', msg, this.loc(t));
  }
  /**
   * An error OPA finds only once the whole module has parsed (a statement that cannot be a rule, a
   * Rego v1 check): any syntax error later in the file comes first, so the first of these waits.
   */
  private readonly deferred: (RegoError | undefined)[] = [];
  /** `stage` 0: a statement OPA cannot make a rule of; 1: a Rego v1 check, which OPA runs after those. */
  protected failLater(msg: string, t: Token = this.tok, stage: 0 | 1 = 0): void {
    if (this.attempting > 0) throw AttemptFailed.instance;
    this.deferred[stage] ??= new RegoError('rego_parse_error', msg, this.loc(t));
  }
  protected throwDeferred(): void {
    const first = this.deferred[0] ?? this.deferred[1];
    if (first !== undefined) throw first;
  }

  /** A failure at a term's location rather than at a token. */
  protected failAt(msg: string, at: Loc): never {
    if (this.attempting > 0) throw AttemptFailed.instance;
    throw new RegoError('rego_parse_error', msg, at);
  }
  protected isOp(text: string, t: Token = this.tok): boolean {
    return t.type === 'op' && t.text === text;
  }
  protected isIdent(text: string, t: Token = this.tok): boolean {
    return t.type === 'ident' && t.text === text;
  }
  protected expectOp(text: string): Token {
    if (!this.isOp(text)) this.fail(`expected ${text} but found ${this.describe(this.tok)}`);
    return this.next();
  }
  /** `and` / `or` are keywords in this module (the logic parser says when). */
  protected logicKeywords(): boolean {
    return false;
  }
  protected isKeywordToken(t: Token): boolean {
    return t.type === 'ident' && (OPA_KEYWORDS.has(t.text) || ((t.text === 'and' || t.text === 'or') && this.logicKeywords()));
  }
  /** A token as OPA's parser names it in "unexpected X token". */
  protected tokenName(t: Token): string {
    if (t.type === 'eof') return 'eof';
    if (t.type === 'string') return 'string';
    if (t.type === 'number') return 'number';
    if (t.type === 'ident') return this.isKeywordToken(t) ? t.text : 'identifier';
    return OPA_OPERATOR_NAMES.get(t.text) ?? t.text;
  }
  /** OPA's `unexpected X token` / `unexpected X keyword`, with its note after a colon. */
  protected unexpected(note?: string, t: Token = this.tok): never {
    const kind = this.isKeywordToken(t) ? 'keyword' : 'token';
    return this.fail(`unexpected ${this.tokenName(t)} ${kind}${note === undefined ? '' : `: ${note}`}`, t);
  }
  protected describe(t: Token): string {
    if (t.type === 'eof') return 'end of input';
    if (t.type === 'string') return 'string';
    return JSON.stringify(t.text);
  }

  /** Enters one more level of nesting (a term, a group), noting where it first got this deep. */
  protected enterNested(): void {
    if (++this.nesting > (this.deepestAt?.depth ?? 0)) this.deepestAt = { depth: this.nesting, loc: this.loc() };
  }
  protected leaveNested(): void {
    this.nesting--;
  }
  /** The deepest nesting read so far and where it was. */
  get deepest(): { readonly depth: number; readonly loc: Loc } | undefined {
    return this.deepestAt;
  }

  /**
   * One reading of ambiguous syntax, or undefined when it does not parse. A stack overflow is no
   * failed reading: retried another way it would only overflow again, later and elsewhere.
   */
  protected attempt<T>(read: () => T): T | undefined {
    this.attempting++;
    const nesting = this.nesting;
    try {
      return read();
    } catch (e) {
      if (isStackOverflow(e)) throw e;
      return undefined;
    } finally {
      this.attempting--;
      this.nesting = nesting;
    }
  }
}

/** The RangeError V8 throws when the JS call stack runs out. */
export function isStackOverflow(e: unknown): boolean {
  return e instanceof RangeError && /call stack/i.test(e.message);
}
