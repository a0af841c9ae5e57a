/** Rego abstract syntax produced by `parser.ts` and annotated by `compiler.ts`. */
import type { Value } from './value.ts';

export interface Loc {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export type Term =
  | { type: 'value'; value: Value; loc: Loc }
  | { type: 'var'; name: string; loc: Loc; slot?: number }
  | { type: 'ref'; head: Term; path: Term[]; loc: Loc }
  | { type: 'array'; items: Term[]; loc: Loc }
  | { type: 'set'; items: Term[]; loc: Loc }
  | { type: 'object'; entries: [Term, Term][]; loc: Loc }
  | { type: 'arraycompr'; term: Term; body: Literal[]; loc: Loc }
  | { type: 'setcompr'; term: Term; body: Literal[]; loc: Loc }
  | { type: 'objectcompr'; key: Term; value: Term; body: Literal[]; loc: Loc }
  | { type: 'call'; name: string; args: Term[]; loc: Loc; target?: CallTarget };

/** Resolved callee of a call term (set by the compiler). */
export type CallTarget = { kind: 'builtin'; name: string } | { kind: 'func'; path: string };

export type Expr =
  | { kind: 'term'; term: Term }
  | { kind: 'unify'; left: Term; right: Term }
  | { kind: 'assign'; left: Term; right: Term }
  | { kind: 'some'; vars: Term[] }
  | { kind: 'somein'; key: Term | undefined; value: Term; coll: Term }
  | { kind: 'every'; key: Term | undefined; value: Term; domain: Term; body: Literal[] };

export interface With {
  target: Term;
  value: Term;
  loc: Loc;
}

export interface Literal {
  negated: boolean;
  expr: Expr;
  withs: With[];
  loc: Loc;
}

export type RuleKind = 'value' | 'multi' | 'func';

export interface Rule {
  kind: RuleKind;
  /** Head reference relative to the package: first a var name, then terms (strings for `.x`). */
  ref: Term[];
  /** `multi`: the element term (`contains x`, v0 `p[x]`). */
  key: Term | undefined;
  /** `value`/`func`: the value term (true when omitted). */
  value: Term;
  /** `func`: argument terms. */
  args: Term[];
  body: Literal[];
  isDefault: boolean;
  /** `else` branches, in order. */
  elses: Rule[];
  /** The head used `:=` (single assignment). */
  assign: boolean;
  loc: Loc;
}

export interface Import {
  path: Term; // a ref rooted at data/input/future/rego
  alias: string | undefined;
  loc: Loc;
}

export interface Module {
  file: string;
  pkg: string[];
  pkgLoc: Loc;
  imports: Import[];
  rules: Rule[];
  regoV1: boolean;
}
