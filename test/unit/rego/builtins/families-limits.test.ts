/**
 * The parsing builtins (graphql, JSON Schema, x509) charge their work to the evaluation's step budget,
 * and a self-referencing JSON Schema ends in a builtin error rather than a stack overflow.
 */
import { describe, expect, it } from 'vitest';
import { compileModules, RegoError } from '../../../../src/rego/index.ts';
import { fromJSON } from '../../../../src/rego/value-json.ts';

function evalWith(body: string, input: unknown, maxSteps: number) {
  const p = compileModules([{ name: 'l.rego', text: `package l\n\n${body}\n` }], { regoVersion: 'v1' });
  return () => p.evalRule('data.l.r', { input: fromJSON(input), strict: true, maxSteps, deadlineMs: 10_000 });
}

describe('parsing builtins under limits', () => {
  const big = `{ ${'a '.repeat(50_000)}}`;
  it.each([
    ['graphql.parse_query', 'r := graphql.parse_query(input.q)', { q: big }],
    ['graphql.is_valid', 'r := graphql.is_valid(input.q, "type Query { a: Int }")', { q: big }],
    ['json.match_schema', 'r := json.match_schema(input.d, {"type": "array"})', { d: Array.from({ length: 20_000 }, (_, i) => i) }],
    ['crypto.x509.parse_certificates', 'r := crypto.x509.parse_certificates(input.c)', { c: 'A'.repeat(200_000) }],
  ])('%s stops at the step limit', (_name, body, input) => {
    const run = evalWith(body, input, 2_000);
    let err: unknown;
    try {
      run();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RegoError);
    expect((err as RegoError).code).toBe('REGO_LIMIT_EXCEEDED');
  });

  it('the same calls finish under a generous limit', () => {
    const r = evalWith('r := graphql.parse_query(input.q)', { q: big }, 50_000_000)();
    expect(r).toBeDefined();
  });

  it('a schema whose $ref recurses without consuming the document is a builtin error', () => {
    const run = evalWith('r := json.match_schema({}, {"anyOf": [{"$ref": "#"}]})', {}, 50_000_000);
    expect(run).toThrow(RegoError);
    expect(run).toThrow(/json\.match_schema: schema references recurse without end/);
  });
});
