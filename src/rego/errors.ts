/**
 * Errors of the builtin Rego engine. `regoCode` is OPA's error code (rego_parse_error, rego_compile_error,
 * rego_unsafe_var_error, rego_recursion_error, rego_type_error, eval_conflict_error, eval_type_error,
 * eval_builtin_error, ...); the message renders as OPA does: `file:line: code: message`.
 */
import { ToolgateError, type ToolgateErrorCode } from '../errors.ts';
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

function toolgateCode(c: RegoErrorCode): ToolgateErrorCode {
  if (c === 'rego_parse_error') return 'REGO_PARSE_ERROR';
  if (c.startsWith('rego_')) return 'REGO_COMPILE_ERROR';
  if (c === 'eval_cancel_error') return 'REGO_LIMIT_EXCEEDED';
  return 'REGO_EVAL_ERROR';
}

export class RegoError extends ToolgateError {
  readonly regoCode: RegoErrorCode;
  readonly regoMessage: string;
  readonly loc: Loc | undefined;
  constructor(code: RegoErrorCode, message: string, loc?: Loc, more: RegoError[] = []) {
    const where = loc ? `${loc.file}:${loc.line}: ` : '';
    super(toolgateCode(code), `${where}${code}: ${message}`, {
      at: loc ? [{ file: loc.file, line: loc.line, col: loc.col }] : [],
      details: more.map((e) => e.message),
    });
    this.regoCode = code;
    this.regoMessage = message;
    this.loc = loc;
  }
}
