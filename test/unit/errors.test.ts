/**
 * errors.ts sits below the Rego engine and does not import it, so it knows the engine's errors by
 * their shape: these hold that shape-check equal to the class check it replaces.
 */
import { describe, expect, it } from 'vitest';
import { isToolgateError, toolgateErrorFromRego, ToolgateError } from '../../src/errors.ts';
import { parseModule, RegoError, RegoLimitError } from '../../src/rego/index.ts';

function engineError(): RegoError {
  try {
    parseModule('p.rego', 'package p\nallow if {');
  } catch (e) {
    if (e instanceof RegoError) return e;
    throw e;
  }
  throw new Error('the module parsed');
}

describe('errors: a Rego engine error is a toolgate error', () => {
  it('recognises every fault of the engine, a limit error among them', () => {
    for (const code of ['rego_parse_error', 'rego_compile_error', 'eval_type_error', 'eval_cancel_error'] as const) {
      expect(isToolgateError(new RegoError(code, 'm', { file: 'f.rego', line: 1, col: 2 })), code).toBe(true);
    }
    expect(isToolgateError(new RegoLimitError('steps', 'too many steps', undefined))).toBe(true);
    expect(isToolgateError(engineError())).toBe(true);
  });

  it('does not take other errors for one', () => {
    expect(isToolgateError(new Error('plain'))).toBe(false);
    expect(isToolgateError(Object.assign(new Error('coded'), { code: 'ENOENT', at: [], details: [] }))).toBe(false);
    expect(isToolgateError(Object.assign(new Error('no locations'), { code: 'REGO_EVAL_ERROR' }))).toBe(false);
    expect(isToolgateError({ code: 'REGO_EVAL_ERROR', at: [], details: [], message: 'not an Error' })).toBe(false);
    expect(isToolgateError(new ToolgateError('USAGE', 'u'))).toBe(true);
  });

  it('turns an engine error into a ToolgateError with its code, message and locations', () => {
    const e = engineError();
    const t = toolgateErrorFromRego(e);
    expect(t).toBeInstanceOf(ToolgateError);
    expect([t.code, t.message, t.at, t.details, t.cause]).toEqual([e.code, e.message, e.at, e.details, e]);
  });
});
