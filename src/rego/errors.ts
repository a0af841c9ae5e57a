/**
 * Errors of the Rego engine. `regoCode` is OPA's error code (rego_parse_error, rego_compile_error,
 * rego_unsafe_var_error, rego_recursion_error, rego_type_error, eval_conflict_error, eval_type_error,
 * eval_builtin_error, ...); the message renders as OPA does: `file:line: code: message`.
 *
 * The engine stands alone, so its errors are its own class; `code` groups OPA's codes into the four
 * faults a host tells apart (toolgate prints them as its own REGO_* codes, see src/errors.ts).
 */
import type { Loc } from './ast.ts';

export type RegoErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'rego_type_error'
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error'
  | 'eval_internal_error'
  | 'eval_cancel_error';

/** The fault a RegoError reports: the module did not parse, did not compile, failed in evaluation, or ran past a limit. */
export type RegoFault = 'REGO_PARSE_ERROR' | 'REGO_COMPILE_ERROR' | 'REGO_EVAL_ERROR' | 'REGO_LIMIT_EXCEEDED';

export function faultOf(c: RegoErrorCode): RegoFault {
  if (c === 'rego_parse_error') return 'REGO_PARSE_ERROR';
  if (c.startsWith('rego_')) return 'REGO_COMPILE_ERROR';
  if (c === 'eval_cancel_error') return 'REGO_LIMIT_EXCEEDED';
  return 'REGO_EVAL_ERROR';
}

/** A source position (1-based line and column). */
export interface RegoErrorAt {
  readonly file: string;
  readonly line: number;
  readonly col: number;
}

export class RegoError extends Error {
  readonly code: RegoFault;
  readonly regoCode: RegoErrorCode;
  readonly regoMessage: string;
  readonly loc: Loc | undefined;
  /** Where the first error sits (empty when it has no location). */
  readonly at: readonly RegoErrorAt[];
  /** The messages of further errors reported with the first (OPA lists every compile error). */
  readonly details: readonly string[];
  constructor(code: RegoErrorCode, message: string, loc?: Loc, more: readonly RegoError[] = []) {
    const where = loc ? `${loc.file}:${loc.line}: ` : '';
    super(`${where}${code}: ${message}`);
    this.name = 'RegoError';
    this.code = faultOf(code);
    this.regoCode = code;
    this.regoMessage = message;
    this.loc = loc;
    this.at = loc ? [{ file: loc.file, line: loc.line, col: loc.col }] : [];
    this.details = more.map((e) => e.message);
  }
}
