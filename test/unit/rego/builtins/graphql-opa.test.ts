/**
 * graphql.* against the real OPA on generated schemas and queries (valid and broken: unknown fields
 * and types, bad arguments, syntax errors, missing root types), as text and as the AST objects
 * graphql.parse_query / parse_schema return.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeWithOpa } from '../../../helpers/opa.ts';
import { BuiltinOracle, describeDisagreements, showAnswer, type CallAnswer } from '../../../helpers/builtin-oracle.ts';

const SCHEMAS = [
  'type Query { user(id: ID!): User users(first: Int = 10, role: Role): [User!]! node(id: ID!): Node }\ntype User implements Node { id: ID! name: String email: String @deprecated(reason: "x") friends: [User] role: Role }\ninterface Node { id: ID! }\nenum Role { ADMIN USER }\ninput Filter { name: String, age: Int = 3 }\ntype Mutation { setName(id: ID!, name: String!): User }\nscalar Date\nunion Any = User\ndirective @auth(role: Role) on FIELD_DEFINITION | FIELD',
  '"""The root"""\nschema { query: Q }\ntype Q { a: Int, b(x: [Int!]): String }',
  'type Query { a: Int }\nextend type Query { b: String }',
  'type Query { a: B }',
  'type A { a: Int }',
  'type Query { a: Int } type Query { b: Int }',
  'type Query { a: Int',
  'interface I { a: Int } type Query implements I { b: Int }',
  '',
  'type Query { f(a: Filter): Int } input Filter { x: Int! }',
  '# top\ntype Query {\n  # f\n  a(\n # arg\n x: Int): Int\n}\n# before\n"d"\n# after\nenum E {\n # v\n A }',
  // gqlparser: an extension of a type defined nowhere stands for its definition; `{}` lists must not be empty
  'extend type Query { a: Int }\nextend type Query { b: String }\nextend type User { id: ID! }\nunion U = User',
  'type Query { a: Int }\nenum E {}',
  'type Query { a: Int }\ninput I {\n}',
  'type Query { a: Int }\ninput I { x(y: Int): Int }',
  // gqlparser's lexer and parser words: unterminated strings, descriptions where none may stand
  'type Query { a: Int }\n"""x',
  'type Query { a: Int }\n"desc" extend type Query @d',
  'type Query { a: Int }\nextend """d""" type Query { b: Int }',
  'type Query { f(a: Int = $v): Int }',
];

const field = fc.constantFrom('user(id: "1") { id name }', 'users { name role }', 'users(first: 2, role: ADMIN) { id friends { name } }', 'node(id: 1) { id ... on User { name } }', 'a', 'b(x: [1, 2])', 'zzz', 'user { id }', 'user(id: $id) { name }', 'users(role: NOPE) { id }', '__typename', 'alias: a', 'user(id: "x") { ...U }', 'a b', 'f(a: {x: 1})', 'f(a: {y: 1})');
const query = fc.oneof(
  fc.array(field, { minLength: 1, maxLength: 3 }).map((fs) => `{ ${fs.join(' ')} }`),
  fc.tuple(fc.constantFrom('query Q($id: ID!)', 'query', 'mutation M', 'subscription', 'query Q($id: ID! = "x", $n: [Int])'), fc.array(field, { minLength: 1, maxLength: 2 }))
    .map(([h, fs]) => `${h} { ${fs.join(' ')} }`),
  fc.array(field, { minLength: 1, maxLength: 2 }).map((fs) => `{ ${fs.join(' ')} }\nfragment U on User { email }`),
  fc.constantFrom('{', '{ a(', 'query { a } query { b }', '{ a } }', 'type X { a: Int }', '', '# c\n{ a }', '{ a(x: """block""") }', '{ a @include(if: true) }', '{ a @nope }', '# op\nquery {\n  # c\n  a # d\n  b\n}\n# frag\nfragment F on Query { a }'),
);

describeWithOpa('graphql.* against opa', () => {
  let oracle: BuiltinOracle;
  beforeAll(async () => {
    oracle = await BuiltinOracle.start([
      { name: 'graphql.parse_query', arity: 1 },
      { name: 'graphql.parse_schema', arity: 1 },
      { name: 'graphql.parse', arity: 2 },
      { name: 'graphql.parse_and_verify', arity: 2 },
      { name: 'graphql.is_valid', arity: 2 },
      { name: 'graphql.schema_is_valid', arity: 1 },
    ]);
  }, 30_000);
  afterAll(() => oracle?.stop());

  it('agree on generated queries and schemas given as text', async () => {
    const pairs = fc.sample(fc.tuple(query, fc.constantFrom(...SCHEMAS)), { numRuns: 300, seed: 5 });
    const calls = [
      ...pairs.flatMap(([q, s]) => [
        { name: 'graphql.parse', args: [q, s] },
        { name: 'graphql.parse_and_verify', args: [q, s] },
        { name: 'graphql.is_valid', args: [q, s] },
        { name: 'graphql.parse_query', args: [q] },
      ]),
      ...SCHEMAS.flatMap((s) => [{ name: 'graphql.parse_schema', args: [s] }, { name: 'graphql.schema_is_valid', args: [s] }]),
      ...[1, null, ['x']].flatMap((x) => [
        { name: 'graphql.parse_query', args: [x] },
        { name: 'graphql.parse', args: [x, SCHEMAS[0]] },
        { name: 'graphql.parse', args: ['{ a }', x] },
        { name: 'graphql.is_valid', args: [x, SCHEMAS[0]] },
        { name: 'graphql.schema_is_valid', args: [x] },
      ]),
    ];
    const t = await oracle.compare(calls);
    // graphql.parse lists every validation error in one message; the two walkers visit a query in
    // different orders, so for those the errors are compared as a set (the order is not OPA's API).
    const errorSet = (a: CallAnswer) => (a.kind === 'error' ? `${a.code}:${a.message.replace(/^graphql\.parse: /, '').replace(/ in GraphQL string at location \d+:\d+$/, '').split('\n').map((l) => l.replace(/^input:\d+:\d+: /, '').replace(/\.$/, '')).sort().join('|')}` : showAnswer(a));
    const real = t.disagreements.filter((d) => !(d.name === 'graphql.parse' && errorSet(d.engine) === errorSet(d.opa)));
    expect(real, describeDisagreements({ ...t, disagreements: real }, 6)).toEqual([]);
    // the share where only the order of listed errors differs stays small
    expect(t.disagreements.length, describeDisagreements(t, 3)).toBeLessThanOrEqual(Math.ceil(calls.length * 0.02));
    expect(t.kinds.value).toBeGreaterThan(600);
    expect(t.kinds.eval_builtin_error).toBeGreaterThan(100);
  }, 120_000);

  it('agree when the operands are AST objects (as parse_query and parse_schema return them)', async () => {
    const texts = fc.sample(fc.tuple(query, fc.constantFrom(...SCHEMAS)), { numRuns: 80, seed: 9 });
    const calls: { name: string; args: unknown[] }[] = [];
    for (const [q, s] of texts) {
      const qa = await oracle.opaAnswer('graphql.parse_query', [q]);
      const sa = await oracle.opaAnswer('graphql.parse_schema', [s]);
      if (qa.kind !== 'value' || sa.kind !== 'value') continue;
      const qo = JSON.parse(qa.text) as unknown;
      const so = JSON.parse(sa.text) as unknown;
      calls.push(
        { name: 'graphql.is_valid', args: [qo, so] },
        { name: 'graphql.is_valid', args: [q, so] },
        { name: 'graphql.parse_and_verify', args: [qo, s] },
        { name: 'graphql.schema_is_valid', args: [so] },
      );
    }
    const t = await oracle.compare(calls);
    expect(t.disagreements, describeDisagreements(t, 6)).toEqual([]);
    expect(t.cases).toBeGreaterThan(100);
  }, 120_000);
});
